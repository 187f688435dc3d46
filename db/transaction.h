// Transaction: BEGIN IMMEDIATE on construction, ROLLBACK on destruction
// unless commit() ran. IMMEDIATE takes the write lock up front (waiting up
// to the busy timeout), so two writers queue instead of one failing half way
// with SQLITE_BUSY on lock upgrade.
#pragma once

#include "db/connection.h"

namespace fuserlab::db {

class Transaction {
 public:
  explicit Transaction(Connection& connection);
  //! Rolls back if commit() did not run; never throws.
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

}  // namespace fuserlab::db
