// Storing, reading, merging, exporting, verifying and pruning entries.
#include <gtest/gtest.h>

#include <sstream>

#include "core/ir/error.h"
#include "db/connection.h"
#include "db/heuristics_database.h"
#include "db/maintenance.h"
#include "db/merge.h"
#include "db/transaction.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;
using Action = MergeOutcome::Action;

class HeuristicsDatabaseTest : public DatabaseFixture {
 protected:
  void SetUp() override {
    DatabaseFixture::SetUp();
    database_ =
        std::make_unique<HeuristicsDatabase>(file("h.db"), HeuristicsDatabase::Access::Write);
  }
  int64_t store(const Entry& entry) {
    Transaction transaction(database_->connection());
    const int64_t id = database_->store(entry);
    transaction.commit();
    return id;
  }
  MergeOutcome merge(const Entry& entry) {
    Transaction transaction(database_->connection());
    MergeOutcome outcome = mergeEntry(*database_, entry);
    transaction.commit();
    return outcome;
  }
  std::unique_ptr<HeuristicsDatabase> database_;
};

TEST_F(HeuristicsDatabaseTest, StoredEntryReadsBackWithItsMeasurement) {
  Entry entry = makeEntry(1, "16x1600", pointwiseParams(4, 256), 1234.5, 40);
  entry.variants.push_back(*entry.measurement);
  const int64_t id = store(entry);
  auto read = database_->entry(id);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->id, id);
  EXPECT_EQ(read->segment.sizes, "16x1600");
  EXPECT_EQ(read->params, entry.params);
  EXPECT_EQ(read->device.fingerprint, entry.device.fingerprint);
  EXPECT_EQ(read->run, entry.run);
  ASSERT_TRUE(read->measurement.has_value());
  EXPECT_EQ(*read->measurement->medianNs, 1234.5);
  EXPECT_EQ(read->measurement->samples, 40);
  // The chosen measurement and the identical variant are one row.
  EXPECT_EQ(read->variants.size(), 1u);
  EXPECT_FALSE(database_->entry(id + 1).has_value());
}

TEST_F(HeuristicsDatabaseTest, StoringTheSameKeyReplacesInPlace) {
  const int64_t id = store(makeEntry(1, "16x1600", pointwiseParams(4, 256)));
  const int64_t other = store(makeEntry(1, "16x1601", pointwiseParams(4, 256)));
  EXPECT_NE(id, other);
  EXPECT_EQ(store(makeEntry(1, "16x1600", pointwiseParams(2, 128))), id);
  EXPECT_EQ(database_->entries().size(), 2u);
  EXPECT_EQ(database_->entry(id)->params, makeEntry(1, "", pointwiseParams(2, 128)).params);
}

TEST_F(HeuristicsDatabaseTest, MergeKeepsTheBetterMeasuredEntry) {
  const int64_t id = store(makeEntry(1, "16x1600", pointwiseParams(4, 256)));
  // Measured beats hand-pinned.
  MergeOutcome outcome = merge(makeEntry(1, "16x1600", pointwiseParams(2, 128), 900.0));
  EXPECT_EQ(outcome.action, Action::Replaced) << outcome.message;
  EXPECT_EQ(outcome.id, id);
  EXPECT_NE(outcome.message.find("the incoming entry is measured"), std::string::npos)
      << outcome.message;
  // Slower loses, and says so; its measurement is kept as a variant.
  outcome = merge(makeEntry(1, "16x1600", pointwiseParams(8, 512), 1500.0));
  EXPECT_EQ(outcome.action, Action::Kept);
  EXPECT_NE(outcome.message.find("the existing entry is faster"), std::string::npos)
      << outcome.message;
  EXPECT_EQ(database_->entry(id)->params, makeEntry(1, "", pointwiseParams(2, 128)).params);
  EXPECT_EQ(database_->entry(id)->variants.size(), 2u);
  // Faster wins.
  outcome = merge(makeEntry(1, "16x1600", pointwiseParams(8, 512), 800.0));
  EXPECT_EQ(outcome.action, Action::Replaced);
  // Unmeasured never replaces measured; the same params are "same".
  EXPECT_EQ(merge(makeEntry(1, "16x1600", pointwiseParams(1, 64))).action, Action::Kept);
  EXPECT_EQ(merge(makeEntry(1, "16x1600", pointwiseParams(8, 512), 800.0)).action, Action::Same);
  // Equal medians: more samples win.
  outcome = merge(makeEntry(1, "16x1600", pointwiseParams(4, 512), 800.0, 100));
  EXPECT_EQ(outcome.action, Action::Replaced);
  EXPECT_NE(outcome.message.find("more samples"), std::string::npos);
  // A new key is added.
  EXPECT_EQ(merge(makeEntry(2, "16x1600", pointwiseParams(4, 256))).action, Action::Added);
}

TEST_F(HeuristicsDatabaseTest, ExportImportRoundTrips) {
  Entry measured = makeEntry(1, "16x1600", pointwiseParams(4, 256), 1000.0);
  measured.variants.push_back(
      *makeEntry(1, "16x1600", pointwiseParams(2, 256), 1500.0).measurement);
  store(measured);
  store(makeEntry(2, "8x8", pointwiseParams(1, 64)));
  std::stringstream lines;
  exportLines(*database_, lines);

  HeuristicsDatabase copy(file("copy.db"), HeuristicsDatabase::Access::Write);
  const auto outcomes = importLines(copy, lines, "lines");
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].action, Action::Added);
  const auto original = database_->entries(true);
  const auto imported = copy.entries(true);
  ASSERT_EQ(imported.size(), original.size());
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_EQ(imported[i].toJson(), original[i].toJson());
  }
  // Importing again changes nothing.
  std::stringstream again;
  exportLines(*database_, again);
  for (const auto& outcome : importLines(copy, again, "lines")) {
    EXPECT_EQ(outcome.action, Action::Same);
  }
  EXPECT_EQ(copy.tableCounts(), database_->tableCounts());
}

TEST_F(HeuristicsDatabaseTest, ImportWithABadLineImportsNothing) {
  std::stringstream lines;
  lines << makeEntry(1, "16x1600", pointwiseParams(4, 256)).toJson().dump(-1) << "\n";
  Entry bad = makeEntry(2, "16x1600", pointwiseParams(4, 256));
  bad.params.set("vectorisation", 4);  // a field pointwise params do not have
  lines << bad.toJson().dump(-1) << "\n";
  try {
    importLines(*database_, lines, "bad.jsonl");
    FAIL() << "a bad line was imported";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("bad.jsonl line 2"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("vectorisation"), std::string::npos);
    EXPECT_NE(error.message().find("nothing was imported"), std::string::npos);
  }
  EXPECT_TRUE(database_->entries().empty());
}

TEST_F(HeuristicsDatabaseTest, MergeDatabaseFile) {
  store(makeEntry(1, "16x1600", pointwiseParams(4, 256), 1000.0));
  {
    HeuristicsDatabase other(file("other.db"), HeuristicsDatabase::Access::Write);
    Transaction transaction(other.connection());
    other.store(makeEntry(1, "16x1600", pointwiseParams(2, 256), 700.0));
    other.store(makeEntry(3, "4x4", pointwiseParams(1, 32)));
    transaction.commit();
  }
  const auto outcomes = mergeDatabase(*database_, file("other.db"));
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].action, Action::Replaced);
  EXPECT_EQ(outcomes[1].action, Action::Added);
  EXPECT_EQ(database_->entries().size(), 2u);
}

TEST_F(HeuristicsDatabaseTest, VerifyFindsParamsThatNoLongerParse) {
  const int64_t id = store(makeEntry(1, "16x1600", pointwiseParams(4, 256), 1000.0));
  VerifyResult result = verifyDatabase(*database_);
  EXPECT_TRUE(result.ok()) << result.problems.front();
  // A params set edited behind our back (a field of another struct).
  Connection raw(file("h.db"), Connection::Mode::ReadWrite);
  raw.exec(
      "UPDATE entries SET params_json = '{\"block_dim_x\": 128, "
      "\"persistent_kernel\": true}' WHERE id = " +
      std::to_string(id));
  raw.exec("UPDATE measurements SET params_json = '[]'");
  result = verifyDatabase(*database_);
  ASSERT_EQ(result.problems.size(), 2u);
  EXPECT_NE(result.problems[0].find("its params do not parse"), std::string::npos)
      << result.problems[0];
  EXPECT_NE(result.problems[1].find("measured variant's params do not parse"), std::string::npos)
      << result.problems[1];
}

TEST_F(HeuristicsDatabaseTest, PruneDropsExpiredEntriesAndUnreferencedRows) {
  Entry expired = makeEntry(1, "16x1600", pointwiseParams(4, 256), 1000.0);
  expired.minCompilerVersion = "0.0.1";
  expired.maxCompilerVersion = std::string(compilerVersion());  // ends here
  store(expired);
  Entry future = makeEntry(2, "16x1600", pointwiseParams(4, 256));
  future.minCompilerVersion = "99.0.0";  // for a later FuserLab: kept
  store(future);
  store(makeEntry(3, "16x1600", pointwiseParams(4, 256)));

  PruneResult dry = pruneDatabase(*database_, true);
  EXPECT_EQ(dry.removed.size(), 1u);
  EXPECT_EQ(database_->entries().size(), 3u);

  PruneResult result = pruneDatabase(*database_, false);
  ASSERT_EQ(result.removed.size(), 1u);
  EXPECT_NE(result.removed[0].find("compiler range ends at"), std::string::npos);
  EXPECT_GE(result.unreferencedRows, 2);  // its segment and its measurement
  EXPECT_EQ(database_->entries().size(), 2u);
  EXPECT_TRUE(verifyDatabase(*database_).ok());
}

TEST(CompilerVersionTest, ComparesNumerically) {
  EXPECT_LT(compareVersions("0.9.1", "0.10.0"), 0);
  EXPECT_EQ(compareVersions("1.0", "1.0.0"), 0);
  EXPECT_GT(compareVersions("2.0.0", "1.99.99"), 0);
  EXPECT_TRUE(versionInRange("0.1.0", "0.1.0", std::nullopt));
  EXPECT_FALSE(versionInRange("0.2.0", "0.1.0", std::string("0.2.0")));
  EXPECT_THROW(compareVersions("1.x", "1.0"), UserError);
}

}  // namespace
}  // namespace fuserlab::db
