// Connection: one open SQLite database file, closed when the object goes.
// The only type here that owns a sqlite3 handle; statements and transactions
// borrow it. Every SQLite return code is checked: a failure is a UserError
// naming the file and SQLite's message (a busy, corrupt or foreign file is
// the user's to fix), never a silent misuse.
#pragma once

#include <string>

struct sqlite3;

namespace fuserlab::db {

class Connection {
 public:
  //! ReadOnly never creates, changes or leaves a file (no -journal, -wal or
  //! -shm), so a file in a read-only folder or of another user can be read.
  enum class Mode { ReadOnly, ReadWrite, ReadWriteCreate };

  //! Opens the file `path` (never a SQLite URI or ":memory:": a UserError);
  //! with ReadWriteCreate a missing file is created. Waits up to
  //! `busyTimeoutMs` for another process's lock before failing.
  Connection(const std::string& path, Mode mode, int busyTimeoutMs = 10000);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  //! Runs SQL without parameters (DDL, PRAGMA, BEGIN/COMMIT). Values never
  //! go through here: bind them on a Statement.
  void exec(const std::string& sql);
  //! exec for statements SQLite may refuse at once with SQLITE_BUSY, without
  //! calling the busy handler, while another process holds a lock (changing
  //! the journal mode): retried until the busy timeout passes.
  void execWaitingForLocks(const std::string& sql);
  //! The single integer a PRAGMA or query returns (e.g. "PRAGMA user_version").
  int64_t queryInt(const std::string& sql);

  //! Throws a UserError for return code `rc` of the call described by `what`
  //! unless it is one of SQLITE_OK, SQLITE_ROW, SQLITE_DONE.
  void check(int rc, const char* what) const;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  bool readOnly() const { return mode_ == Mode::ReadOnly; }
  //! Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t changes() const;
  int64_t lastInsertRowId() const;
  //! Whether the last SQLite call on this connection failed because the
  //! file is damaged (SQLITE_CORRUPT): what a reader may skip with a note.
  bool lastErrorIsDamage() const;
  //! Whether the last SQLite call on this connection failed at all.
  bool lastCallFailed() const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  Mode mode_;
  int busyTimeoutMs_;
};

}  // namespace fuserlab::db
