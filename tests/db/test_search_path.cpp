// Layered databases (issue 48 item 3): a search path of files read in order,
// exact keys before buckets, the answering file named in the answer and the
// report, same-architecture entries only when allowed, and a system file in
// a read-only folder served without any side file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/compiler/fusion_compiler.h"
#include "db/database_search_path.h"
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

// An entry keyed as the pointwise fusion at rows x cols on `device`.
Entry entryAt(int64_t rows, int64_t cols, const report::Json& params,
              const scheduler::DeviceSpec& device = scheduler::defaultDevice()) {
  BoundFusion bound(kPointwise, {shape(DataType::Float, {rows, cols})});
  bound.info.device = &device;
  const SegmentKey key = segmentKey(*bound.fusion, SchedulerType::Pointwise, bound.info);
  Entry entry = makeEntry(0, key.sizes, params);
  entry.segment.structureHash = key.structureHash;
  entry.segment.sizeBucket = key.sizeBucket;
  entry.device = DeviceRecord::fromSpec(device);
  entry.device.fingerprint = key.deviceFingerprint;
  return entry;
}

class SearchPathTest : public DatabaseFixture {
 protected:
  int64_t store(const std::string& name, const Entry& entry) {
    HeuristicsDatabase database(file(name), HeuristicsDatabase::Access::Write);
    Transaction transaction(database.connection());
    const int64_t id = database.store(entry);
    transaction.commit();
    return id;
  }
  std::optional<scheduler::ProvidedParams> ask(const DatabaseSearchPath& path, int64_t rows,
                                               int64_t cols) {
    BoundFusion bound(kPointwise, {shape(DataType::Float, {rows, cols})});
    return path.lookup(*bound.fusion, SchedulerType::Pointwise, bound.info);
  }
};

TEST_F(SearchPathTest, FirstFileWithTheKeyAnswersAndIsNamed) {
  store("user.db", entryAt(16, 1600, pointwiseParams(4, 256)));
  store("system.db", entryAt(16, 1600, pointwiseParams(2, 128)));
  store("system.db", entryAt(32, 64, pointwiseParams(1, 64)));

  DatabaseSearchPath path({file("user.db"), file("system.db")}, {});
  EXPECT_EQ(path.size(), 3u);
  EXPECT_EQ(path.path(), file("user.db") + ":" + file("system.db"));
  auto hit = ask(path, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_exact");
  EXPECT_EQ(hit->origin, file("user.db"));
  EXPECT_EQ(scheduler::paramsToJson(hit->params), pointwiseParams(4, 256));
  // Only the system file has 32x64.
  hit = ask(path, 32, 64);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->origin, file("system.db"));

  // The other order: the system file's params win.
  DatabaseSearchPath reversed({file("system.db"), file("user.db")}, {});
  hit = ask(reversed, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->origin, file("system.db"));
  EXPECT_EQ(scheduler::paramsToJson(hit->params), pointwiseParams(2, 128));
}

TEST_F(SearchPathTest, ExactInALaterFileBeatsABucketInAnEarlierOne) {
  store("user.db", entryAt(16, 1650, pointwiseParams(4, 256)));  // bucket 1664
  store("system.db", entryAt(16, 1600, pointwiseParams(2, 128)));
  DatabaseSearchPath path({file("user.db"), file("system.db")}, {});
  auto hit = ask(path, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_exact");
  EXPECT_EQ(hit->origin, file("system.db"));
  // 16x1640: no exact entry anywhere; the first file's bucket answers.
  hit = ask(path, 16, 1640);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_bucket");
  EXPECT_EQ(hit->origin, file("user.db"));
}

TEST_F(SearchPathTest, SameArchitectureEntriesAnswerOnlyWhenAllowed) {
  // Measured on an H100 with fewer SMs (another SKU of sm_90), and on an A100.
  scheduler::DeviceSpec smaller = scheduler::defaultDevice();
  smaller.smCount = 114;
  const auto a100 = *scheduler::findBuiltinDevice("a100");
  store("system.db", entryAt(16, 1600, pointwiseParams(4, 256), smaller));
  store("system.db", entryAt(16, 3200, pointwiseParams(2, 128), a100));

  DatabaseSearchPath strict({file("system.db")}, {});
  EXPECT_FALSE(ask(strict, 16, 1600).has_value());

  DatabaseSearchPath::Options allow;
  allow.allowSameArchitecture = true;
  DatabaseSearchPath lenient({file("system.db")}, allow);
  auto hit = ask(lenient, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_same_arch");
  EXPECT_EQ(hit->fallbackDevice, deviceFingerprint(smaller));
  EXPECT_EQ(hit->origin, file("system.db"));
  // The bucket too: 1590 shares 1600's bucket (1664).
  hit = ask(lenient, 16, 1590);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_same_arch");
  // Another architecture never answers.
  EXPECT_FALSE(ask(lenient, 16, 3200).has_value());

  // The compile report says so.
  BoundFusion bound(kPointwise, {shape(DataType::Float, {16, 1600})});
  runtime::Arguments inputs = {shape(DataType::Float, {16, 1600})};
  const runtime::CompiledFusion compiled = runtime::compileFusion(
      *bound.fusion, {}, scheduler::defaultDevice(), inputs, &lenient, false);
  ASSERT_EQ(compiled.report.segments.size(), 1u);
  const report::SegmentReport& segment = compiled.report.segments[0];
  EXPECT_EQ(segment.paramsSource, "database_same_arch");
  EXPECT_EQ(segment.paramsOrigin, file("system.db"));
  EXPECT_EQ(segment.paramsFallbackDevice, deviceFingerprint(smaller));
  EXPECT_NE(compiled.report.schedulerParamsText().find("measured on " + deviceFingerprint(smaller)),
            std::string::npos);
}

// Per-entry marks: an entry of another SKU of this architecture answers
// without --allow-same-arch when it is marked portable (stored so, or marked
// later with setPortable), and an unmarked one beside it does not; an exact
// or bucket entry of this device still comes first, and another
// architecture never answers, marked or not.
TEST_F(SearchPathTest, MarkedSameArchitectureEntriesAnswerWithoutTheOverride) {
  scheduler::DeviceSpec smaller = scheduler::defaultDevice();
  smaller.smCount = 114;
  const auto a100 = *scheduler::findBuiltinDevice("a100");
  Entry marked = entryAt(16, 1600, pointwiseParams(4, 256), smaller);
  marked.portable = true;
  store("system.db", marked);
  const int64_t unmarked = store("system.db", entryAt(32, 1600, pointwiseParams(2, 128), smaller));
  Entry other = entryAt(16, 3200, pointwiseParams(2, 128), a100);
  other.portable = true;
  store("system.db", other);

  DatabaseSearchPath strict({file("system.db")}, {});
  auto hit = ask(strict, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_same_arch");
  EXPECT_EQ(hit->fallbackDevice, deviceFingerprint(smaller));
  EXPECT_FALSE(ask(strict, 32, 1600).has_value());  // unmarked
  EXPECT_FALSE(ask(strict, 16, 3200).has_value());  // another architecture

  {
    HeuristicsDatabase database(file("system.db"), HeuristicsDatabase::Access::Write);
    EXPECT_EQ(database.setPortable(unmarked, true), 1);
    EXPECT_EQ(database.setPortable(unmarked, true), 0);  // already
  }
  DatabaseSearchPath again({file("system.db")}, {});
  hit = ask(again, 32, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_same_arch");
  EXPECT_EQ(hit->entryId, unmarked);

  // This device's own entry beats a marked one of another SKU.
  store("user.db", entryAt(16, 1600, pointwiseParams(1, 64)));
  DatabaseSearchPath layered({file("system.db"), file("user.db")}, {});
  hit = ask(layered, 16, 1600);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->source, "database_exact");
  EXPECT_EQ(hit->origin, file("user.db"));
}

TEST_F(SearchPathTest, ReportNamesTheAnsweringFile) {
  store("user.db", entryAt(8, 8, pointwiseParams(1, 32)));
  store("system.db", entryAt(16, 1600, pointwiseParams(4, 256)));
  DatabaseSearchPath path({file("user.db"), file("system.db")}, {});
  BoundFusion bound(kPointwise, {shape(DataType::Float, {16, 1600})});
  runtime::Arguments inputs = {shape(DataType::Float, {16, 1600})};
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(*bound.fusion, {}, scheduler::defaultDevice(), inputs, &path, false);
  const report::SegmentReport& segment = compiled.report.segments.at(0);
  EXPECT_EQ(segment.paramsSource, "database_exact");
  EXPECT_EQ(segment.paramsOrigin, file("system.db"));
  EXPECT_TRUE(segment.paramsFallbackDevice.empty());
  const report::Json json = compiled.report.toJson();
  EXPECT_EQ(json.get("segments")->items().at(0).get("params_origin")->asString(),
            file("system.db"));
}

// A system database in a read-only folder: loaded and asked without creating
// a -journal, -wal or -shm beside it. Root ignores the folder's mode, so the
// test asserts on the side files, which a reader must not create either way.
TEST_F(SearchPathTest, ReadOnlySystemFolderServesLookupsAndLeavesNoSideFiles) {
  std::filesystem::create_directories(dir_ / "system");
  store("system/system.db", entryAt(16, 1600, pointwiseParams(4, 256)));
  const std::string system = file("system/system.db");
  ASSERT_EQ(::chmod(system.c_str(), 0444), 0);
  ASSERT_EQ(::chmod((dir_ / "system").c_str(), 0555), 0);
  {
    // The user file does not exist yet: the path goes on with a note.
    DatabaseSearchPath path({file("user.db"), system}, {});
    EXPECT_EQ(path.files().size(), 1u);
    ASSERT_EQ(path.notes().size(), 1u);
    EXPECT_NE(path.notes()[0].find("does not exist"), std::string::npos);
    auto hit = ask(path, 16, 1600);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->origin, system);
  }
  std::vector<std::string> names;
  for (const auto& item : std::filesystem::directory_iterator(dir_ / "system")) {
    names.push_back(item.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"system.db"});
  EXPECT_FALSE(std::filesystem::exists(file("user.db")));
  ::chmod((dir_ / "system").c_str(), 0755);
}

TEST_F(SearchPathTest, MissingFilesAndEmptyPathsAreUserErrors) {
  EXPECT_THROW(DatabaseSearchPath({file("none.db")}, {}), UserError);
  EXPECT_THROW(DatabaseSearchPath({file("a.db"), file("b.db")}, {}), UserError);
  EXPECT_THROW(DatabaseSearchPath({}, {}), UserError);
  EXPECT_EQ(splitSearchPath("user.db:/usr/share/fuserlab/system.db"),
            (std::vector<std::string>{"user.db", "/usr/share/fuserlab/system.db"}));
  EXPECT_EQ(splitSearchPath(":a.db::b.db:"), (std::vector<std::string>{"a.db", "b.db"}));
  EXPECT_TRUE(splitSearchPath("::").empty());
}

}  // namespace
}  // namespace fuserlab::db
