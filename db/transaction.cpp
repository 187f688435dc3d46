#include "db/transaction.h"

#include <sqlite3.h>

namespace fuserlab::db {

Transaction::Transaction(Connection& connection) : connection_(connection) {
  connection_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!open_) return;
  // An error has already been reported by whatever threw; a failed rollback
  // leaves the transaction to SQLite's automatic rollback on close.
  sqlite3_exec(connection_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  connection_.exec("COMMIT");
  open_ = false;
}

}  // namespace fuserlab::db
