#include "db/schema.h"

#include <cstdio>

#include "core/ir/error.h"
#include "db/statement.h"
#include "db/transaction.h"

namespace fuserlab::db {
namespace {

constexpr const char* kVersion1 = R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL,
  name TEXT NOT NULL,
  compute_capability INTEGER NOT NULL,
  sm_count INTEGER NOT NULL,
  memory_bytes INTEGER NOT NULL,
  l2_bytes INTEGER NOT NULL,
  clock_khz INTEGER NOT NULL,
  spec_json TEXT NOT NULL
);
CREATE TABLE segments (
  id INTEGER PRIMARY KEY,
  structure_hash TEXT NOT NULL,
  scheduler TEXT NOT NULL,
  sizes TEXT NOT NULL,
  size_bucket TEXT NOT NULL,
  fusion_ir TEXT NOT NULL,
  UNIQUE (structure_hash, scheduler, sizes)
);
CREATE INDEX segments_by_bucket ON segments (structure_hash, scheduler, size_bucket);
CREATE TABLE tuning_runs (
  id INTEGER PRIMARY KEY,
  compiler_version TEXT NOT NULL,
  cuda_version TEXT,
  driver_version TEXT,
  created_at TEXT NOT NULL,
  command TEXT NOT NULL,
  host TEXT
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES tuning_runs (id),
  segment_id INTEGER NOT NULL REFERENCES segments (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  params_json TEXT NOT NULL,
  params_hash TEXT NOT NULL,
  samples INTEGER NOT NULL CHECK (samples >= 0),
  median_ns REAL,
  mean_ns REAL,
  min_ns REAL,
  max_ns REAL,
  stddev_ns REAL,
  error TEXT
);
CREATE INDEX measurements_by_segment ON measurements (segment_id, device_id);
CREATE TABLE entries (
  id INTEGER PRIMARY KEY,
  segment_id INTEGER NOT NULL REFERENCES segments (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  params_schema INTEGER NOT NULL,
  min_compiler_version TEXT NOT NULL,
  max_compiler_version TEXT,
  params_json TEXT NOT NULL,
  params_hash TEXT NOT NULL,
  origin TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES tuning_runs (id),
  measurement_id INTEGER REFERENCES measurements (id),
  created_at TEXT NOT NULL,
  UNIQUE (segment_id, device_id, params_schema)
);
)sql";

// Version 2: the per-entry same-architecture mark.
constexpr const char* kVersion2 = R"sql(
ALTER TABLE entries ADD COLUMN portable INTEGER NOT NULL DEFAULT 0 CHECK (portable IN (0, 1));
)sql";

std::string hexId(int64_t id) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08llx",
                static_cast<unsigned long long>(static_cast<uint32_t>(id)));
  return text;
}

// The file stays in rollback-journal mode (journal_mode DELETE), SQLite's
// default, and one in WAL mode (written by an earlier FuserLab) is switched
// back. A WAL file cannot be read without a -shm file beside it: readers in
// a read-only folder (a system-wide install, chattr +i) failed, and a reader
// of another user left -wal and -shm files that the owner could not write
// next time. A rollback-mode file is read without creating anything, and it
// works on a network filesystem, where WAL's shared memory does not. What
// WAL gave, readers going on while a writer commits, matters little here:
// the runtime reads the whole file once, and a reader waits out a commit
// (milliseconds) on the busy timeout.
//
// The mode is stored in the file and can only change while no other
// connection has the file open: SQLite refuses at once (no busy wait) while
// one does, so the change is retried until the busy timeout; if a process of
// an earlier FuserLab keeps the file open that long, the file stays in WAL
// for now and the next writer switches it.
void leaveWal(Connection& connection) {
  Statement mode(connection, "PRAGMA journal_mode");
  {
    const Statement::Scope scope = mode.begin();
    if (!mode.step() || mode.columnText(0) != "wal") return;
  }
  try {
    connection.execWaitingForLocks("PRAGMA journal_mode = DELETE");
  } catch (const UserError&) {
    // Still WAL: it works for writers, and a later writer tries again.
  }
}

}  // namespace

const std::vector<Migration>& schemaLadder() {
  static const std::vector<Migration> ladder = {
      {1, [](Connection& c) { c.exec(kVersion1); }},
      {2, [](Connection& c) { c.exec(kVersion2); }},
  };
  return ladder;
}

int schemaVersion(Connection& connection) {
  return static_cast<int>(connection.queryInt("PRAGMA user_version"));
}

void prepareSchema(Connection& connection, const std::vector<Migration>& ladder) {
  FL_ASSERT(!ladder.empty(), "the schema ladder is empty");
  const int latest = ladder.back().to;
  const std::string& path = connection.path();
  connection.exec("PRAGMA foreign_keys = ON");

  // Read the stamp before writing anything: a foreign file stays untouched.
  // One statement, so one snapshot: another process creating the file
  // commits its tables, application_id and user_version together, and
  // separate reads could see its tables without its stamp (two tuning runs
  // starting on a new file at once; ReliabilityTest).
  Statement read(connection,
                 "SELECT (SELECT application_id FROM pragma_application_id), "
                 "(SELECT user_version FROM pragma_user_version), "
                 "(SELECT count(*) FROM sqlite_schema)");
  int64_t applicationId = 0;
  int version = 0;
  int64_t tables = 0;
  {
    const Statement::Scope scope = read.begin();
    FL_CHECK(read.step(), "'", path,
             "': reading its application_id and schema version "
             "returned no row");
    applicationId = read.columnInt(0);
    version = static_cast<int>(read.columnInt(1));
    tables = read.columnInt(2);
  }
  const bool fresh = applicationId == 0 && version == 0 && tables == 0;
  if (!fresh && applicationId != kApplicationId) {
    FL_USER_ERROR("'", path,
                  "' is not a FuserLab heuristics database: its "
                  "SQLite application_id is ",
                  hexId(applicationId), " where FuserLab writes ", hexId(kApplicationId),
                  " (another application's file?); pass a FuserLab database "
                  "or a new file name");
  }
  if (version > latest) {
    FL_USER_ERROR("'", path, "' has heuristics-database schema version ", version,
                  ", newer than the version ", latest,
                  " this FuserLab reads: it was written by a newer FuserLab. "
                  "Upgrade, or export it there (fuserlab-cli db export) and "
                  "import the lines here");
  }
  // A reader reads an older file as it is: migrating needs a writer, and a
  // system database may sit on a read-only mount.
  if (connection.readOnly() && !fresh && version >= kOldestReadableVersion && version < latest) {
    return;
  }
  if (version == latest) {
    if (!connection.readOnly()) {
      leaveWal(connection);
      connection.exec("PRAGMA synchronous = FULL");
    }
    return;
  }
  FL_CHECK(!connection.readOnly(), "'", path, "' ",
           fresh ? std::string("is empty, not a heuristics database yet")
                 : "has schema version " + std::to_string(version) + " and needs upgrading to " +
                       std::to_string(latest),
           "; open it with a command that writes (e.g. fuserlab-cli db verify)");

  leaveWal(connection);
  connection.exec("PRAGMA synchronous = FULL");
  Transaction transaction(connection);
  // Another process may have created or migrated the file meanwhile: read
  // the version again under the write lock.
  version = schemaVersion(connection);
  for (const Migration& step : ladder) {
    if (step.to <= version) continue;
    FL_ASSERT(step.to == version + 1, "the schema ladder skips from ", version, " to ", step.to);
    step.apply(connection);
    version = step.to;
  }
  // PRAGMA takes no bound parameters; both values are integers of ours.
  connection.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  connection.exec("PRAGMA user_version = " + std::to_string(version));
  transaction.commit();
}

}  // namespace fuserlab::db
