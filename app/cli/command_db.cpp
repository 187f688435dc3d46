// fuserlab-cli db list|show|export|import|merge|verify|prune|put --db FILE
// The heuristics database: tuned or hand-pinned params per segment, size and
// device, which inspect (and the runtime) take with --db FILE or
// FUSERLAB_HEURISTICS_DB.
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/compiler/fusion_compiler.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/ir/printer.h"
#include "core/scheduler/heuristic_params.h"
#include "db/compiler_version.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/maintenance.h"
#include "db/merge.h"
#include "db/segment_key.h"
#include "db/transaction.h"

namespace fuserlab::cli {
namespace {

// The largest files db reads: an import of JSON lines (an export of some
// hundred thousand entries) and a params file (one params object).
constexpr uint64_t kMaxImportBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxParamsFileBytes = uint64_t{1} << 20;

using report::Json;

constexpr const char* kDbUsage = R"(usage: fuserlab-cli db SUBCOMMAND --db FILE [ARGS]

  list                 one line per entry  [--json PATH|-]
  show ID              an entry with its key, params, measurements and IR
                       [--json PATH|-]
  export               every entry as a JSON line  [--output PATH] (default stdout)
  import FILE          entries from JSON lines (FILE or - for stdin); an entry
                       whose key is already there: the better-measured stays.
                       A tune --jsonl file's measurement lines are kept too
  merge OTHER...       every entry of other databases, by the same rule (the
                       shards of a tuning campaign: db merge OUT IN...)
  mark-portable        mark entries usable on another GPU of the same
                       architecture (other SMs, memory or clock): the
                       lookup's database_same_arch fallback takes only marked
                       entries  --entry ID | --all  [--clear: unmark]
  verify               integrity_check, foreign keys, and every stored params
                       set parsed again (exit 1 if anything is wrong)
  prune                drop entries no FuserLab from this one on can use, then
                       rows nothing refers to  [--dry-run]
  put FUSION --segment N --params JSON|@FILE
                       pin params for segment N of the fusion at these sizes
                       on this device (without --device: this machine's
                       GPU cuda:0, as bench and run look it up, or the
                       default where it has none)  [--inputs SPEC] [--fusion NAME]
                       [--device NAME] [--set NAME=VALUE] [--disable-pass NAME]
                       [--max-compiler-version V] [--force: store params the
                       scheduler refuses at these sizes]
)";

std::string databasePath(const CommandLine& cl) {
  auto path = cl.value("db");
  FL_CHECK(path && !path->empty(), "db commands need --db FILE (the heuristics database)");
  return *path;
}

void writeJson(const Json& json, const std::string& path) { writeOutput(path, json.dump() + "\n"); }

// Rows a read skipped (a damaged page, a stored value that does not parse).
void printReadNotes(const db::HeuristicsDatabase& database) {
  for (const auto& note : database.readNotes()) std::cerr << "note: " << note << "\n";
}

std::string validRange(const db::Entry& entry) {
  return entry.minCompilerVersion + ".." + entry.maxCompilerVersion.value_or("");
}

int listCommand(const CommandLine& cl) {
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Read);
  const auto entries = database.entries();
  printReadNotes(database);
  if (auto path = cl.value("json")) {
    Json list = Json::array();
    for (const auto& entry : entries) list.push(entry.toJson());
    writeJson(list, *path);
    if (*path == "-") return 0;
  }
  std::printf("%-5s %-17s %-28s %-12s %-7s %-10s %s\n", "id", "scheduler", "sizes", "device",
              "origin", "compiler", "measurement");
  for (const auto& entry : entries) {
    std::printf(
        "%-5lld %-17s %-28s %-12s %-7s %-10s %s\n", static_cast<long long>(entry.id),
        entry.segment.scheduler.c_str(), entry.segment.sizes.c_str(), entry.device.key.c_str(),
        entry.origin.c_str(), validRange(entry).c_str(),
        (db::measurementSummary(entry.measurement) + (entry.portable ? "; portable" : "")).c_str());
  }
  std::printf("%zu entries in %s\n", entries.size(), database.path().c_str());
  return 0;
}

int showCommand(const CommandLine& cl) {
  const std::string& idText = cl.requirePositional(0, "ID (an entry id from db list)");
  FL_CHECK(!idText.empty() && idText.find_first_not_of("0123456789") == std::string::npos,
           "entry id '", idText, "' is not a number; db list shows the ids");
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Read);
  const auto entry = database.entry(
      ir::parseInteger(idText, "the entry id", 0, std::numeric_limits<int64_t>::max()));
  FL_CHECK(entry.has_value(), database.path(), " has no entry ", idText, "; db list shows the ids");
  if (auto path = cl.value("json")) {
    writeJson(entry->toJson(), *path);
    if (*path == "-") return 0;
  }
  std::cout << entry->summary() << "\n"
            << "  structure hash  " << entry->segment.structureHash << "\n"
            << "  sizes           " << entry->segment.sizes << " (bucket "
            << entry->segment.sizeBucket << ")\n"
            << "  device          " << entry->device.name << " (" << entry->device.fingerprint
            << ")\n"
            << "  params schema   " << entry->paramsSchema << "\n"
            << "  compiler        " << validRange(*entry) << " (made with "
            << entry->run.compilerVersion << ")\n"
            << "  created         " << entry->createdAt << " by '" << entry->run.command << "'"
            << (entry->run.host ? " on " + *entry->run.host : "") << "\n"
            << "  params          " << entry->params.dump(-1) << "\n"
            << "  measurement     " << db::measurementSummary(entry->measurement)
            << "\n  variants        " << entry->variants.size() << " measured\n";
  for (const auto& variant : entry->variants) {
    std::cout << "    " << db::measurementSummary(variant) << ": " << variant.params.dump(-1)
              << "\n";
  }
  std::cout << "\n" << entry->segment.fusionIr;
  return 0;
}

int exportCommand(const CommandLine& cl) {
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Read);
  const std::string output = cl.value("output").value_or("-");
  std::ostringstream lines;
  const size_t exported = db::exportLines(database, lines);
  printReadNotes(database);
  writeOutput(output, lines.str());
  if (output != "-") {
    std::cerr << "exported " << exported << " entries to " << output << "\n";
  }
  return 0;
}

void printOutcomes(const std::vector<db::MergeOutcome>& outcomes) {
  int added = 0, replaced = 0, kept = 0;
  for (const auto& outcome : outcomes) {
    std::cout << outcome.message << "\n";
    added += outcome.action == db::MergeOutcome::Action::Added;
    replaced += outcome.action == db::MergeOutcome::Action::Replaced;
    kept += outcome.action == db::MergeOutcome::Action::Kept ||
            outcome.action == db::MergeOutcome::Action::Same;
  }
  std::cout << added << " added, " << replaced << " replaced, " << kept << " kept\n";
}

int importCommand(const CommandLine& cl) {
  const std::string& input = cl.requirePositional(0, "FILE (JSON lines from db export, or -)");
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Write);
  if (input == "-") {
    printOutcomes(db::importLines(database, std::cin, "stdin"));
    return 0;
  }
  // A regular file of a bounded size: a pipe goes through stdin ("-").
  std::istringstream file(ir::readUserFile(input, "import file", kMaxImportBytes));
  printOutcomes(db::importLines(database, file, input));
  return 0;
}

// db merge --db OUT IN... or db merge OUT IN... (the shards of a campaign):
// every input in turn, each in one transaction.
int mergeCommand(const CommandLine& cl) {
  std::vector<std::string> inputs = cl.positional();
  std::string output;
  if (cl.value("db")) {
    output = databasePath(cl);
  } else {
    FL_CHECK(inputs.size() >= 2,
             "db merge needs the database to merge into and at least one "
             "to merge in: db merge --db OUT IN... or db merge OUT IN...");
    output = inputs.front();
    inputs.erase(inputs.begin());
  }
  FL_CHECK(!inputs.empty(), "missing argument OTHER (a heuristics database to merge in)");
  db::HeuristicsDatabase database(output, db::HeuristicsDatabase::Access::Write);
  for (const std::string& input : inputs) {
    if (inputs.size() > 1) std::cout << "from " << input << ":\n";
    printOutcomes(db::mergeDatabase(database, input));
  }
  return 0;
}

// db mark-portable --db F (--entry ID | --all) [--clear]
int markPortableCommand(const CommandLine& cl) {
  const std::string path = databasePath(cl);
  FL_CHECK(cl.positional().empty(), "db mark-portable takes --entry ID or --all, found '",
           cl.positional().front(), "'");
  const auto entryText = cl.value("entry");
  const bool all = cl.flag("all");
  FL_CHECK(entryText.has_value() != all,
           "db mark-portable needs --entry ID (one entry) or --all (every entry), not ",
           all ? "both" : "neither");
  const bool portable = !cl.flag("clear");
  std::optional<int64_t> id;
  if (entryText) {
    id = ir::parseInteger(*entryText, "--entry", 1, std::numeric_limits<int64_t>::max());
  }
  db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Write);
  db::Transaction transaction(database.connection());
  if (id) FL_CHECK(database.entry(*id, false).has_value(), path, " has no entry ", *id);
  const int64_t changed = database.setPortable(id, portable);
  transaction.commit();
  const char* what = portable ? "marked portable" : "unmarked";
  if (id) {
    std::cout << "entry " << *id
              << (changed ? std::string(" ") + what : " was already " + std::string(what)) << "\n";
  } else {
    std::cout << changed << " entr" << (changed == 1 ? "y" : "ies") << " " << what << "\n";
  }
  return 0;
}

int verifyCommand(const CommandLine& cl) {
  // Verify opens a damaged file all the same: it is there to report damage.
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Verify);
  const db::VerifyResult result = db::verifyDatabase(database);
  for (const auto& fact : result.facts) std::cout << fact << "\n";
  for (const auto& problem : result.problems) std::cout << "problem: " << problem << "\n";
  std::cout << database.path() << ": "
            << (result.ok() ? "ok" : std::to_string(result.problems.size()) + " problems") << "\n";
  return result.ok() ? 0 : 1;
}

int pruneCommand(const CommandLine& cl) {
  db::HeuristicsDatabase database(databasePath(cl), db::HeuristicsDatabase::Access::Write);
  const bool dryRun = cl.flag("dry-run");
  const db::PruneResult result = db::pruneDatabase(database, dryRun);
  const char* verb = dryRun ? "would remove" : "removed";
  for (const auto& line : result.removed) std::cout << verb << " " << line << "\n";
  std::cout << verb << " " << result.removed.size() << " entries and " << result.unreferencedRows
            << " unreferenced rows\n";
  return 0;
}

// --- put ---------------------------------------------------------------

// Records the key of every segment the compiler asks about; answers nothing.
class KeyRecorder : public scheduler::HeuristicProvider {
 public:
  struct Asked {
    std::string fusionIr;
    scheduler::SchedulerType type;
    db::SegmentKey key;
  };
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    asked_.push_back({ir::printFusionIr(segment), type, db::segmentKey(segment, type, info)});
    return std::nullopt;
  }
  const std::vector<Asked>& asked() const { return asked_; }

 private:
  mutable std::vector<Asked> asked_;
};

// Answers `params` for the segment of `key` only, as the database would.
class PinnedParams : public scheduler::HeuristicProvider {
 public:
  PinnedParams(db::SegmentKey key, scheduler::HeuristicParams params)
      : key_(std::move(key)), params_(std::move(params)) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    if (!(db::segmentKey(segment, type, info) == key_)) return std::nullopt;
    return scheduler::ProvidedParams{params_, std::string(db::kSourceExact), 0, {}, {}};
  }

 private:
  db::SegmentKey key_;
  scheduler::HeuristicParams params_;
};

Json readParamsOption(const std::string& value) {
  std::string text = value;
  if (!value.empty() && value[0] == '@') {
    text = ir::readUserFile(value.substr(1), "params file", kMaxParamsFileBytes);
  }
  try {
    return Json::parse(text);
  } catch (const UserError& error) {
    FL_USER_ERROR("--params is not valid JSON: ", error.message());
  }
}

int putCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  options.insert({"db", "segment", "params", "max-compiler-version"});
  CommandLine cl(args, options, {"force"});
  const std::string path = databasePath(cl);
  LoadedScript loaded = loadScript(cl);
  FL_CHECK(loaded.inputs.has_value(), loaded.script.fileName,
           " has no inputs block; pass --inputs SPEC: entries are keyed by size");
  const auto segmentText = cl.value("segment");
  FL_CHECK(segmentText.has_value(), "db put needs --segment N (inspect lists the segments)");
  FL_CHECK(
      !segmentText->empty() && segmentText->find_first_not_of("0123456789") == std::string::npos,
      "--segment ", *segmentText, " is not a segment number");
  const auto paramsText = cl.value("params");
  FL_CHECK(paramsText.has_value(),
           "db put needs --params JSON (or @FILE); inspect --dump scheduler_params "
           "shows the heuristic's params to start from");
  const compiler::CompileOptions compileOptions = compileOptionsFrom(cl);
  // Without --device the entry is for this machine's GPU where it has one:
  // bench, run and the runtime look entries up under the GPU they run on, so
  // an entry keyed to the built-in default would never be found there.
  const scheduler::DeviceSpec device = !cl.value("device") && runtime::cudaDeviceCount() > 0
                                           ? *runtime::resolveDevice("cuda:0")
                                           : deviceFrom(cl);
  const runtime::Arguments inputs = frontend::makeInputShapes(*loaded.inputs);

  KeyRecorder recorder;
  auto compiled = runtime::compileFusion(*loaded.fusion, compileOptions, device, inputs, &recorder);
  const auto& segments = compiled.report.segments;
  const size_t index = static_cast<size_t>(
      ir::parseInteger(*segmentText, "--segment", 0, std::numeric_limits<int64_t>::max()));
  FL_CHECK(index < segments.size(), loaded.fusionName, " has ", segments.size(),
           " segments at these sizes (0 to ", segments.size() - 1, "); --segment ", index,
           " is not one of them");
  const report::SegmentReport& chosen = segments[index];
  const auto type = *scheduler::parseSchedulerType(chosen.scheduler);
  FL_CHECK(db::paramsSchemaVersion(type) != 0, "segment ", index, " is scheduled by ",
           chosen.scheduler, ", which takes no params: there is nothing to pin");
  // The k-th segment with this IR is the k-th lookup with it.
  size_t sameBefore = 0;
  for (size_t i = 0; i < index; ++i) {
    sameBefore +=
        segments[i].fusionIr == chosen.fusionIr && segments[i].scheduler == chosen.scheduler;
  }
  const KeyRecorder::Asked* asked = nullptr;
  for (const auto& candidate : recorder.asked()) {
    if (candidate.fusionIr == chosen.fusionIr && candidate.type == type && sameBefore-- == 0) {
      asked = &candidate;
      break;
    }
  }
  FL_ASSERT(asked != nullptr, "segment ", index, " was scheduled without asking the provider");

  const scheduler::HeuristicParams params =
      scheduler::paramsFromJson(type, readParamsOption(*paramsText));
  // Check the params the way the runtime will: compile again with them.
  PinnedParams pinned(asked->key, params);
  auto check =
      runtime::compileFusion(*loaded.fusion, compileOptions, device, inputs, &pinned, false);
  const std::string refusal = index < check.report.segments.size()
                                  ? check.report.segments[index].paramsNote
                                  : std::string();
  FL_CHECK(refusal.empty() || cl.flag("force"), "segment ", index, " (", chosen.scheduler,
           "): ", refusal,
           ". Nothing was stored; pass --force to store them anyway (the runtime "
           "will ignore them at these sizes)");

  db::Entry entry;
  entry.segment = {asked->key.structureHash, asked->key.scheduler, asked->key.sizes,
                   asked->key.sizeBucket, chosen.fusionIr};
  entry.device = db::DeviceRecord::fromSpec(device);
  entry.device.fingerprint = asked->key.deviceFingerprint;
  entry.paramsSchema = asked->key.paramsSchema;
  entry.minCompilerVersion = std::string(db::compilerVersion());
  entry.maxCompilerVersion = cl.value("max-compiler-version");
  if (entry.maxCompilerVersion) {
    FL_CHECK(db::compareVersions(*entry.maxCompilerVersion, entry.minCompilerVersion) > 0,
             "--max-compiler-version ", *entry.maxCompilerVersion,
             " must be later than this FuserLab's ", entry.minCompilerVersion);
  }
  entry.params = scheduler::paramsToJson(params);
  entry.paramsHash = db::hex64(scheduler::paramsHash(params));
  entry.origin = "manual";
  std::string command = "fuserlab-cli db put";
  for (const auto& arg : args) command += " " + arg;
  entry.run = db::RunRecord::now(command);
  entry.createdAt = entry.run.createdAt;

  db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Write);
  db::Transaction transaction(database.connection());
  const auto previous = database.entryWithKey(entry);
  entry.id = database.store(entry);
  transaction.commit();
  std::cout << (previous ? "replaced the params of " : "stored ") << entry.summary()
            << "\n  key: structure " << entry.segment.structureHash << ", sizes "
            << entry.segment.sizes << " (bucket " << entry.segment.sizeBucket << "), device "
            << entry.device.fingerprint << ", params schema " << entry.paramsSchema << ", compiler "
            << validRange(entry) << "\n";
  if (!refusal.empty()) {
    std::cout << "  warning: " << refusal << " (stored because of --force)\n";
  }
  return 0;
}

}  // namespace

int dbCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kDbUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string& sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "put") return putCommand(rest);
  if (sub == "list") return listCommand(CommandLine(rest, {"db", "json"}, {}));
  if (sub == "show") return showCommand(CommandLine(rest, {"db", "json"}, {}));
  if (sub == "export") return exportCommand(CommandLine(rest, {"db", "output"}, {}));
  if (sub == "import") return importCommand(CommandLine(rest, {"db"}, {}));
  if (sub == "merge") return mergeCommand(CommandLine(rest, {"db"}, {}));
  if (sub == "mark-portable") {
    return markPortableCommand(CommandLine(rest, {"db", "entry"}, {"all", "clear"}));
  }
  if (sub == "verify") return verifyCommand(CommandLine(rest, {"db"}, {}));
  if (sub == "prune") return pruneCommand(CommandLine(rest, {"db"}, {"dry-run"}));
  FL_USER_ERROR(
      "unknown db subcommand '", sub,
      "'; expected list, show, export, import, merge, mark-portable, verify, prune or put");
}

}  // namespace fuserlab::cli
