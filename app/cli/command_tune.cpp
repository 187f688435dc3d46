// fuserlab-cli tune FILE --db DB [--inputs SPEC | --sizes SPEC;SPEC...]
//   [--segment N] [--strategy exhaustive|random|coordinate] [--budget N]
//   [--seed N] [--margin PERCENT] [--dry-run] [--json PATH]
//   [--device NAME|cuda:N | --devices 0,1|all] [--fusion NAME] [--set K=V]
//   [--disable-pass P] [--time-limit SECONDS] [--shard K/N] [--no-early-stop]
//   [--portable] [--check default|reference]
// fuserlab-cli tune --plan PLAN|--from-record FILE --db DB [--shard K/N] ...
// (--jsonl FILE in place of --db DB: the results as JSON lines,
// db/jsonl_tuning_store.h, for `db import` later)
//
// Tunes every tunable segment (or --segment N) at each size set: the search
// space, the strategy, parallel NVRTC builds, measurements in a worker
// process (`tune-worker`, hidden) per GPU (--devices: one per GPU, variants
// built once on the host and each timed on one GPU), every variant stored in
// the database and the winner stored as the segment's entry (tuner/tuner.h).
// --plan (or --from-record, a record file of `run --record`) tunes a campaign
// of fusions x sizes (tuner/plan.h), the shard --shard K/N or the
// environment (Slurm arrays, torchrun, MPI) names (tuner/shard.h), skipping
// segments the database already has a tuned entry for. --time-limit stops
// measuring after that many seconds; the winner of what was measured is
// stored. A segment stops early once its best variant is within the margin
// of the bandwidth floor (tuner/bandwidth_floor.h; --no-early-stop: never).
// Each variant's outputs are checked against the default variant's on the
// GPU, the default's against the CPU reference (tuner/worker.h; --check
// reference: each against the CPU reference); the JSON says which check
// each variant got. --portable marks the stored entries
// usable on other GPUs of the same architecture (db::Entry::portable).
// --dry-run lists the space without a GPU (device: --device,
// default the h100 table entry). On a terminal a progress bar, otherwise one JSON line per variant
// on stdout. Ctrl-C stops after the variants in flight; the same command resumes, skipping measured
// variants.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/kernel_cache.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "db/heuristics_database.h"
#include "db/jsonl_tuning_store.h"
#include "db/segment_key.h"
#include "db/sqlite_tuning_store.h"
#include "tuner/plan.h"
#include "tuner/runner_pool.h"
#include "tuner/shard.h"
#include "tuner/tuner.h"
#include "tuner/worker.h"
#include "tuner/worker_command.h"

namespace fuserlab::cli {
namespace {

using report::Json;

std::atomic<bool> gCancel{false};

extern "C" void onInterrupt(int) { gCancel.store(true); }

const std::set<std::string> kTuneValueOptions = {
    "db",   "jsonl", "sizes",       "segment", "strategy", "budget",     "seed", "margin",
    "json", "plan",  "from-record", "shard",   "devices",  "time-limit", "check"};

// A non-negative option value up to `maximum` (an int where one is kept).
int64_t parseInt(const std::string& option, const std::string& text,
                 int64_t maximum = std::numeric_limits<int>::max()) {
  return ir::parseInteger(text, "--" + option, 0, maximum);
}

// The input size sets: --sizes (separated by ';'), else --inputs or the
// script's inputs block.
std::vector<std::vector<frontend::InputSpec>> sizeSets(const CommandLine& cl,
                                                       const LoadedScript& loaded) {
  std::vector<std::vector<frontend::InputSpec>> sets;
  if (auto sizes = cl.value("sizes")) {
    FL_CHECK(!cl.value("inputs"), "give either --inputs or --sizes, not both");
    size_t begin = 0;
    while (begin <= sizes->size()) {
      size_t end = sizes->find(';', begin);
      if (end == std::string::npos) end = sizes->size();
      const std::string spec = sizes->substr(begin, end - begin);
      if (!spec.empty()) {
        sets.push_back(frontend::parseInputsOption(spec));
        FL_CHECK(sets.back().size() == loaded.fusion->inputs().size(), "--sizes entry '", spec,
                 "' gives ", sets.back().size(), " inputs; ", loaded.fusionName, " has ",
                 loaded.fusion->inputs().size());
      }
      begin = end + 1;
    }
  } else if (loaded.inputs) {
    sets.push_back(*loaded.inputs);
  }
  FL_CHECK(!sets.empty(), "tune needs input sizes: ", loaded.script.fileName,
           " has no inputs block; pass --inputs SPEC or --sizes SPEC;SPEC");
  return sets;
}

std::string specText(const std::vector<frontend::InputSpec>& specs) {
  std::string text;
  for (const auto& s : specs) {
    if (!text.empty()) text += ",";
    if (s.isScalar) {
      text += "s";
      continue;
    }
    // The tensor the fusion sees: the .as_strided view's sizes if any.
    const std::vector<int64_t>& sizes = s.stridedSizes ? *s.stridedSizes : s.sizes;
    for (size_t i = 0; i < sizes.size(); ++i) {
      text += (i ? "x" : "") + std::to_string(sizes[i]);
    }
    text += ":" + std::string(ir::shortName(s.dtype));
  }
  return text;
}

// Progress: a bar on a terminal, JSON lines otherwise.
class ConsoleListener : public tuner::TuneListener {
 public:
  ConsoleListener(int segment, bool terminal) : segment_(segment), terminal_(terminal) {}
  void onProgress(const tuner::ProgressEvent& e) override {
    using Kind = tuner::ProgressEvent::Kind;
    if (!terminal_) {
      if (e.kind != Kind::Measured) return;
      Json line = Json::object();
      line.set("segment", int64_t(segment_));
      line.set("variant", int64_t(e.variant->id));
      line.set("done", int64_t(e.done));
      line.set("planned", int64_t(e.planned));
      line.set("resumed", e.outcome->resumed);
      line.set("label", e.variant->label);
      if (!e.outcome->check.empty()) line.set("check", e.outcome->check);
      if (e.outcome->ok()) {
        line.set("median_ns", e.outcome->stats->medianNs);
        line.set("p20_ns", e.outcome->stats->p20Ns);
        line.set("p80_ns", e.outcome->stats->p80Ns);
        line.set("samples", e.outcome->stats->samples);
      } else {
        line.set("error", e.outcome->error);
      }
      std::cout << line.dump(-1) << "\n" << std::flush;
      return;
    }
    const int width = 30;
    const int filled = e.planned ? static_cast<int>(width * double(e.done) / double(e.planned)) : 0;
    std::fprintf(stderr, "\r  segment %d [%s%s] %zu/%zu best %.1f us%s", segment_,
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), e.done,
                 e.planned, e.bestMedianNs / 1000, e.kind == Kind::Finished ? "\n" : "");
  }

 private:
  int segment_;
  bool terminal_;
};

void printSpace(const tuner::SearchSpace& space, const tuner::TuningTarget& target,
                const std::vector<size_t>& planned, std::ostream& out) {
  out << "segment " << target.segment << " (" << scheduler::toString(target.scheduler)
      << ", kernel " << target.kernelName << "), sizes " << target.key.sizes << ", structure "
      << target.key.structureHash << "\n";
  out << "  default params: " << scheduler::paramsToJson(target.defaultParams).dump(-1)
      << "\n  knobs:\n";
  for (const tuner::Knob& knob : space.knobs) {
    out << "    " << knob.name << ":";
    for (int64_t v : space.acceptedValues(knob.name)) out << " " << v;
    out << "  (of";
    for (int64_t v : knob.values) out << " " << v;
    out << ")\n";
  }
  out << "  " << space.variants.size() << " variants accepted of " << space.gridSize()
      << " grid points (" << space.refusedPoints << " refused by the scheduler)\n";
  for (const auto& reason : space.refusalSamples) out << "    refused: " << reason << "\n";
  out << "  the strategy would measure " << planned.size() << " variants:\n";
  for (size_t id : planned) {
    const tuner::Variant& v = space.variants[id];
    out << "    " << id << (v.isDefault ? " (default)" : "") << ": " << v.label << "\n";
  }
}

// What to tune: --plan or --from-record (a campaign), else FILE at each of
// its size sets.
std::vector<tuner::PlanItem> planFrom(const CommandLine& cl, bool* campaign) {
  const auto planPath = cl.value("plan");
  const auto recordPath = cl.value("from-record");
  *campaign = planPath || recordPath;
  if (*campaign) {
    FL_CHECK(!(planPath && recordPath), "give --plan or --from-record, not both");
    FL_CHECK(cl.positional().empty() && !cl.value("sizes") && !cl.value("inputs") &&
                 !cl.value("fusion") && !cl.value("segment"),
             "a plan names the scripts, definitions and sizes: --plan and --from-record "
             "take no FILE, --sizes, --inputs, --fusion or --segment");
    return tuner::readPlanFile(planPath ? *planPath : *recordPath);
  }
  const LoadedScript loaded = loadScript(cl);
  std::vector<tuner::PlanItem> items;
  for (const auto& specs : sizeSets(cl, loaded)) {
    tuner::PlanItem item;
    item.script = loaded.script.fileName;
    item.fusion = cl.value("fusion");
    // Sizes from the inputs block stay the block (strides, .as_strided views).
    if (cl.value("sizes") || cl.value("inputs")) item.inputs = specText(specs);
    items.push_back(std::move(item));
  }
  return items;
}

LoadedScript loadItem(const tuner::PlanItem& item) {
  std::vector<std::string> args = {item.script};
  if (item.fusion) args.insert(args.end(), {"--fusion", *item.fusion});
  if (item.inputs) args.insert(args.end(), {"--inputs", *item.inputs});
  LoadedScript loaded = loadScript(CommandLine(args, kScriptOptions, {}));
  FL_CHECK(loaded.inputs.has_value(), "tune needs input sizes: ", item.script,
           " has no inputs block; give sizes in the plan (or --inputs/--sizes)");
  return loaded;
}

// The GPUs that measure: --devices, else --device cuda:N. One model only:
// the store keys every result by the target device's fingerprint.
std::vector<int> measuringDevices(const CommandLine& cl) {
  FL_CHECK(runtime::cudaDeviceCount() > 0, "no CUDA device: ", runtime::cudaUnavailableReason(),
           "; tune --dry-run lists the space without one");
  std::vector<int> devices;
  if (auto list = cl.value("devices")) {
    FL_CHECK(!cl.value("device"), "give --device cuda:N or --devices LIST, not both");
    devices = tuner::parseDeviceList(*list, runtime::cudaDeviceCount());
  } else {
    const std::string option = cl.value("device").value_or("cuda:0");
    FL_CHECK(option.rfind("cuda", 0) == 0,
             "tune measures on a GPU of this machine: --device cuda:N (or use --dry-run "
             "to list the space for a table device)");
    devices = {option.size() > 5 ? static_cast<int>(parseInt("device", option.substr(5))) : 0};
  }
  std::string first;
  for (int index : devices) {
    const auto spec = runtime::resolveDevice("cuda:" + std::to_string(index));
    FL_CHECK(spec.has_value(), "cannot read the properties of cuda:", index);
    const std::string fingerprint = db::deviceFingerprint(*spec);
    if (first.empty()) first = fingerprint;
    FL_CHECK(fingerprint == first, "--devices mixes GPU models: cuda:", devices.front(), " is ",
             first, " and cuda:", index, " is ", fingerprint,
             "; results are keyed by one device, so tune each model in its own run");
  }
  return devices;
}

// One worker per GPU: this executable in its hidden mode, same script and
// sizes. Sizes from the script's inputs block go to the worker as that block
// (strides and .as_strided views included); plan or --inputs sizes as text.
std::unique_ptr<tuner::VariantRunner> makeRunner(const compiler::CompileOptions& options,
                                                 const tuner::PlanItem& item,
                                                 const LoadedScript& loaded, int segment,
                                                 const std::vector<int>& devices,
                                                 bool compareWithDefault) {
  std::string self = "/proc/self/exe";
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n > 0) self = std::string(path, static_cast<size_t>(n));
  tuner::WorkerCommand command;
  command.script = loaded.script.fileName;
  command.fusion = item.fusion.value_or("");
  command.inputs = item.inputs.value_or("");
  command.segment = segment;
  command.options = options;
  command.compareWithDefault = compareWithDefault;
  std::vector<std::unique_ptr<tuner::VariantRunner>> runners;
  for (int device : devices) {
    command.device = device;
    std::vector<std::string> argv = {self, "tune-worker"};
    for (std::string& arg : tuner::workerArguments(command)) argv.push_back(std::move(arg));
    runners.push_back(std::make_unique<tuner::WorkerRunner>(std::move(argv)));
  }
  if (runners.size() == 1) return std::move(runners.front());
  return std::make_unique<tuner::RunnerPool>(std::move(runners));
}

int workersStarted(tuner::VariantRunner& runner) {
  if (auto* one = dynamic_cast<tuner::WorkerRunner*>(&runner)) return one->workersStarted();
  auto& pool = dynamic_cast<tuner::RunnerPool&>(runner);
  int started = 0;
  for (size_t i = 0; i < pool.size(); ++i) started += workersStarted(pool.runner(i));
  return started;
}

// Whether `store` holds a tuned entry for `target`'s key (a campaign skips
// it: resuming a campaign re-runs nothing finished).
std::optional<int64_t> tunedEntry(db::TuningStore& store, const tuner::TuningTarget& target) {
  db::Entry like;
  like.segment = target.segmentRecord();
  like.device = target.deviceRecord();
  like.paramsSchema = target.key.paramsSchema;
  return store.tunedEntry(like);
}

// How the early stop went: on or off, the floor, whether it stopped.
Json earlyStopJson(const tuner::TuneOptions& tune, const tuner::TuneResult& result) {
  Json json = Json::object();
  json.set("enabled", tune.earlyStop);
  json.set("bytes_moved", result.bytesMoved);
  json.set("bandwidth_factor", tune.floorBandwidthFactor);
  if (result.floor) {
    json.set("copy_bytes_per_s", result.floor->copyBytesPerSecond);
    json.set("floor_ns", result.floor->floorNs);
  }
  json.set("stopped", result.earlyStop.has_value());
  if (result.earlyStop) {
    json.set("best_variant", int64_t(result.earlyStop->variant));
    json.set("best_ns", result.earlyStop->bestNs);
    json.set("above_floor_percent", result.earlyStop->abovePercent);
    json.set("message", result.earlyStop->message);
  }
  if (!result.earlyStopNote.empty()) json.set("note", result.earlyStopNote);
  return json;
}

// The variants of each check ("cpu_reference": [0], "default_gpu_outputs":
// [3, 7, ...]), in evaluation order; resumed ones are not checked again.
Json checksJson(const tuner::TuneResult& result) {
  std::map<std::string, std::vector<int64_t>> byCheck;
  for (const tuner::VariantOutcome& o : result.outcomes) {
    if (!o.check.empty()) byCheck[o.check].push_back(int64_t(o.variant));
  }
  Json json = Json::object();
  for (const auto& [check, variants] : byCheck) json.set(check, Json::arrayOf(variants));
  return json;
}

}  // namespace

int tuneCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert(kTuneValueOptions.begin(), kTuneValueOptions.end());
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  CommandLine cl(args, options, {"dry-run", "no-early-stop", "portable"});
  const bool dryRun = cl.flag("dry-run");
  const auto dbPath = cl.value("db");
  const auto jsonlPath = cl.value("jsonl");
  FL_CHECK(!(dbPath && jsonlPath), "tune takes --db FILE or --jsonl FILE, not both");
  FL_CHECK(dbPath || jsonlPath || dryRun,
           "tune needs --db FILE (the database the results go to) or --jsonl FILE (the "
           "results as JSON lines, for db import later)");
  const auto start = std::chrono::steady_clock::now();
  bool campaign = false;
  const std::vector<tuner::PlanItem> plan = planFrom(cl, &campaign);
  // A campaign takes its shard from the environment of a job array, torchrun
  // or mpirun unless --shard names it.
  tuner::Shard shard;
  if (auto text = cl.value("shard")) {
    shard = tuner::parseShard(*text);
  } else if (campaign) {
    shard = tuner::shardFromEnvironment([](const char* name) { return std::getenv(name); });
  }
  const std::vector<size_t> taken = tuner::shardItems(plan.size(), shard);
  if (campaign || shard.count > 1) {
    std::cerr << "plan: " << plan.size() << " item(s); shard " << shard.text() << " (from "
              << shard.origin << ") takes " << taken.size() << "\n";
  }
  const compiler::CompileOptions compileOptions = compileOptionsFrom(cl);

  tuner::TuneOptions tune;
  tune.strategy.kind = tuner::parseStrategy(cl.value("strategy").value_or("exhaustive"));
  if (auto b = cl.value("budget")) tune.strategy.budget = parseInt("budget", *b);
  if (auto s = cl.value("seed")) tune.strategy.seed = ir::parseUnsigned(*s, "--seed");
  if (auto m = cl.value("margin")) tune.margin = double(parseInt("margin", *m)) / 100;
  if (auto t = cl.value("time-limit")) {
    tune.deadline = start + std::chrono::seconds(parseInt("time-limit", *t));
  }
  tune.earlyStop = !cl.flag("no-early-stop");
  const bool compareWithDefault = tuner::parseCheck(cl.value("check").value_or("default"));
  tune.portable = cl.flag("portable");
  for (const auto& a : args) tune.command += " " + a;

  // The device: a table entry for a dry run, GPUs of this machine otherwise.
  std::vector<int> devices;
  if (!dryRun) devices = measuringDevices(cl);
  const std::string deviceOption =
      dryRun ? cl.value("device").value_or("h100") : "cuda:" + std::to_string(devices.front());
  const auto device = runtime::resolveDevice(deviceOption);
  FL_CHECK(device.has_value(), "unknown --device '", deviceOption, "'");
  // A pool's batches are split between the GPUs: at least two variants each.
  if (devices.size() > 1) {
    tune.strategy.batchSize = std::max<size_t>(tune.strategy.batchSize, 2 * devices.size());
  }

  // Where the measurements and winners go (db/tuning_store.h).
  std::optional<db::HeuristicsDatabase> database;
  std::unique_ptr<db::TuningStore> store;
  if (!dryRun && dbPath) {
    database.emplace(*dbPath, db::HeuristicsDatabase::Access::Write);
    store = std::make_unique<db::SqliteTuningStore>(*database);
  } else if (!dryRun) {
    store = std::make_unique<db::JsonLinesTuningStore>(*jsonlPath);
  }
  const bool terminal = ::isatty(STDOUT_FILENO) != 0;
  Json report = Json::array();
  gCancel.store(false);
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigaction(SIGINT, &action, nullptr);
  auto pastDeadline = [&] {
    return tune.deadline && std::chrono::steady_clock::now() >= *tune.deadline;
  };

  tuner::Builder builder(runtime::KernelCache::global());
  int failures = 0;
  bool timedOut = false;
  for (size_t index : taken) {
    if (gCancel.load() || timedOut) break;
    const tuner::PlanItem& planItem = plan[index];
    std::optional<LoadedScript> loadedItem;
    std::optional<runtime::CompiledFusion> compiled;
    runtime::Arguments shapes;
    try {
      loadedItem = loadItem(planItem);
      shapes = frontend::makeInputShapes(*loadedItem->inputs);
      compiled = runtime::compileFusion(*loadedItem->fusion, compileOptions, *device, shapes,
                                        nullptr, false);
    } catch (const UserError& error) {
      // One bad item of a campaign (a script that moved, sizes its
      // constants refuse) does not stop the others.
      if (!campaign) throw;
      std::cerr << "plan item " << index << " (" << planItem.identity() << "): " << error.message()
                << "; skipped\n";
      Json item = planItem.toJson();
      item.set("error", error.message());
      report.push(std::move(item));
      ++failures;
      continue;
    }
    const LoadedScript& loaded = *loadedItem;
    const std::string sizes = specText(*loaded.inputs);
    std::vector<int> segments = tuner::tunableSegments(*compiled);
    if (auto s = cl.value("segment")) segments = {static_cast<int>(parseInt("segment", *s))};
    if (segments.empty()) {
      std::cout << loaded.fusionName << " at " << sizes << ": no segment has params to tune\n";
    }
    for (int segment : segments) {
      if (gCancel.load()) break;
      if (pastDeadline()) {
        timedOut = true;
        break;
      }
      auto target =
          tuner::makeTuningTarget(*loaded.fusion, compileOptions, *device, shapes, segment);
      // A recorded item tunes the segments that were met untuned only.
      if (!planItem.segmentHashes.empty() &&
          !planItem.segmentHashes.count(target->key.structureHash)) {
        continue;
      }
      Json item = Json::object();
      item.set("script", loaded.script.fileName);
      item.set("fusion", loaded.fusionName);
      item.set("sizes", sizes);
      item.set("segment", int64_t(segment));
      if (dryRun) {
        const tuner::SearchSpace space = tuner::buildSearchSpace(
            target->segmentFusion(), target->scheduler, target->bound.info, target->defaultParams);
        const auto planned = tuner::plannedVariants(space, tune.strategy);
        printSpace(space, *target, planned, std::cout);
        item.set("space", space.toJson());
        item.set("planned", Json::arrayOf(std::vector<int64_t>(planned.begin(), planned.end())));
        report.push(std::move(item));
        continue;
      }
      std::ostream& out = terminal ? std::cout : std::cerr;
      if (campaign) {
        if (auto entry = tunedEntry(*store, *target)) {
          out << loaded.fusionName << " segment " << segment << " at " << sizes
              << ": already tuned (entry " << *entry << "); skipped\n";
          item.set("skipped", true);
          item.set("entry", *entry);
          report.push(std::move(item));
          continue;
        }
      }
      auto runner =
          makeRunner(compileOptions, planItem, loaded, segment, devices, compareWithDefault);
      ConsoleListener listener(segment, terminal);
      const tuner::TuneResult result =
          tuner::tuneSegment(*target, tune, *store, *runner, &builder, &listener, &gCancel);
      timedOut = timedOut || result.timedOut;
      out << "segment " << segment << " (" << scheduler::toString(target->scheduler) << ") at "
          << sizes << ": " << result.measured << " measured, " << result.resumed << " resumed, of "
          << result.space.variants.size() << " variants in " << result.seconds << " s ("
          << (result.seconds > 0 ? 60.0 * double(result.measured) / result.seconds : 0)
          << " per minute), " << workersStarted(*runner) << " worker(s) on " << devices.size()
          << " GPU(s)" << (result.timedOut ? "; time limit reached" : "") << "\n";
      item.set("variants", int64_t(result.space.variants.size()));
      item.set("measured", result.measured);
      item.set("resumed", result.resumed);
      item.set("seconds", result.seconds);
      item.set("workers", int64_t(workersStarted(*runner)));
      item.set("devices", Json::arrayOf(std::vector<int64_t>(devices.begin(), devices.end())));
      if (auto* pool = dynamic_cast<tuner::RunnerPool*>(runner.get())) {
        item.set("measured_per_device", Json::arrayOf(pool->measuredPerRunner()));
      }
      if (result.earlyStop) out << "  " << result.earlyStop->message << "\n";
      item.set("cancelled", result.strategy.cancelled && !result.earlyStop);
      item.set("timed_out", result.timedOut);
      item.set("early_stop", earlyStopJson(tune, result));
      item.set("checks", checksJson(result));
      int64_t failed = 0;
      for (const auto& o : result.outcomes) failed += o.ok() ? 0 : 1;
      item.set("failed", failed);
      if (result.decision) {
        out << "  " << result.decision->reason << "\n  stored as entry " << result.entryId << "\n";
        item.set("chosen", int64_t(result.decision->chosen));
        item.set("speedup", result.decision->speedup);
        item.set("entry", result.entryId);
        for (const auto& o : result.outcomes) {
          if (o.variant == 0 && o.ok()) item.set("default_median_ns", o.stats->medianNs);
          if (o.variant == result.decision->chosen && o.ok()) {
            item.set("chosen_median_ns", o.stats->medianNs);
          }
        }
      } else {
        out << "  nothing stored: " << result.decisionError << "\n";
        item.set("error", result.decisionError);
        ++failures;
      }
      report.push(std::move(item));
    }
  }
  if (auto path = cl.value("json")) writeOutput(*path, report.dump() + "\n");
  if (gCancel.load()) {
    std::cerr << "tune: interrupted; run the same command again to resume\n";
    return 130;
  }
  if (timedOut) {
    std::cerr << "tune: time limit reached; the winners of what was measured are stored; "
                 "run the same command again to go on\n";
  }
  return failures == 0 ? 0 : 1;
}

int tuneWorkerCommand(const std::vector<std::string>& args) {
  const tuner::WorkerCommand command = tuner::parseWorkerArguments(args);
  std::vector<std::string> scriptArgs = {command.script};
  if (!command.fusion.empty()) scriptArgs.insert(scriptArgs.end(), {"--fusion", command.fusion});
  if (!command.inputs.empty()) scriptArgs.insert(scriptArgs.end(), {"--inputs", command.inputs});
  LoadedScript loaded = loadScript(CommandLine(scriptArgs, kScriptOptions, {}));
  FL_CHECK(loaded.inputs.has_value(), "tune-worker needs --inputs or an inputs block");
  tuner::WorkerSetup setup;
  setup.fusion = loaded.fusion;
  setup.hostInputs = frontend::makeInputs(*loaded.inputs, 0);
  setup.options = command.options;
  setup.device = command.device;
  setup.segment = command.segment;
  setup.compareWithDefault = command.compareWithDefault;
  // Ctrl-C goes to the parent, which stops the worker by closing its input.
  ::signal(SIGINT, SIG_IGN);
  return tuner::serveWorker(setup, std::cin, std::cout);
}

}  // namespace fuserlab::cli
