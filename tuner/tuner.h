// The tuning loop for one segment: the search space, a strategy choosing
// variants in batches, the builder compiling each batch in parallel, a
// VariantRunner measuring (and validating) them, every measurement kept in a
// TuningStore (the heuristics database, or a JSON-lines file) as it arrives,
// and the decision rule choosing the params stored as the segment's entry.
// Variants the store already holds a measurement of (same segment, device
// and params) are not run again: a sweep stopped by Ctrl-C resumes where it
// stopped.
//
// Progress reaches a front end (CLI progress bar, JSON lines, the GUI)
// through TuneListener; cancelling is an atomic flag checked between
// variants.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/entry.h"
#include "db/tuning_store.h"
#include "tuner/bandwidth_floor.h"
#include "tuner/builder.h"
#include "tuner/decision.h"
#include "tuner/search_space.h"
#include "tuner/statistics.h"
#include "tuner/strategy.h"
#include "tuner/tuning_target.h"

namespace fuserlab::tuner {

//! VariantOutcome::check: the CPU reference (the default variant always, and
//! every variant where the default's outputs are not known good), or the
//! default variant's verified outputs, compared on the GPU (worker.h).
inline constexpr const char* kCheckCpuReference = "cpu_reference";
inline constexpr const char* kCheckDefaultOutputs = "default_gpu_outputs";

//! One variant's measurement: statistics of its kernel's duration, or why it
//! failed (did not build, faulted, produced wrong results, timed out).
struct VariantOutcome {
  size_t variant = 0;
  std::optional<SampleStats> stats;
  std::string error;
  //! Read back from the store rather than measured now.
  bool resumed = false;
  //! Samples redone because they deviated (a clock drop, an interruption).
  int64_t redoneSamples = 0;
  //! What its outputs were validated against: kCheckCpuReference or
  //! kCheckDefaultOutputs; empty when not validated here
  //! (resumed, failed before the check, a fake runner).
  std::string check;

  bool ok() const { return error.empty() && stats.has_value(); }
};

//! Whether to stop before the next variant (Ctrl-C, a time limit).
using StopCheck = std::function<bool()>;
//! Receives a finished variant's outcome: its index in the batch and it.
using OutcomeSink = std::function<void(size_t, VariantOutcome)>;

//! Runs and validates variants on a GPU (the worker process; a fake in
//! tests). Never throws for a variant's own failure: that is an outcome.
class VariantRunner {
 public:
  virtual ~VariantRunner() = default;
  virtual VariantOutcome run(const TuningTarget& target, const Variant& variant) = 0;
  //! The device-to-device copy bandwidth of the runner's GPU (bytes per
  //! second), once known (a worker measures it as it starts): the bandwidth
  //! floor's (bandwidth_floor.h). nullopt: unknown, no early stop.
  virtual std::optional<double> copyBytesPerSecond() const { return std::nullopt; }
  //! Runs `variants`, calling `done(index into variants, outcome)` on the
  //! calling thread as each finishes; a variant not started because `stop`
  //! said so gets no call. This one runs them in order; a RunnerPool (several
  //! GPUs) runs them at once.
  virtual void runBatch(const TuningTarget& target, const std::vector<const Variant*>& variants,
                        const StopCheck& stop, const OutcomeSink& done);
};

struct ProgressEvent {
  enum class Kind { Started, Measured, Finished };
  Kind kind = Kind::Started;
  size_t done = 0;                          //!< variants evaluated so far (resumed included)
  size_t planned = 0;                       //!< the strategy's cap on variants
  const VariantOutcome* outcome = nullptr;  //!< Measured only
  const Variant* variant = nullptr;         //!< Measured only
  //! The fastest ok median so far (ns), 0 before any.
  double bestMedianNs = 0;
};

//! Receives progress on the tuning thread; must be quick.
class TuneListener {
 public:
  virtual ~TuneListener() = default;
  virtual void onProgress(const ProgressEvent& event) = 0;
};

struct TuneOptions {
  StrategyOptions strategy;
  double margin = kDefaultMargin;
  //! The command line, recorded as the tuning run's provenance.
  std::string command = "fuserlab-cli tune";
  //! Stop measuring at this time (--time-limit): what was measured is
  //! stored, and the winner of what was measured becomes the entry.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  //! Stop a segment once the best variant is within the margin of the
  //! bandwidth floor (bandwidth_floor.h); --no-early-stop turns it off.
  bool earlyStop = true;
  double floorBandwidthFactor = kFloorBandwidthFactor;
  //! Mark the stored entries portable (db::Entry::portable): they may
  //! answer on other GPUs of the same architecture (tune --portable).
  bool portable = false;
};

struct TuneResult {
  SearchSpace space;
  StrategyResult strategy;
  std::vector<VariantOutcome> outcomes;  //!< in evaluation order
  std::optional<Decision> decision;      //!< none when the default failed
  std::string decisionError;
  int64_t entryId = 0;  //!< the stored entry; 0 if none was stored
  int64_t resumed = 0;
  int64_t measured = 0;
  double seconds = 0;
  //! Stopped at TuneOptions::deadline before the strategy was done.
  bool timedOut = false;
  //! Bytes the segment moves at least (segmentBytesMoved) and, once the
  //! runner knew its copy bandwidth, the floor on any variant's time.
  int64_t bytesMoved = 0;
  std::optional<BandwidthFloor> floor;
  //! Set when the sweep stopped early at the floor.
  std::optional<EarlyStop> earlyStop;
  //! Why it could not stop early, where something prevented it (no
  //! bandwidth, a variant measured below the floor); empty otherwise.
  std::string earlyStopNote;
};

//! The MeasurementRecord the store keeps of `outcome`.
db::MeasurementRecord measurementOf(const Variant& variant, const VariantOutcome& outcome,
                                    const db::RunRecord& run);

//! The decision rule's view of a stored measurement (noise from its stddev).
Timing timingOf(size_t variant, const db::MeasurementRecord& measurement);

//! Tunes `target`: see the file comment. Every measured variant and the
//! winner go to `store` (db/tuning_store.h: the SQLite database or a JSON-lines
//! file); `builder` may be null (the runner then builds). Cancelling stops
//! before the next variant; what was measured stays in the store.
TuneResult tuneSegment(const TuningTarget& target, const TuneOptions& options,
                       db::TuningStore& store, VariantRunner& runner, Builder* builder,
                       TuneListener* listener, const std::atomic<bool>* cancel);

}  // namespace fuserlab::tuner
