// A damaged heuristics database (issue 43): a file that fails SQLite's
// quick_check takes no writes (the message says how to recover: export what
// is readable, import it into a new file), and a row that cannot be read (a
// damaged page, a stored value that does not parse) is skipped with a note
// instead of failing list, export or a lookup for the whole file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "db/connection.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/maintenance.h"
#include "db/merge.h"
#include "db/transaction.h"
#include "tests/cli/cli_runner.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;

constexpr int kEntries = 200;

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class DamageTest : public DatabaseFixture {
 protected:
  // kEntries entries, each of its own segment; a segment's IR is padded so
  // that the segments fill some dozen pages, and each entry's origin names
  // it so that its row can be found in the file.
  std::string makeDatabase() {
    const std::string path = file("h.db");
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    Transaction transaction(database.connection());
    for (int n = 1; n <= kEntries; ++n) {
      Entry entry = makeEntry(n, "8x" + std::to_string(n), pointwiseParams(1, 128));
      entry.segment.fusionIr = "segment-" + std::to_string(n) + "|" + std::string(300, 'i');
      entry.origin = "origin-" + std::to_string(n) + "|";
      database.store(entry);
    }
    transaction.commit();
    return path;
  }

  // Overwrites the page holding `marker` with garbage; returns its number.
  static int64_t damagePageHolding(const std::string& path, const std::string& marker) {
    std::string bytes = readBytes(path);
    const size_t at = bytes.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    const size_t pageSize = 4096;
    const size_t page = at / pageSize;
    EXPECT_GT(page, 0u);  // never the schema page
    std::fill(bytes.begin() + page * pageSize, bytes.begin() + (page + 1) * pageSize, '\xab');
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return static_cast<int64_t>(page + 1);
  }

  static std::set<std::string> sizesOf(const std::vector<Entry>& entries) {
    std::set<std::string> sizes;
    for (const Entry& entry : entries) sizes.insert(entry.segment.sizes);
    return sizes;
  }
};

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST_F(DamageTest, ADamagedFileTakesNoWritesAndSaysHowToRecover) {
  const std::string path = makeDatabase();
  damagePageHolding(path, "segment-100|");
  const std::string before = readBytes(path);
  try {
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    ADD_FAILURE() << "a damaged file was opened for writing";
  } catch (const UserError& error) {
    const std::string message = error.message();
    EXPECT_NE(message.find("is damaged: SQLite's quick_check finds"), std::string::npos) << message;
    EXPECT_NE(message.find("Nothing was written"), std::string::npos) << message;
    EXPECT_NE(message.find("fuserlab-cli db export --db " + path), std::string::npos) << message;
    EXPECT_NE(message.find("db import --db NEW.db"), std::string::npos) << message;
  }
  EXPECT_EQ(readBytes(path), before);
  // db verify still opens it, to list the damage.
  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Verify);
  EXPECT_FALSE(verifyDatabase(database).ok());
}

// The entries whose segment row is on the damaged page are skipped, each
// with a note; every other entry reads, as do the provider and export.
TEST_F(DamageTest, EntriesOfADamagedSegmentPageAreSkippedWithNotes) {
  const std::string path = makeDatabase();
  damagePageHolding(path, "segment-100|");
  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Read);
  const std::vector<Entry> entries = database.entries(true);
  const auto& notes = database.readNotes();
  EXPECT_FALSE(notes.empty());
  EXPECT_EQ(entries.size() + notes.size(), static_cast<size_t>(kEntries)) << joined(notes);
  EXPECT_GT(entries.size(), static_cast<size_t>(kEntries) * 3 / 4);
  EXPECT_EQ(sizesOf(entries).count("8x100"), 0u);
  EXPECT_EQ(sizesOf(entries).count("8x1"), 1u);
  EXPECT_EQ(sizesOf(entries).count("8x200"), 1u);
  EXPECT_NE(notes.front().find("could not be read"), std::string::npos) << notes.front();

  DatabaseProvider provider(path);
  EXPECT_EQ(provider.size(), entries.size());
  EXPECT_EQ(provider.notes().size(), notes.size());

  std::ostringstream lines;
  EXPECT_EQ(exportLines(database, lines), entries.size());
}

// A damaged page of the entries table itself: the ids on it are skipped as
// a range, and reading goes on after it.
TEST_F(DamageTest, ADamagedPageOfEntriesIsSkippedAndReadingGoesOn) {
  const std::string path = makeDatabase();
  damagePageHolding(path, "origin-100|");
  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Read);
  const std::vector<Entry> entries = database.entries();
  ASSERT_EQ(database.readNotes().size(), 1u) << joined(database.readNotes());
  EXPECT_NE(database.readNotes()[0].find("are on a damaged page"), std::string::npos)
      << database.readNotes()[0];
  EXPECT_LT(entries.size(), static_cast<size_t>(kEntries));
  EXPECT_GT(entries.size(), static_cast<size_t>(kEntries) / 2);
  const auto sizes = sizesOf(entries);
  EXPECT_EQ(sizes.count("8x100"), 0u);
  EXPECT_EQ(sizes.count("8x1"), 1u);
  EXPECT_EQ(sizes.count("8x200"), 1u);
  // Every id before the gap and after it is there: only the page is lost.
  std::vector<int64_t> ids;
  for (const Entry& entry : entries) ids.push_back(entry.id);
  int gaps = 0;
  for (size_t i = 1; i < ids.size(); ++i) gaps += ids[i] != ids[i - 1] + 1;
  EXPECT_EQ(gaps, 1);
}

// One stored value that does not parse (a hand edit) disabled list, export
// and the provider for the whole file.
TEST_F(DamageTest, ARowThatDoesNotParseIsSkippedWithANote) {
  const std::string path = makeDatabase();
  {
    Connection c(path, Connection::Mode::ReadWrite);
    c.exec("UPDATE entries SET params_json = '{not json' WHERE id = 7");
  }
  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Read);
  EXPECT_EQ(database.entries().size(), static_cast<size_t>(kEntries - 1));
  ASSERT_EQ(database.readNotes().size(), 1u);
  EXPECT_NE(database.readNotes()[0].find("entry 7 skipped"), std::string::npos)
      << database.readNotes()[0];
  DatabaseProvider provider(path);
  EXPECT_EQ(provider.size(), static_cast<size_t>(kEntries - 1));
  ASSERT_EQ(provider.notes().size(), 1u);
  // The entry asked for by id still fails, saying why.
  EXPECT_THROW(database.entry(7), UserError);
  // verify reports it.
  HeuristicsDatabase verify(path, HeuristicsDatabase::Access::Verify);
  const VerifyResult result = verifyDatabase(verify);
  EXPECT_FALSE(result.ok());
}

// The CLI: put and import refuse the damaged file (exit 2, file unchanged);
// list and export go on with notes; export then import recovers the rest.
TEST_F(DamageTest, CliRefusesWritesAndRecoversThroughExportAndImport) {
  const std::string path = makeDatabase();
  damagePageHolding(path, "segment-100|");
  const std::string before = readBytes(path);
  const std::string lines = file("saved.jsonl");

  cli::CliResult r = cli::runCli("db export --db " + path + " --output " + lines);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("note: entry "), std::string::npos) << r.output;
  r = cli::runCli("db import --db " + path + " " + lines);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("quick_check"), std::string::npos) << r.output;
  // The heuristic's params for seed 001's segment: put gets as far as the
  // database.
  std::ofstream(file("params.json"))
      << R"({"schema_version":1,"fastest_dim_reduction":true,"persistent_kernel":true,"project_persistent_buffers":true,"persistent_storage":"registers","vectorization_factor":8,"persistent_batch_size":4,"unroll_factor_reduction":1,"unroll_factor_iteration":1,"block_dim_x":64,"block_dim_y":2,"grid_dim_x":1024,"grid_dim_y":1,"cross_block_reduction":true,"cross_grid_reduction":false,"cluster_reduction":false,"register_cap":0,"use_int32_indexing":true})";
  r = cli::runCli("db put --db " + path + " " +
                  cli::source("resources/examples/seed001_nanogpt_layer_norm.py") +
                  " --segment 0 --device h100 --params @" + file("params.json"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("quick_check"), std::string::npos) << r.output;
  EXPECT_EQ(readBytes(path), before);

  r = cli::runCli("db list --db " + path);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("note: entry "), std::string::npos) << r.output;
  EXPECT_EQ(cli::runCli("db verify --db " + path).exitCode, 1);

  const std::string fresh = file("new.db");
  r = cli::runCli("db import --db " + fresh + " " + lines);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  HeuristicsDatabase recovered(fresh, HeuristicsDatabase::Access::Read);
  const size_t count = recovered.entries().size();
  EXPECT_GT(count, static_cast<size_t>(kEntries) * 3 / 4);
  EXPECT_LT(count, static_cast<size_t>(kEntries));
  EXPECT_EQ(cli::runCli("db verify --db " + fresh).exitCode, 0);
}

}  // namespace
}  // namespace fuserlab::db
