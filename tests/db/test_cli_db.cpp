// fuserlab-cli db and inspect --db, as a user runs them: the acceptance
// case of the heuristics-database issue on seed 001 (put on h100, exact,
// bucket, refused with a note) and every db subcommand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/cuda/cuda_device.h"
#include "core/report/json.h"
#include "db/heuristics_database.h"
#include "tests/cli/cli_runner.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using cli::CliResult;
using cli::runCli;
using report::Json;
using testing_support::DatabaseFixture;

// Seed 001 with shapes from its input (seed001AtAnySize), as a file.
const std::string kSeed001 = [] {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("fuserlab-seed001-any-size-" + std::to_string(getpid()) + ".py"))
                         .string();
  std::ofstream(path) << testing_support::seed001AtAnySize();
  return path;
}();

std::string inputsAt(int64_t hidden) {
  const std::string h = std::to_string(hidden);
  return " --inputs 16x128x" + h + ":bf16," + h + ":bf16," + h + ":bf16";
}

// The heuristic's params for seed 001 with 256 threads per row and the row
// in shared memory instead (shared memory has no shifted rows, so at a row
// length 8 does not divide these params are refused).
const char* kPinned =
    R"({"schema_version":1,"fastest_dim_reduction":true,"persistent_kernel":true,)"
    R"("project_persistent_buffers":true,"persistent_storage":"shared_memory",)"
    R"("vectorization_factor":8,"persistent_batch_size":1,)"
    R"("unroll_factor_reduction":1,"unroll_factor_iteration":1,"block_dim_x":256,)"
    R"("block_dim_y":1,"grid_dim_x":2048,"grid_dim_y":1,"cross_block_reduction":true,)"
    R"("cross_grid_reduction":false,"register_cap":0,"use_int32_indexing":true})";
// kPinned as the database stores and reports it: kPinned predates
// cluster_reduction, which reads as false.
std::string pinnedAsStored() {
  std::string stored = kPinned;
  const std::string before = R"("cross_grid_reduction":false,)";
  stored.insert(stored.find(before) + before.size(), R"("cluster_reduction":false,)");
  return stored;
}

class DbCliTest : public DatabaseFixture {
 protected:
  void SetUp() override {
    DatabaseFixture::SetUp();
    db_ = file("h.db");
    unsetenv("FUSERLAB_HEURISTICS_DB");
    unsetenv("FUSERLAB_DB");
    unsetenv("FUSERLAB_DB_SAME_ARCH");
  }
  CliResult put(const std::string& params, const std::string& extra = "") {
    return runCli("db put --db " + db_ + " " + kSeed001 + " --segment 0 --device h100 --params '" +
                  params + "'" + extra);
  }
  const Json& segment0(const std::string& args) {
    CliResult r = runCli("inspect " + kSeed001 + " --device h100 --json -" + args);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    report_ = Json::parse(r.stdoutText);
    return report_.get("segments")->items().at(0);
  }
  std::string db_;
  Json report_;
};

TEST_F(DbCliTest, Seed001PutThenInspectExactBucketAndRefused) {
  CliResult r = put(kPinned);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("stored entry 1: inner_persistent 16x128x1600,1600,1600 on h100"),
            std::string::npos)
      << r.output;

  const Json& exact = segment0(" --db " + db_);
  EXPECT_EQ(exact.get("params_source")->asString(), "database_exact");
  EXPECT_EQ(exact.get("params_entry_id")->asInt(), 1);
  EXPECT_EQ(*exact.get("params"), Json::parse(pinnedAsStored()));
  EXPECT_EQ(exact.get("params_note")->asString(), "");

  const Json& bucket = segment0(" --db " + db_ + inputsAt(1664));
  EXPECT_EQ(bucket.get("params_source")->asString(), "database_bucket");
  EXPECT_EQ(bucket.get("params_entry_id")->asInt(), 1);
  EXPECT_EQ(*bucket.get("params"), Json::parse(pinnedAsStored()));

  const Json& refused = segment0(" --db " + db_ + inputsAt(1604));
  EXPECT_EQ(refused.get("params_source")->asString(), "heuristic");
  EXPECT_TRUE(refused.get("params_entry_id")->isNull());
  EXPECT_NE(refused.get("params_note")
                ->asString()
                .find("params from database_bucket (entry 1) refused: vectorization_factor 8"),
            std::string::npos)
      << refused.dump();

  // Without a database: the heuristic, and no note.
  const Json& plain = segment0("");
  EXPECT_EQ(plain.get("params_source")->asString(), "heuristic");
  EXPECT_NE(*plain.get("params"), Json::parse(pinnedAsStored()));

  // The text summary names the source and the entry, and the note.
  r = runCli("inspect " + kSeed001 + " --device h100 --db " + db_ + inputsAt(1604));
  EXPECT_NE(r.output.find("note: params from database_bucket (entry 1) refused"), std::string::npos)
      << r.output;
  r = runCli("inspect " + kSeed001 + " --device h100 --db " + db_);
  EXPECT_NE(r.output.find("params (database_exact, entry 1, " + db_ + "): " + pinnedAsStored()),
            std::string::npos)
      << r.output;
  // Another device: the entry does not apply.
  r = runCli("inspect " + kSeed001 + " --device a100 --db " + db_);
  EXPECT_NE(r.output.find("params (heuristic)"), std::string::npos) << r.output;
}

TEST_F(DbCliTest, RunTakesTheDatabaseOnlyOnTheCudaBackend) {
  CliResult r = runCli("run " + kSeed001 + inputsAt(1600) + " --db " + db_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--db"), std::string::npos) << r.output;
}

TEST_F(DbCliTest, CudaRunUsesPinnedParamsAndMatchesTheReference) {
  if (runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << runtime::cudaUnavailableReason();
  }
  // Pinned for this machine's GPU at these sizes, then run with --db: the
  // kernel is built from the database's params (256 threads per row) and
  // still matches the CPU reference.
  CliResult put = runCli("db put --db " + db_ + " " + kSeed001 + inputsAt(1600) +
                         " --segment 0 --device cuda:0 --params '" + kPinned + "'");
  ASSERT_EQ(put.exitCode, 0) << put.output;
  CliResult r = runCli("run " + kSeed001 + inputsAt(1600) + " --backend cuda --check --db " + db_);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("check passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 database_exact"), std::string::npos) << r.output;
}

TEST_F(DbCliTest, EnvironmentVariableNamesTheDatabase) {
  ASSERT_EQ(put(kPinned).exitCode, 0);
  setenv("FUSERLAB_HEURISTICS_DB", db_.c_str(), 1);
  const Json& segment = segment0("");
  unsetenv("FUSERLAB_HEURISTICS_DB");
  EXPECT_EQ(segment.get("params_source")->asString(), "database_exact");
  EXPECT_EQ(report_.get("heuristics_database")->get("path")->asString(), db_);
}

// Issue 48 item 3: --db repeated and FUSERLAB_DB are a search path; the
// report names the file that answered; an H100 entry answers on an H200 (the
// same sm_90, more memory) only with --allow-same-arch, and says so.
TEST_F(DbCliTest, SearchPathNamesTheAnsweringFileAndSameArchNeedsAsking) {
  ASSERT_EQ(put(kPinned).exitCode, 0);  // into h.db, the "system" file
  const std::string user = file("user.db");
  ASSERT_EQ(runCli("db put --db " + user + " " + kSeed001 +
                   " --segment 0 --device h100 --params '" + kPinned + "'" + inputsAt(1664))
                .exitCode,
            0);
  const Json& exact = segment0(" --db " + user + " --db " + db_);
  EXPECT_EQ(exact.get("params_source")->asString(), "database_exact");
  EXPECT_EQ(exact.get("params_origin")->asString(), db_);
  const Json* files = report_.get("heuristics_database")->get("search_path");
  ASSERT_NE(files, nullptr);
  ASSERT_EQ(files->items().size(), 2u);
  EXPECT_EQ(files->items()[0].get("path")->asString(), user);

  setenv("FUSERLAB_DB", (user + ":" + db_).c_str(), 1);
  const Json& fromEnv = segment0(inputsAt(1664));
  EXPECT_EQ(fromEnv.get("params_source")->asString(), "database_exact");
  EXPECT_EQ(fromEnv.get("params_origin")->asString(), user);
  unsetenv("FUSERLAB_DB");

  CliResult r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_);
  EXPECT_NE(r.output.find("params (heuristic)"), std::string::npos) << r.output;
  r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_ + " --allow-same-arch");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("params (database_same_arch, entry 1, " + db_ + ", measured on sm_90-"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("a same-architecture fallback"), std::string::npos) << r.output;
  setenv("FUSERLAB_DB_SAME_ARCH", "1", 1);
  r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_);
  unsetenv("FUSERLAB_DB_SAME_ARCH");
  EXPECT_NE(r.output.find("database_same_arch"), std::string::npos) << r.output;
}

// Issue 48 item 3's marks: db mark-portable marks an entry (or all) usable
// on another GPU of the same architecture, and then an H100 entry answers on
// an H200 without --allow-same-arch; export, import and merge carry the
// mark; --clear removes it.
TEST_F(DbCliTest, MarkPortableLetsAnEntryAnswerOnTheSameArchitecture) {
  ASSERT_EQ(put(kPinned).exitCode, 0);
  CliResult r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_);
  EXPECT_NE(r.output.find("params (heuristic)"), std::string::npos) << r.output;

  r = runCli("db mark-portable --db " + db_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("needs --entry ID (one entry) or --all"), std::string::npos) << r.output;
  r = runCli("db mark-portable --db " + db_ + " --entry 7");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("has no entry 7"), std::string::npos) << r.output;
  r = runCli("db mark-portable --db " + db_ + " --entry 1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("entry 1 marked portable"), std::string::npos) << r.output;
  r = runCli("db list --db " + db_);
  EXPECT_NE(r.output.find("unmeasured; portable"), std::string::npos) << r.output;

  r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("params (database_same_arch, entry 1, " + db_ + ", measured on sm_90-"),
            std::string::npos)
      << r.output;

  // Export -> import into a new file keeps it; so does merge.
  const std::string lines = file("h.jsonl"), imported = file("imported.db"),
                    merged = file("merged.db");
  ASSERT_EQ(runCli("db export --db " + db_ + " --output " + lines).exitCode, 0);
  r = runCli("db import --db " + imported + " " + lines);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_EQ(runCli("db merge " + merged + " " + imported).exitCode, 0);
  for (const std::string& path : {imported, merged}) {
    db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Read);
    const auto entries = database.entries();
    ASSERT_EQ(entries.size(), 1u) << path;
    EXPECT_TRUE(entries[0].portable) << path;
  }
  // Merging a marked entry onto the same unmarked params marks it.
  const std::string plain = file("plain.db");
  ASSERT_EQ(runCli("db put --db " + plain + " " + kSeed001 +
                   " --segment 0 --device h100 --params '" + kPinned + "'")
                .exitCode,
            0);
  r = runCli("db merge " + plain + " " + merged);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  {
    db::HeuristicsDatabase database(plain, db::HeuristicsDatabase::Access::Read);
    EXPECT_TRUE(database.entries().at(0).portable) << r.output;
  }

  r = runCli("db mark-portable --db " + db_ + " --all --clear");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("1 entry unmarked"), std::string::npos) << r.output;
  r = runCli("inspect " + kSeed001 + " --device h200 --db " + db_);
  EXPECT_NE(r.output.find("params (heuristic)"), std::string::npos) << r.output;
}

// Issue 48 item 2: db merge OUT IN... combines shard files.
TEST_F(DbCliTest, MergeTakesSeveralShardFiles) {
  const std::string a = file("shard0.db"), b = file("shard1.db"), out = file("all.db");
  ASSERT_EQ(runCli("db put --db " + a + " " + kSeed001 + " --segment 0 --device h100 --params '" +
                   kPinned + "'")
                .exitCode,
            0);
  ASSERT_EQ(runCli("db put --db " + b + " " + kSeed001 + " --segment 0 --device h100 --params '" +
                   kPinned + "'" + inputsAt(1664))
                .exitCode,
            0);
  CliResult r = runCli("db merge " + out + " " + a + " " + b);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("from " + b + ":"), std::string::npos) << r.output;
  r = runCli("db list --db " + out);
  EXPECT_NE(r.output.find("16x128x1600"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("16x128x1664"), std::string::npos) << r.output;
  EXPECT_EQ(runCli("db merge " + out).exitCode, 2);
  // The older form still works: --db OUT OTHER.
  EXPECT_EQ(runCli("db merge --db " + file("again.db") + " " + a).exitCode, 0);
}

TEST_F(DbCliTest, PutRefusesParamsTheSchedulerRefusesUnlessForced) {
  std::string tooWide = kPinned;
  tooWide.replace(tooWide.find("\"vectorization_factor\":8"), 24, "\"vectorization_factor\":16");
  CliResult r = put(tooWide);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("Nothing was stored; pass --force"), std::string::npos) << r.output;
  EXPECT_EQ(runCli("db list --db " + db_).exitCode, 2);  // no file was made

  r = put(tooWide, " --force");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("warning:"), std::string::npos);
  const Json& segment = segment0(" --db " + db_);
  EXPECT_EQ(segment.get("params_source")->asString(), "heuristic");
  EXPECT_NE(
      segment.get("params_note")->asString().find("params from database_exact (entry 1) refused"),
      std::string::npos);

  // Params that do not parse, a segment that does not exist.
  r = put(R"({"block_dim": 3})");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("reduction params: field"), std::string::npos) << r.output;
  r = runCli("db put --db " + db_ + " " + kSeed001 + " --segment 7 --params '{}'");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("has 1 segments"), std::string::npos) << r.output;
}

TEST_F(DbCliTest, ListShowExportImportMergeVerifyPrune) {
  ASSERT_EQ(put(kPinned).exitCode, 0);
  CliResult r = runCli("db list --db " + db_);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("1 entries in"), std::string::npos) << r.output;
  r = runCli("db show --db " + db_ + " 1");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("sm_90-132sm-80gb-51200kib-1980mhz"), std::string::npos);
  EXPECT_NE(r.output.find("welford"), std::string::npos) << r.output;  // the IR
  EXPECT_EQ(runCli("db show --db " + db_ + " 9").exitCode, 2);

  const std::string lines = file("export.jsonl");
  r = runCli("db export --db " + db_ + " --output " + lines);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runCli("db import --db " + file("copy.db") + " " + lines);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("1 added, 0 replaced, 0 kept"), std::string::npos) << r.output;
  r = runCli("db merge --db " + file("copy.db") + " " + db_);
  EXPECT_NE(r.output.find("already holds these params; kept"), std::string::npos) << r.output;
  r = runCli("db export --db " + file("copy.db"));
  std::ifstream original(lines);
  std::string line;
  std::getline(original, line);
  EXPECT_EQ(r.stdoutText, line + "\n");

  r = runCli("db verify --db " + db_);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(": ok"), std::string::npos);
  r = runCli("db prune --db " + db_ + " --dry-run");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("would remove 0 entries"), std::string::npos) << r.output;
}

TEST_F(DbCliTest, ForeignAndNewerFilesAreRefusedClearly) {
  std::ofstream(file("notes.txt")) << "not a database\n" << std::string(2000, 'x');
  CliResult r = runCli("db list --db " + file("notes.txt"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("not a valid SQLite database"), std::string::npos) << r.output;
  r = runCli("inspect " + kSeed001 + " --db " + file("notes.txt"));
  EXPECT_EQ(r.exitCode, 2);
  r = runCli("inspect " + kSeed001 + " --db " + file("missing.db"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("cannot open the heuristics database"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fuserlab::db
