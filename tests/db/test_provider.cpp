// The runtime's lookup: exact key, then the nearest entry of the size
// bucket, else nothing; entries outside their compiler range or with params
// that no longer parse are left out with a note; the compiler reports the
// source and entry id, and ignores (with a note) params the scheduler
// refuses.
#include <gtest/gtest.h>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "db/connection.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/transaction.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using ir::DataType;
using scheduler::SchedulerType;
using testing_support::BoundFusion;
using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;
using testing_support::shape;

using testing_support::kPointwise;

// An entry keyed as `bound`'s fusion is, scheduled by pointwise.
Entry entryFor(const BoundFusion& bound, const report::Json& params) {
  const SegmentKey key = segmentKey(*bound.fusion, SchedulerType::Pointwise, bound.info);
  Entry entry = makeEntry(0, key.sizes, params);
  entry.segment.structureHash = key.structureHash;
  entry.segment.sizeBucket = key.sizeBucket;
  return entry;
}

class DatabaseProviderTest : public DatabaseFixture {
 protected:
  int64_t store(const Entry& entry) {
    HeuristicsDatabase database(file("h.db"), HeuristicsDatabase::Access::Write);
    Transaction transaction(database.connection());
    const int64_t id = database.store(entry);
    transaction.commit();
    return id;
  }
  std::optional<scheduler::ProvidedParams> ask(const DatabaseProvider& provider, int64_t rows,
                                               int64_t cols) {
    BoundFusion bound(kPointwise, {shape(DataType::Float, {rows, cols})});
    return provider.lookup(*bound.fusion, SchedulerType::Pointwise, bound.info);
  }
};

TEST_F(DatabaseProviderTest, ExactThenBucketThenNothing) {
  const int64_t id = store(entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {16, 1600})}),
                                    pointwiseParams(4, 256)));
  DatabaseProvider provider(file("h.db"));
  EXPECT_EQ(provider.size(), 1u);
  EXPECT_TRUE(provider.notes().empty());

  auto exact = ask(provider, 16, 1600);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->source, "database_exact");
  EXPECT_EQ(exact->entryId, id);
  EXPECT_EQ(scheduler::paramsToJson(exact->params), pointwiseParams(4, 256));

  auto nearby = ask(provider, 16, 1650);
  ASSERT_TRUE(nearby.has_value());
  EXPECT_EQ(nearby->source, "database_bucket");
  EXPECT_EQ(nearby->entryId, id);

  EXPECT_FALSE(ask(provider, 16, 1700).has_value());  // bucket 1792
  EXPECT_FALSE(ask(provider, 32, 1600).has_value());

  // Another device, the same sizes: nothing.
  BoundFusion bound(kPointwise, {shape(DataType::Float, {16, 1600})});
  const auto a100 = *scheduler::findBuiltinDevice("a100");
  bound.info.device = &a100;
  EXPECT_FALSE(provider.lookup(*bound.fusion, SchedulerType::Pointwise, bound.info));
  // Another scheduler for the same segment: nothing.
  bound.info.device = &scheduler::defaultDevice();
  EXPECT_FALSE(provider.lookup(*bound.fusion, SchedulerType::Transpose, bound.info));
}

TEST_F(DatabaseProviderTest, NearestEntryOfTheBucketWins) {
  store(entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {16, 1540})}),
                 pointwiseParams(4, 128)));
  const int64_t near = store(entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {16, 1660})}),
                                      pointwiseParams(2, 128)));
  DatabaseProvider provider(file("h.db"));
  auto hit = ask(provider, 16, 1650);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_bucket");
  EXPECT_EQ(hit->entryId, near);
}

TEST_F(DatabaseProviderTest, UnusableEntriesAreLeftOutWithANote) {
  Entry old = entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {16, 1600})}),
                       pointwiseParams(4, 256));
  old.minCompilerVersion = "0.0.1";
  old.maxCompilerVersion = std::string(compilerVersion());
  store(old);
  const int64_t broken = store(
      entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {8, 8})}), pointwiseParams(1, 32)));
  Connection(file("h.db"), Connection::Mode::ReadWrite)
      .exec("UPDATE entries SET params_json = '{\"block_dim\": 1}' WHERE id = " +
            std::to_string(broken));

  DatabaseProvider provider(file("h.db"));
  EXPECT_EQ(provider.size(), 0u);
  ASSERT_EQ(provider.notes().size(), 2u);
  EXPECT_NE(provider.notes()[0].find("is valid for compiler versions 0.0.1 to"), std::string::npos)
      << provider.notes()[0];
  EXPECT_NE(provider.notes()[1].find("its stored params or sizes no longer parse"),
            std::string::npos)
      << provider.notes()[1];
  EXPECT_FALSE(ask(provider, 16, 1600).has_value());
}

// Issue 43 item 6: a stored size past int64 (a hand-edited or damaged file)
// is a note on that entry, not std::stoll's out_of_range (exit 3).
TEST_F(DatabaseProviderTest, StoredSizePastSixtyFourBitsIsLeftOutWithANote) {
  EXPECT_THROW(parseSizes("99999999999999999999x4"), UserError);
  EXPECT_THROW(parseSizes("-4x4"), UserError);
  EXPECT_EQ(parseSizes("9223372036854775807x4,s"),
            (std::vector<std::vector<int64_t>>{{INT64_MAX, 4}, {}}));
  Entry entry = entryFor(BoundFusion(kPointwise, {shape(DataType::Float, {16, 1600})}),
                         pointwiseParams(4, 256));
  entry.segment.sizes = "99999999999999999999x1600";
  store(entry);
  std::unique_ptr<DatabaseProvider> provider;
  ASSERT_NO_THROW(provider = std::make_unique<DatabaseProvider>(file("h.db")));
  EXPECT_EQ(provider->size(), 0u);
  ASSERT_EQ(provider->notes().size(), 1u);
  EXPECT_NE(provider->notes()[0].find("stored sizes '99999999999999999999x1600' are not "
                                      "of the form 16x128x1600,1600 (each size from 0 "
                                      "to 9223372036854775807)"),
            std::string::npos)
      << provider->notes()[0];
}

// Records each segment's key as the compiler asks, answering nothing.
class KeyRecorder : public scheduler::HeuristicProvider {
 public:
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    keys.push_back(segmentKey(segment, type, info));
    return std::nullopt;
  }
  mutable std::vector<SegmentKey> keys;
};

TEST_F(DatabaseProviderTest, Seed001ReportsSourceAndEntryAndIgnoresRefusedParams) {
  frontend::Script script = frontend::readScript(testing_support::seed001AtAnySize(), "seed001.py");
  const ir::Fusion& fusion = script.fusion();
  const auto& device = scheduler::defaultDevice();
  auto compileAt = [&](int64_t hidden, const scheduler::HeuristicProvider* provider) {
    const std::string h = std::to_string(hidden);
    const auto inputs = frontend::makeInputShapes(
        frontend::parseInputsOption("16x128x" + h + ":bf16," + h + ":bf16," + h + ":bf16"));
    return runtime::compileFusion(fusion, compiler::CompileOptions(), device, inputs, provider,
                                  false);
  };
  KeyRecorder recorder;
  const auto heuristic = compileAt(1600, &recorder);
  ASSERT_EQ(heuristic.report.segments.size(), 1u);
  ASSERT_EQ(recorder.keys.size(), 1u);
  const SegmentKey& key = recorder.keys[0];
  EXPECT_EQ(key.scheduler, "inner_persistent");

  // Pin params other than the heuristic's: 256 threads instead of 224, the
  // row in shared memory (which has no shifted rows for lengths 8 does not
  // divide).
  report::Json pinned = heuristic.report.segments[0].params;
  pinned.set("block_dim_x", 256);
  pinned.set("persistent_storage", "shared_memory");
  Entry entry = makeEntry(0, key.sizes, pointwiseParams(1, 128));
  entry.segment = {key.structureHash, key.scheduler, key.sizes, key.sizeBucket, "ir"};
  entry.paramsSchema = key.paramsSchema;
  entry.params = pinned;
  const int64_t id = store(entry);

  DatabaseProvider provider(file("h.db"));
  const auto exact = compileAt(1600, &provider).report.segments.at(0);
  EXPECT_EQ(exact.paramsSource, "database_exact");
  EXPECT_EQ(exact.paramsEntryId, id);
  EXPECT_EQ(exact.params, pinned);
  EXPECT_TRUE(exact.paramsNote.empty());

  const auto bucket = compileAt(1664, &provider).report.segments.at(0);
  EXPECT_EQ(bucket.paramsSource, "database_bucket");
  EXPECT_EQ(bucket.paramsEntryId, id);
  EXPECT_EQ(bucket.params, pinned);

  // 1604 is in the bucket, but not divisible by the entry's vectorization,
  // and its shared-memory storage cannot shift the rows.
  const auto refused = compileAt(1604, &provider).report.segments.at(0);
  EXPECT_EQ(refused.paramsSource, "heuristic");
  EXPECT_EQ(refused.paramsEntryId, 0);
  EXPECT_NE(refused.params, pinned);
  EXPECT_NE(refused.paramsNote.find("params from database_bucket (entry " + std::to_string(id) +
                                    ") refused: vectorization_factor 8"),
            std::string::npos)
      << refused.paramsNote;
}

}  // namespace
}  // namespace fuserlab::db
