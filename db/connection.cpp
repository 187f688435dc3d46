#include "db/connection.h"

#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "core/ir/bounded_file.h"
#include "core/ir/error.h"

namespace fuserlab::db {

namespace {

// `path` as a SQLite URI ("file:" and the path percent-encoded): the name is
// taken as a file name whatever characters it holds, and the query can ask
// for read-only or immutable access.
std::string fileUri(const std::string& path, const std::string& query) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return query.empty() ? uri : uri + "?" + query;
}

// Whether the file's header says WAL (bytes 18 and 19, the read and write
// format versions, are 2): a file written by a FuserLab that kept its
// databases in WAL mode.
bool headerSaysWal(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char header[20] = {};
  if (!file.read(header, sizeof header)) return false;
  return header[18] == 2 && header[19] == 2;
}

}  // namespace

Connection::Connection(const std::string& path, Mode mode, int busyTimeoutMs)
    : path_(path), mode_(mode), busyTimeoutMs_(busyTimeoutMs) {
  // SQLite gives ":memory:", "" and "file:" URIs meanings of their own (a
  // database that keeps nothing, or one a URI's options describe); the
  // database is a file.
  FL_CHECK(!path.empty() && path != ":memory:" && path.rfind("file:", 0) != 0,
           "the heuristics database '", path,
           "' must be a file path: SQLite "
           "reads ':memory:', an empty name and 'file:' URIs as databases that "
           "keep nothing or as URIs (a file whose name starts so is written "
           "./NAME)");
  // A named pipe, a device or a directory is no database, and SQLite (or
  // reading the header below) would wait on a pipe for a writer: refuse
  // what is there unless it is a regular file (a path with nothing there
  // yet is created, where the mode allows).
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::status(path, error))) {
    ir::requireRegularFile(path, "heuristics database", std::numeric_limits<uint64_t>::max());
  }
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  std::string query;
  switch (mode) {
    case Mode::ReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      query = "mode=ro";
      // A reader never creates a file. The files FuserLab writes are in
      // rollback-journal mode, which a reader opens without side files. A
      // file still in WAL mode would need a -shm file a reader may not be
      // allowed to create, or would leave one behind owned by the reader;
      // when no -shm file is there no writer has the file open, and it is
      // read as immutable (no locks, no side files). A write command
      // switches such a file out of WAL (prepareSchema).
      if (headerSaysWal(path) && !std::filesystem::exists(path + "-shm", error)) {
        query += "&immutable=1";
      }
      break;
    case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::ReadWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  const int rc = sqlite3_open_v2(fileUri(path, query).c_str(), &db_, flags, nullptr);
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
    hint =
        " (another process held the database locked for longer than the "
        "busy timeout; retry when it is done)";
  } else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    hint =
        " (the file is not a valid SQLite database or is damaged; restore "
        "it from an export, or start a new file)";
  } else if (rc == SQLITE_READONLY_ROLLBACK) {
    hint =
        " (a writer was interrupted and left its journal beside the file; "
        "a write command run by someone who may write the file and its "
        "folder rolls it back, e.g. fuserlab-cli db verify)";
  } else if (primary == SQLITE_READONLY) {
    hint = " (the file or its folder is read-only)";
  } else if (primary == SQLITE_FULL) {
    hint = " (the disk is full)";
  }
  FL_USER_ERROR("heuristics database '", path_, "': ", what, " failed: ", sqlite3_errmsg(db_),
                " (SQLite code ", rc, ")", hint);
}

void Connection::exec(const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    FL_USER_ERROR("heuristics database '", path_, "': '", sql, "' failed: ", message,
                  " (SQLite code ", rc, ")");
  }
}

void Connection::execWaitingForLocks(const std::string& sql) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busyTimeoutMs_);
  while (true) {
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
      check(rc, sql.c_str());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int64_t Connection::queryInt(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), sql.c_str());
  const int rc = sqlite3_step(stmt);
  const int64_t value = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  check(rc, sql.c_str());
  return value;
}

int64_t Connection::changes() const { return sqlite3_changes64(db_); }

bool Connection::lastErrorIsDamage() const {
  return (sqlite3_errcode(db_) & 0xff) == SQLITE_CORRUPT;
}

bool Connection::lastCallFailed() const {
  const int code = sqlite3_errcode(db_);
  return code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE;
}

int64_t Connection::lastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

}  // namespace fuserlab::db
