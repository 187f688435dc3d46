// Merging entries into a database: import (JSON lines), merge (another
// database file) and the rule both follow when the key is already there:
// the better-measured entry stays. Measured beats unmeasured (hand-pinned);
// between measured ones the lower median time wins, then more samples, then
// the smaller params hash (so merging measured files, such as the shards of a
// tuning campaign, gives the same entries in any order); when neither is
// measured the entry already there stays. Either way every measured variant
// of both is kept, with its run (host, command, date) as provenance, and the
// entry that stays is marked portable (same-architecture fallback) when
// either was.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "db/heuristics_database.h"

namespace fuserlab::db {

struct MergeOutcome {
  enum class Action { Added, Replaced, Kept, Same };
  Action action = Action::Added;
  int64_t id = 0;       //!< the entry's id in the destination
  std::string message;  //!< one sentence: which entry stayed and why
};

//! Whether `incoming` is better measured than `existing`; `why` (if given)
//! gets the reason in words.
bool betterMeasured(const Entry& incoming, const Entry& existing, std::string* why = nullptr);

//! Merges one entry (its params must parse for its scheduler: a UserError
//! otherwise). The caller holds a Transaction.
MergeOutcome mergeEntry(HeuristicsDatabase& database, const Entry& incoming);

//! Imports export lines from `in` (`name` for messages) in one transaction:
//! a line that does not parse names its line number and nothing is imported.
//! A tuning file's measurement lines (db/jsonl_tuning_store.h) are stored as
//! measurements.
std::vector<MergeOutcome> importLines(HeuristicsDatabase& database, std::istream& in,
                                      const std::string& name);

//! Merges every entry of the database at `otherPath` in one transaction.
std::vector<MergeOutcome> mergeDatabase(HeuristicsDatabase& database, const std::string& otherPath);

//! Writes every entry (with its variants) as one JSON line each; returns
//! how many. Entries that cannot be read are left out, with a note each in
//! database.readNotes().
size_t exportLines(HeuristicsDatabase& database, std::ostream& out);

//! Checks `entry`'s params parse for its scheduler and params schema;
//! UserError naming the entry otherwise.
void checkParams(const Entry& entry);

}  // namespace fuserlab::db
