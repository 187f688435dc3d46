// TuneJob: the tuning panel's work, plain C++ for a worker thread. A dry run
// builds the search space of one segment of the current compile (no GPU);
// a sweep tunes it (tuner::tuneSegment) on a GPU through a VariantRunner,
// storing every measurement and the winner in the heuristics database.
// Results are plain data the panel copies across threads; every failure is
// part of the result, never an exception.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/compile_job.h"
#include "tuner/tuner.h"

namespace fuserlab::gui {

struct TuneRequest {
  CompileRequest compile;  //!< script, fusion, options, inputs, device (dry run)
  int segment = 0;
  tuner::StrategyOptions strategy;
  //! A sweep's GPU ("cuda:N"); a dry run uses the compile settings' device.
  std::string gpu = "cuda:0";
  std::string databasePath;
  //! The worker process: executable and leading arguments (tune_worker.h).
  std::vector<std::string> workerCommand;
};

//! A search space as the variants table shows it.
struct SpaceTable {
  struct Row {
    size_t id = 0;
    bool isDefault = false;
    bool planned = false;         //!< the strategy would measure it
    std::vector<int64_t> values;  //!< per knob
    std::string label;
  };
  std::string heading;  //!< "segment 1 (inner_persistent, kernel ...): 24 variants ..."
  std::vector<std::string> knobs;
  std::vector<Row> rows;
  size_t plannedCount = 0;
};

struct DryRunResult {
  std::optional<std::string> error;
  SpaceTable table;
};

//! One measured (or resumed, or failed) variant, as a progress event says.
struct VariantPoint {
  size_t id = 0;
  bool ok = false;
  bool resumed = false;
  double medianNs = 0;
  std::string error;
  size_t done = 0;
  size_t planned = 0;
  double bestMedianNs = 0;
};

struct TuneSummary {
  std::optional<std::string> error;  //!< the sweep could not run at all
  bool cancelled = false;
  int64_t measured = 0;
  int64_t resumed = 0;
  int64_t failed = 0;
  double seconds = 0;
  std::optional<size_t> chosen;  //!< the decision's winner
  std::string decision;          //!< its reason, or why nothing was stored
  int64_t entryId = 0;
  //! The winner's speedup over the heuristic's default (1: the default
  //! stayed), and its median; 0 when nothing was decided or measured now.
  double speedup = 0;
  double chosenMedianNs = 0;
};

//! What a sweep reports while it runs (on the tuning thread; must be quick).
class TuneProgress {
 public:
  virtual ~TuneProgress() = default;
  virtual void spaceReady(const SpaceTable& table) = 0;
  virtual void measured(const VariantPoint& point) = 0;
};

//! Makes the runner of a sweep; the default starts worker processes.
struct RunnerFactory {
  std::function<std::unique_ptr<tuner::VariantRunner>(const TuneRequest&,
                                                      const std::string& scriptFile)>
      make;
  //! Whether to compile variants with NVRTC before running them.
  bool build = true;
};

//! The table of `request`'s segment's space on the compile settings' device.
DryRunResult dryRunJob(const TuneRequest& request);

//! Tunes `request`'s segment on `request.gpu`; stops before the next variant
//! once `cancel` is set.
TuneSummary runTuneJob(const TuneRequest& request, const RunnerFactory& factory,
                       TuneProgress* progress, const std::atomic<bool>* cancel);

//! `request.workerCommand` followed by tuner::workerArguments for the script
//! file, definition, sizes, segment, GPU and every compile option.
std::vector<std::string> workerArgv(const TuneRequest& request, const std::string& scriptFile);

//! The factory of real sweeps: a tuner::WorkerRunner running workerArgv.
RunnerFactory workerRunnerFactory();

}  // namespace fuserlab::gui
