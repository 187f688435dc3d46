// Checking and tidying a heuristics database: verify (SQLite's
// integrity_check and foreign_key_check, then every stored params set parsed
// again for its scheduler) and prune (entries that can never be used again,
// then rows nothing refers to).
#pragma once

#include <string>
#include <vector>

#include "db/heuristics_database.h"

namespace fuserlab::db {

struct VerifyResult {
  std::vector<std::string> problems;  //!< one sentence each; empty: all good
  std::vector<std::string> facts;     //!< counts and notes for the user
  bool ok() const { return problems.empty(); }
};

VerifyResult verifyDatabase(HeuristicsDatabase& database);

struct PruneResult {
  std::vector<std::string> removed;  //!< one sentence per removed entry
  int64_t unreferencedRows = 0;      //!< segments, devices, runs, measurements
};

//! Removes entries whose compiler range ended at or before this version and
//! entries whose params no longer parse, then unreferenced rows; with
//! `dryRun` reports the same and changes nothing. One transaction.
PruneResult pruneDatabase(HeuristicsDatabase& database, bool dryRun);

}  // namespace fuserlab::db
