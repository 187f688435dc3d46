#include "db/connection.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include "core/ir/bounded_file.h"
#include "core/ir/error.h"

namespace fuserlab::db {

Connection::Connection(const std::string& path, Mode mode, int busyTimeoutMs)
    : path_(path), mode_(mode), busyTimeoutMs_(busyTimeoutMs) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case Mode::ReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::ReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  // A named pipe, a device or a directory is no database, and SQLite would
  // wait on a pipe for a writer: refuse what is there unless it is a regular
  // file (a path with nothing there yet is created, where the mode allows).
  std::error_code error;
  if (path != ":memory:" && !path.empty() &&
      std::filesystem::exists(std::filesystem::status(path, error))) {
    ir::requireRegularFile(path, "heuristics database",
                           std::numeric_limits<uint64_t>::max());
  }
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    FL_USER_ERROR("cannot open the heuristics database '", path, "': ", message,
                  mode == Mode::ReadOnly || mode == Mode::ReadWrite
                      ? " (does the file exist and can you read it?)"
                      : "");
  }
  sqlite3_extended_result_codes(db_, 1);
  check(sqlite3_busy_timeout(db_, busyTimeoutMs), "setting the busy timeout");
}

Connection::~Connection() {
  // sqlite3_close_v2 defers the close until every statement is finalized; a
  // destructor must not throw, so its result is not checked.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void Connection::check(int rc, const char* what) const {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  const int primary = rc & 0xff;
  std::string hint;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    hint = " (another process held the database locked for longer than the "
           "busy timeout; retry when it is done)";
  } else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    hint = " (the file is not a valid SQLite database or is damaged; restore "
           "it from an export, or start a new file)";
  } else if (primary == SQLITE_READONLY) {
    hint = " (the file or its folder is read-only)";
  } else if (primary == SQLITE_FULL) {
    hint = " (the disk is full)";
  }
  FL_USER_ERROR("heuristics database '", path_, "': ", what, " failed: ",
                sqlite3_errmsg(db_), " (SQLite code ", rc, ")", hint);
}

void Connection::exec(const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    FL_USER_ERROR("heuristics database '", path_, "': '", sql, "' failed: ",
                  message, " (SQLite code ", rc, ")");
  }
}

void Connection::execWaitingForLocks(const std::string& sql) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(busyTimeoutMs_);
  while (true) {
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
    if ((rc & 0xff) != SQLITE_BUSY ||
        std::chrono::steady_clock::now() >= deadline) {
      check(rc, sql.c_str());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int64_t Connection::queryInt(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr),
        sql.c_str());
  const int rc = sqlite3_step(stmt);
  const int64_t value = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  check(rc, sql.c_str());
  return value;
}

int64_t Connection::changes() const { return sqlite3_changes64(db_); }

int64_t Connection::lastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

}  // namespace fuserlab::db
