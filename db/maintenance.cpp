#include "db/maintenance.h"

#include "core/ir/error.h"
#include "core/scheduler/heuristic_params.h"
#include "db/compiler_version.h"
#include "db/merge.h"
#include "db/segment_key.h"
#include "db/statement.h"
#include "db/transaction.h"

namespace fuserlab::db {
namespace {

// The rows of a checking PRAGMA, as text (one row may have several columns).
std::vector<std::string> pragmaRows(Connection& connection, const char* pragma) {
  Statement statement(connection, pragma);
  auto scope = statement.begin();
  std::vector<std::string> rows;
  while (statement.step()) {
    std::string row;
    for (int column = 0; column < statement.columnCount(); ++column) {
      if (statement.isNull(column)) continue;
      if (!row.empty()) row += " ";
      row += statement.columnText(column);
    }
    rows.push_back(row);
  }
  return rows;
}

// Why `entry` can no longer be used by any compiler from this one on.
std::optional<std::string> unusable(const Entry& entry) {
  if (entry.maxCompilerVersion &&
      compareVersions(*entry.maxCompilerVersion, compilerVersion()) <= 0) {
    return "its compiler range ends at " + *entry.maxCompilerVersion + ", before this " +
           std::string(compilerVersion());
  }
  try {
    checkParams(entry);
  } catch (const UserError& error) {
    return error.message();
  }
  return std::nullopt;
}

}  // namespace

VerifyResult verifyDatabase(HeuristicsDatabase& database) {
  VerifyResult result;
  Connection& connection = database.connection();
  // On a badly damaged file the checks themselves can fail: that is one
  // more problem to report, not the end of the report.
  try {
    for (const std::string& row : pragmaRows(connection, "PRAGMA integrity_check")) {
      if (row != "ok") result.problems.push_back("integrity_check: " + row);
    }
  } catch (const UserError& error) {
    result.problems.push_back("integrity_check: " + error.message());
  }
  try {
    for (const std::string& row : pragmaRows(connection, "PRAGMA foreign_key_check")) {
      result.problems.push_back("foreign_key_check (table rowid parent fkid): " + row);
    }
  } catch (const UserError& error) {
    result.problems.push_back("foreign_key_check: " + error.message());
  }
  int64_t outOfRange = 0;
  int64_t variants = 0;
  std::vector<Entry> entries;
  try {
    entries = database.entries(true);
  } catch (const UserError& error) {
    result.problems.push_back("reading the entries: " + error.message());
  }
  for (const std::string& note : database.readNotes()) {
    result.problems.push_back("unreadable: " + note);
  }
  for (const Entry& entry : entries) {
    if (!versionInRange(compilerVersion(), entry.minCompilerVersion, entry.maxCompilerVersion)) {
      ++outOfRange;
    }
    try {
      checkParams(entry);
      const auto type = *scheduler::parseSchedulerType(entry.segment.scheduler);
      const std::string hash =
          hex64(scheduler::paramsHash(scheduler::paramsFromJson(type, entry.params)));
      if (hash != entry.paramsHash) {
        result.problems.push_back(entry.summary() + ": stored params hash " + entry.paramsHash +
                                  " is not the params' hash " + hash + " (edited by hand?)");
      }
    } catch (const UserError& error) {
      result.problems.push_back(error.message());
    }
    const auto type = scheduler::parseSchedulerType(entry.segment.scheduler);
    if (!type) continue;  // reported above
    for (const auto& variant : entry.variants) {
      ++variants;
      try {
        scheduler::paramsFromJson(*type, variant.params);
      } catch (const UserError& error) {
        result.problems.push_back(entry.summary() +
                                  ": a measured variant's params do not parse: " + error.message());
      }
    }
  }
  try {
    for (const auto& [table, count] : database.tableCounts()) {
      result.facts.push_back(table + ": " + std::to_string(count) + " rows");
    }
  } catch (const UserError& error) {
    result.problems.push_back("counting the rows: " + error.message());
  }
  result.facts.push_back(std::to_string(variants) +
                         " measured variants of stored entries re-parsed");
  if (outOfRange > 0) {
    result.facts.push_back(std::to_string(outOfRange) +
                           " entries are outside their compiler version range "
                           "for this FuserLab " +
                           std::string(compilerVersion()) + " (the runtime leaves them out)");
  }
  return result;
}

PruneResult pruneDatabase(HeuristicsDatabase& database, bool dryRun) {
  PruneResult result;
  Transaction transaction(database.connection());
  for (const Entry& entry : database.entries()) {
    if (auto why = unusable(entry)) {
      database.remove(entry.id);
      result.removed.push_back(entry.summary() + ": " + *why);
    }
  }
  result.unreferencedRows = database.removeUnreferenced();
  if (!dryRun) transaction.commit();  // else rolled back when it goes
  return result;
}

}  // namespace fuserlab::db
