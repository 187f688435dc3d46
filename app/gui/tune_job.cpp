#include "app/gui/tune_job.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "app/gui/script_loader.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/kernel_cache.h"
#include "core/ir/error.h"
#include "core/ir/output_file.h"
#include "db/heuristics_database.h"
#include "db/sqlite_tuning_store.h"
#include "tuner/worker.h"
#include "tuner/worker_command.h"

namespace fuserlab::gui {
namespace {

struct Prepared {
  LoadedFusion loaded;
  std::unique_ptr<tuner::TuningTarget> target;
};

Prepared prepare(const TuneRequest& request, const std::string& deviceName) {
  Prepared p;
  p.loaded = loadFusion(request.compile);
  const auto resolved = runtime::resolveDevice(deviceName);
  FL_CHECK(resolved.has_value() || deviceName.empty(), "unknown device '", deviceName, "'");
  const scheduler::DeviceSpec device = resolved ? *resolved : scheduler::defaultDevice();
  const runtime::Arguments shapes = frontend::makeInputShapes(p.loaded.specs);
  p.target = tuner::makeTuningTarget(*p.loaded.fusion, request.compile.settings.options, device,
                                     shapes, request.segment);
  return p;
}

SpaceTable tableOf(const tuner::TuningTarget& target, const tuner::SearchSpace& space,
                   const std::vector<size_t>& planned) {
  SpaceTable table;
  for (const tuner::Knob& knob : space.knobs) table.knobs.push_back(knob.name);
  std::vector<bool> isPlanned(space.variants.size(), false);
  for (size_t id : planned) isPlanned.at(id) = true;
  for (const tuner::Variant& v : space.variants) {
    SpaceTable::Row row;
    row.id = v.id;
    row.isDefault = v.isDefault;
    row.planned = isPlanned[v.id];
    row.label = v.label;
    for (size_t k = 0; k < space.knobs.size() && k < v.point.size(); ++k) {
      const auto& values = space.knobs[k].values;
      const auto index = static_cast<size_t>(v.point[k]);
      row.values.push_back(index < values.size() ? values[index] : v.point[k]);
    }
    table.rows.push_back(std::move(row));
  }
  table.plannedCount = planned.size();
  table.heading =
      "segment " + std::to_string(target.segment) + " (" +
      std::string(scheduler::toString(target.scheduler)) + ", kernel " + target.kernelName +
      ") on " + target.device.name + ", sizes " + target.key.sizes + ": " +
      std::to_string(space.variants.size()) + " variants accepted of " +
      std::to_string(space.gridSize()) + " grid points (" + std::to_string(space.refusedPoints) +
      " refused by the scheduler); the strategy would measure " + std::to_string(planned.size());
  return table;
}

// Forwards the tuner's events as plain data.
class Forwarder : public tuner::TuneListener {
 public:
  explicit Forwarder(TuneProgress* progress) : progress_(progress) {}
  void onProgress(const tuner::ProgressEvent& e) override {
    if (progress_ == nullptr || e.kind != tuner::ProgressEvent::Kind::Measured) return;
    VariantPoint p;
    p.id = e.variant->id;
    p.ok = e.outcome->ok();
    p.resumed = e.outcome->resumed;
    if (p.ok) p.medianNs = e.outcome->stats->medianNs;
    p.error = e.outcome->error;
    p.done = e.done;
    p.planned = e.planned;
    p.bestMedianNs = e.bestMedianNs;
    progress_->measured(p);
  }

 private:
  TuneProgress* progress_;
};

// The editor's text as a file the worker process can read; removed after.
class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "fuserlab-tune-XXXXXX.py").string();
    const int fd = ::mkstemps(pattern.data(), 3);
    FL_CHECK(fd >= 0, "cannot create a temporary file for the tuning worker");
    ::close(fd);
    path_ = pattern;
    try {
      ir::writeUserFile(path_, text);
    } catch (...) {
      std::error_code ignored;
      std::filesystem::remove(path_, ignored);  // the destructor will not run
      throw;
    }
  }
  ~ScriptFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void sweep(const TuneRequest& request, const RunnerFactory& factory, TuneProgress* progress,
           const std::atomic<bool>* cancel, TuneSummary& summary) {
  FL_CHECK(!request.databasePath.empty(),
           "no database: choose a heuristics database file in the Database tab (the "
           "sweep stores every measurement and the winner there)");
  Prepared p = prepare(request, request.gpu);
  if (progress) {
    const tuner::SearchSpace space =
        tuner::buildSearchSpace(p.target->segmentFusion(), p.target->scheduler,
                                p.target->bound.info, p.target->defaultParams);
    progress->spaceReady(
        tableOf(*p.target, space, tuner::plannedVariants(space, request.strategy)));
  }
  const ScriptFile script(request.compile.source);
  std::unique_ptr<tuner::VariantRunner> runner = factory.make(request, script.path());
  FL_CHECK(runner != nullptr, "no runner for ", request.gpu);
  db::HeuristicsDatabase database(request.databasePath, db::HeuristicsDatabase::Access::Write);
  db::SqliteTuningStore store(database);
  std::optional<tuner::Builder> builder;
  if (factory.build) builder.emplace(runtime::KernelCache::global());
  tuner::TuneOptions options;
  options.strategy = request.strategy;
  options.command = "fuserlab (tuning panel) " + request.compile.fileName + " segment " +
                    std::to_string(request.segment) + " " +
                    std::string(tuner::toString(request.strategy.kind));
  Forwarder forwarder(progress);
  const tuner::TuneResult result = tuner::tuneSegment(
      *p.target, options, store, *runner, builder ? &*builder : nullptr, &forwarder, cancel);
  summary.cancelled = result.strategy.cancelled || (cancel && cancel->load());
  summary.measured = result.measured;
  summary.resumed = result.resumed;
  summary.seconds = result.seconds;
  for (const auto& o : result.outcomes) summary.failed += o.ok() ? 0 : 1;
  if (result.decision) {
    summary.chosen = result.decision->chosen;
    summary.decision = result.decision->reason;
    summary.entryId = result.entryId;
    summary.speedup = result.decision->speedup;
    for (const auto& o : result.outcomes) {
      if (o.variant == result.decision->chosen && o.ok())
        summary.chosenMedianNs = o.stats->medianNs;
    }
  } else {
    summary.decision = "nothing stored: " + result.decisionError;
  }
}

}  // namespace

DryRunResult dryRunJob(const TuneRequest& request) {
  DryRunResult result;
  try {
    Prepared p = prepare(request, request.compile.settings.device);
    const tuner::SearchSpace space =
        tuner::buildSearchSpace(p.target->segmentFusion(), p.target->scheduler,
                                p.target->bound.info, p.target->defaultParams);
    result.table = tableOf(*p.target, space, tuner::plannedVariants(space, request.strategy));
  } catch (const UserError& error) {
    result.error = error.message();
  } catch (const std::exception& error) {
    result.error = std::string("internal error: ") + error.what();
  }
  return result;
}

TuneSummary runTuneJob(const TuneRequest& request, const RunnerFactory& factory,
                       TuneProgress* progress, const std::atomic<bool>* cancel) {
  TuneSummary summary;
  try {
    sweep(request, factory, progress, cancel, summary);
  } catch (const UserError& error) {
    summary.error = error.message();
  } catch (const std::exception& error) {
    summary.error = std::string("internal error: ") + error.what();
  }
  return summary;
}

std::vector<std::string> workerArgv(const TuneRequest& request, const std::string& scriptFile) {
  tuner::WorkerCommand command;
  command.script = scriptFile;
  command.fusion = request.compile.fusionName;
  command.inputs = request.compile.settings.inputs;
  command.segment = request.segment;
  command.device = tuner::parseCudaDevice(request.gpu, "the tuning GPU");
  command.options = request.compile.settings.options;
  std::vector<std::string> argv = request.workerCommand;
  for (std::string& arg : tuner::workerArguments(command)) argv.push_back(std::move(arg));
  return argv;
}

RunnerFactory workerRunnerFactory() {
  RunnerFactory factory;
  factory.make = [](const TuneRequest& request,
                    const std::string& scriptFile) -> std::unique_ptr<tuner::VariantRunner> {
    FL_CHECK(runtime::cudaDeviceCount() > 0, "no CUDA device: ", runtime::cudaUnavailableReason(),
             "; a dry run lists the space without one");
    FL_CHECK(!request.workerCommand.empty(), "no tuning worker executable");
    return std::make_unique<tuner::WorkerRunner>(workerArgv(request, scriptFile));
  };
  return factory;
}

}  // namespace fuserlab::gui
