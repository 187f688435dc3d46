// The file's stamp and the migration ladder: a new file is stamped and in
// rollback-journal mode; a foreign, newer, non-SQLite or missing file is refused with a
// message that says which; migrations run step by step, all or nothing.
#include <gtest/gtest.h>

#include <fstream>

#include "core/ir/error.h"
#include "db/connection.h"
#include "db/heuristics_database.h"
#include "db/schema.h"
#include "db/statement.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using testing_support::DatabaseFixture;

class SchemaTest : public DatabaseFixture {};

std::string openError(const std::string& path,
                      HeuristicsDatabase::Access access = HeuristicsDatabase::Access::Write) {
  try {
    HeuristicsDatabase database(path, access);
  } catch (const UserError& error) {
    return error.message();
  }
  return "";
}

// Rollback-journal mode, not WAL: readers then need no -shm file (a
// read-only folder, another user's file; SharingTest).
TEST_F(SchemaTest, NewFileIsStampedAndInRollbackJournalMode) {
  const std::string path = file("new.db");
  { HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write); }
  Connection c(path, Connection::Mode::ReadOnly);
  EXPECT_EQ(c.queryInt("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(c.queryInt("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(schemaLadder().back().to, kSchemaVersion);
  Statement mode(c, "PRAGMA journal_mode");
  auto scope = mode.begin();
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.columnText(0), "delete");
  // Opening again changes nothing and needs no migration.
  HeuristicsDatabase again(path, HeuristicsDatabase::Access::Read);
  EXPECT_TRUE(again.entries().empty());
}

TEST_F(SchemaTest, ForeignApplicationFileIsRefusedAndLeftUntouched) {
  const std::string path = file("other.db");
  {
    Connection c(path, Connection::Mode::ReadWriteCreate);
    c.exec("CREATE TABLE notes (text TEXT)");
    c.exec("PRAGMA application_id = 1234");
  }
  const std::string message = openError(path);
  EXPECT_NE(message.find("is not a FuserLab heuristics database"), std::string::npos) << message;
  EXPECT_NE(message.find("0x000004d2"), std::string::npos) << message;
  Connection c(path, Connection::Mode::ReadOnly);
  EXPECT_EQ(c.queryInt("SELECT count(*) FROM sqlite_schema"), 1);
  EXPECT_EQ(c.queryInt("PRAGMA application_id"), 1234);
}

TEST_F(SchemaTest, UnstampedSqliteFileWithTablesIsRefused) {
  const std::string path = file("plain.db");
  { Connection(path, Connection::Mode::ReadWriteCreate).exec("CREATE TABLE t (x)"); }
  EXPECT_NE(openError(path).find("is not a FuserLab heuristics database"), std::string::npos);
}

TEST_F(SchemaTest, NewerSchemaIsRefused) {
  const std::string path = file("newer.db");
  { HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write); }
  { Connection(path, Connection::Mode::ReadWrite).exec("PRAGMA user_version = 99"); }
  const std::string message = openError(path);
  EXPECT_NE(message.find("schema version 99, newer than the version 2"), std::string::npos)
      << message;
  EXPECT_NE(message.find("written by a newer FuserLab"), std::string::npos);
  EXPECT_NE(openError(path, HeuristicsDatabase::Access::Read).find("newer"), std::string::npos);
}

TEST_F(SchemaTest, TextFileIsRefusedAsNotADatabase) {
  const std::string path = file("notes.db");
  std::ofstream(path) << "these are not the droids you are looking for\n" << std::string(4096, 'x');
  const std::string message = openError(path);
  EXPECT_NE(message.find("not a valid SQLite database"), std::string::npos) << message;
}

TEST_F(SchemaTest, MissingFileIsAClearErrorForReaders) {
  const std::string message = openError(file("missing.db"), HeuristicsDatabase::Access::Read);
  EXPECT_NE(message.find("cannot open the heuristics database"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(file("missing.db")));
}

// A ladder of three steps over the real one's first: a file at version 1
// climbs to 3; a step that fails leaves it at 1 with nothing half done.
std::vector<Migration> testLadder(bool thirdFails) {
  std::vector<Migration> ladder = {schemaLadder().front()};
  ladder.push_back({2, [](Connection& c) { c.exec("CREATE TABLE extra (x INTEGER)"); }});
  ladder.push_back({3, [thirdFails](Connection& c) {
                      c.exec("ALTER TABLE extra ADD COLUMN y INTEGER");
                      if (thirdFails) c.exec("THIS IS NOT SQL");
                    }});
  return ladder;
}

TEST_F(SchemaTest, LadderClimbsEveryStepInOneTransaction) {
  const std::string path = file("ladder.db");
  {
    Connection c(path, Connection::Mode::ReadWriteCreate);
    prepareSchema(c, {schemaLadder().front()});
  }
  {
    Connection c(path, Connection::Mode::ReadWrite);
    EXPECT_THROW(prepareSchema(c, testLadder(true)), UserError);
    EXPECT_EQ(schemaVersion(c), 1);
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), 0);
  }
  Connection c(path, Connection::Mode::ReadWrite);
  prepareSchema(c, testLadder(false));
  EXPECT_EQ(schemaVersion(c), 3);
  EXPECT_EQ(c.queryInt("SELECT count(*) FROM pragma_table_info('extra')"), 2);
  // This build's ladder ends at 2: the file is now newer than it reads.
  EXPECT_NE(openError(path).find("newer"), std::string::npos);
}

TEST_F(SchemaTest, ReadOnlyOpenCannotInitializeAnEmptyFile) {
  const std::string path = file("empty.db");
  std::ofstream(path).flush();
  const std::string message = openError(path, HeuristicsDatabase::Access::Read);
  EXPECT_NE(message.find("is empty, not a heuristics database yet"), std::string::npos) << message;
  // A writer initializes it.
  EXPECT_EQ(openError(path), "");
}

// Version 2's per-entry same-architecture mark: a version-1 file (written
// before it) is read as it is by a reader, every entry unmarked, and
// migrated by the next writer, its entries kept and unmarked.
TEST_F(SchemaTest, VersionOneFileIsReadAsItIsAndMigratedByAWriter) {
  const std::string path = file("v1.db");
  {
    Connection c(path, Connection::Mode::ReadWriteCreate);
    prepareSchema(c, {schemaLadder().front()});
  }
  {
    // One entry, written as version 1 wrote it.
    Connection c(path, Connection::Mode::ReadWrite);
    c.exec(
        "INSERT INTO devices VALUES (1, 'sm_90-132sm-80gb-51200kib-1980mhz', 'h100', 'H100', 90, "
        "132, 85899345920, 52428800, 1980000, '{}');"
        "INSERT INTO segments VALUES (1, 'c0e67c529323052f', 'pointwise', '16x16', '16x16', "
        "'ir');"
        "INSERT INTO tuning_runs VALUES (1, '0.1.0', NULL, NULL, '2025-01-31T12:00:00Z', 'put', "
        "NULL);"
        "INSERT INTO entries VALUES (1, 1, 1, 1, '0.1.0', NULL, '{}', 'abc', 'manual', 1, NULL, "
        "'2025-01-31T12:00:00Z');");
  }
  {
    HeuristicsDatabase reader(path, HeuristicsDatabase::Access::Read);
    const auto entries = reader.entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_FALSE(entries[0].portable);
    Connection c(path, Connection::Mode::ReadOnly);
    EXPECT_EQ(schemaVersion(c), 1);  // the reader migrated nothing
  }
  HeuristicsDatabase writer(path, HeuristicsDatabase::Access::Write);
  EXPECT_EQ(schemaVersion(writer.connection()), 2);
  const auto entries = writer.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_FALSE(entries[0].portable);
  EXPECT_EQ(writer.setPortable(std::nullopt, true), 1);
  EXPECT_TRUE(writer.entry(1)->portable);
}

}  // namespace
}  // namespace fuserlab::db
