#include "db/merge.h"

#include "core/ir/error.h"
#include "core/scheduler/heuristic_params.h"
#include "db/jsonl_tuning_store.h"
#include "db/segment_key.h"
#include "db/transaction.h"

namespace fuserlab::db {
namespace {

bool measured(const Entry& entry) { return entry.measurement && entry.measurement->measured(); }

std::string describe(const Entry& entry) { return measurementSummary(entry.measurement); }

}  // namespace

void checkParams(const Entry& entry) {
  const auto type = scheduler::parseSchedulerType(entry.segment.scheduler);
  FL_CHECK(type.has_value(), entry.summary(), " names scheduler '", entry.segment.scheduler,
           "', which this FuserLab does not have");
  FL_CHECK(entry.paramsSchema == paramsSchemaVersion(*type), entry.summary(),
           " holds params of schema version ", entry.paramsSchema, "; ", entry.segment.scheduler,
           " reads version ", paramsSchemaVersion(*type));
  try {
    scheduler::paramsFromJson(*type, entry.params);
  } catch (const UserError& error) {
    FL_USER_ERROR(entry.summary(), ": its params do not parse: ", error.message());
  }
}

bool betterMeasured(const Entry& incoming, const Entry& existing, std::string* why) {
  auto say = [&](std::string text) {
    if (why != nullptr) *why = std::move(text);
  };
  const bool in = measured(incoming);
  const bool ex = measured(existing);
  if (in != ex) {
    say(in ? "the incoming entry is measured (" + describe(incoming) +
                 ") and the existing one is not"
           : "the existing entry is measured (" + describe(existing) +
                 ") and the incoming one is not");
    return in;
  }
  if (!in) {
    say("neither is measured; the existing one stays");
    return false;
  }
  const double a = *incoming.measurement->medianNs;
  const double b = *existing.measurement->medianNs;
  if (a != b) {
    say(std::string(a < b ? "the incoming" : "the existing") + " entry is faster (" +
        describe(a < b ? incoming : existing) + " against " +
        describe(a < b ? existing : incoming) + ")");
    return a < b;
  }
  const int64_t n = incoming.measurement->samples;
  const int64_t m = existing.measurement->samples;
  if (n != m) {
    say("both have the same median; the " + std::string(n > m ? "incoming" : "existing") +
        " entry has more samples (" + std::to_string(std::max(n, m)) + " against " +
        std::to_string(std::min(n, m)) + ")");
    return n > m;
  }
  // Measured alike: the smaller params hash stays, so that merging shard
  // files gives the same entries in any order.
  if (incoming.paramsHash != existing.paramsHash) {
    const bool in = incoming.paramsHash < existing.paramsHash;
    say("both are measured alike (" + describe(existing) + "); the " +
        std::string(in ? "incoming" : "existing") +
        " entry's params hash is the smaller (the rule that makes merging "
        "independent of the order)");
    return in;
  }
  say("both are measured alike (" + describe(existing) + "); the existing one stays");
  return false;
}

MergeOutcome mergeEntry(HeuristicsDatabase& database, const Entry& incoming) {
  checkParams(incoming);
  MergeOutcome outcome;
  const std::optional<Entry> existing = database.entryWithKey(incoming);
  if (!existing) {
    outcome.action = MergeOutcome::Action::Added;
    outcome.id = database.store(incoming);
    Entry stored = incoming;
    stored.id = outcome.id;
    outcome.message = "added " + stored.summary();
    return outcome;
  }
  outcome.id = existing->id;
  std::string why;
  if (existing->params == incoming.params) {
    outcome.action = MergeOutcome::Action::Same;
    outcome.message = "entry " + std::to_string(existing->id) + " already holds these params; kept";
  } else if (betterMeasured(incoming, *existing, &why)) {
    outcome.action = MergeOutcome::Action::Replaced;
    database.store(incoming);
    outcome.message = "entry " + std::to_string(existing->id) +
                      ": took the incoming params over the existing ones: " + why;
    return outcome;
  } else {
    outcome.action = MergeOutcome::Action::Kept;
    outcome.message = "entry " + std::to_string(existing->id) +
                      ": kept the existing params over the incoming ones: " + why;
  }
  // The entry stays; the incoming measurements are kept all the same, and
  // so is the incoming portable mark (an entry is marked when either was).
  if (incoming.portable && !existing->portable) {
    database.setPortable(existing->id, true);
    outcome.message += "; marked portable as the incoming entry was";
  }
  if (incoming.measurement) {
    database.storeMeasurement(incoming.segment, incoming.device, *incoming.measurement);
  }
  for (const auto& variant : incoming.variants) {
    database.storeMeasurement(incoming.segment, incoming.device, variant);
  }
  return outcome;
}

std::vector<MergeOutcome> importLines(HeuristicsDatabase& database, std::istream& in,
                                      const std::string& name) {
  std::vector<MergeOutcome> outcomes;
  Transaction transaction(database.connection());
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      const report::Json json = report::Json::parse(line);
      if (isMeasurementLine(json)) {
        // A tuning file's measured variant (db/jsonl_tuning_store.h).
        const MeasurementLine m = parseMeasurementLine(json);
        database.storeMeasurement(m.segment, m.device, m.measurement);
        continue;
      }
      outcomes.push_back(mergeEntry(database, Entry::fromJson(json)));
    } catch (const UserError& error) {
      FL_USER_ERROR(name, " line ", number, ": ", error.message(), "; nothing was imported");
    }
  }
  transaction.commit();
  return outcomes;
}

std::vector<MergeOutcome> mergeDatabase(HeuristicsDatabase& database,
                                        const std::string& otherPath) {
  HeuristicsDatabase other(otherPath, HeuristicsDatabase::Access::Read);
  const std::vector<Entry> incoming = other.entries(true);
  // Merging what could be read would drop the rest without a word.
  FL_CHECK(other.readNotes().empty(), otherPath, " has ", other.readNotes().size(),
           " unreadable rows (", other.readNotes().front(),
           "); nothing was merged. Export what can be read (fuserlab-cli db export "
           "--db ",
           otherPath, " --output saved.jsonl) and import that");
  std::vector<MergeOutcome> outcomes;
  Transaction transaction(database.connection());
  for (const Entry& entry : incoming) {
    try {
      outcomes.push_back(mergeEntry(database, entry));
    } catch (const UserError& error) {
      FL_USER_ERROR(otherPath, ": ", error.message(), "; nothing was merged");
    }
  }
  transaction.commit();
  return outcomes;
}

size_t exportLines(HeuristicsDatabase& database, std::ostream& out) {
  const std::vector<Entry> entries = database.entries(true);
  for (const Entry& entry : entries) {
    out << entry.toJson().dump(-1) << "\n";
  }
  return entries.size();
}

}  // namespace fuserlab::db
