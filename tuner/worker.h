// The tuning worker: the process that runs variants on the GPU, so that a
// variant that faults (illegal address, trap, launch failure) or hangs takes
// only the worker down; the sweep records it as failed and starts a fresh
// worker. `fuserlab-cli tune-worker` (hidden) runs serveWorker on its stdin
// and stdout; WorkerRunner (the VariantRunner of real sweeps) starts it with
// fork + exec and talks to it in JSON lines:
//   worker -> parent  {"ready": true, "device": NAME, "copy_bytes_per_s": B}
//                     once set up (B: its GPU's copy bandwidth, as bench
//                     measures it, for the bandwidth floor), or
//                     {"fatal": MESSAGE} and exit
//   parent -> worker  {"variant": ID, "params": {...}}
//   worker -> parent  {"variant": ID, "samples": [ns...], "redone": N,
//                     "check": CHECK} or
//                     {"variant": ID, "error": MESSAGE, "fatal": BOOL[,
//                     "check": CHECK]}
// After a fatal error (the CUDA context is unusable) the worker exits.
//
// Per variant the worker: compiles the fusion with the variant's params
// pinned to the segment and checks the runtime took them; runs it once on
// fresh copies of the inputs (random, non-zero) with every output poisoned
// (NaN) and validates each output (CHECK says against what): the default
// variant against the CPU reference ("cpu_reference"), keeping its verified
// outputs on the GPU; every other variant against those, on the GPU, with
// the same tolerances (output_comparison.h; "default_gpu_outputs"), so no
// output is copied back. A worker whose first variant is not the default
// runs the default first to get them; where the default fails its check, or
// WorkerSetup::compareWithDefault is off, every variant is checked against
// the CPU reference. Then it times the
// segment's kernel with CUPTI: warm-up launches, then samples, each after
// flushing the L2 (runtime::L2Flush: a buffer twice its size written and
// read, so the sample starts from a cold and clean L2), until the median's
// confidence half-width is under 1% or the cap; a sample more than 1.5x the
// running median (a clock drop, a preemption) is redone once.
//
// Test switches: FUSERLAB_TUNER_FAULT_VARIANT=N makes the worker launch a
// kernel that writes far out of bounds and traps when asked for variant N;
// FUSERLAB_TUNER_WRONG_VARIANT=N makes variant N's last element of output 0
// wrong (value * 1.5 + 1) before it is checked, as a wrong kernel would.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/ir/fusion.h"
#include "core/tensor/argument.h"
#include "tuner/tuner.h"

namespace fuserlab::tuner {

struct SamplingPolicy {
  int warmup = 3;
  int minSamples = 10;
  int maxSamples = 200;
  double targetSpread = 0.01;  //!< the median's relative half-width
  double redoFactor = 1.5;     //!< a sample this far above the median is redone
};

struct WorkerSetup {
  const ir::Fusion* fusion = nullptr;
  runtime::Arguments hostInputs;  //!< random non-zero values
  compiler::CompileOptions options;
  int device = 0;
  int segment = 0;
  SamplingPolicy sampling;
  //! Compare variants with the default variant's outputs on the GPU (see
  //! above); off: every variant against the CPU reference.
  bool compareWithDefault = true;
};

//! Serves requests until end of input; returns the process exit code.
int serveWorker(const WorkerSetup& setup, std::istream& in, std::ostream& out);

//! Runs variants in a worker process started as `argv` (argv[0] the
//! executable). A worker that dies, answers garbage or exceeds
//! `timeoutSeconds` on one variant is killed and replaced.
class WorkerRunner : public VariantRunner {
 public:
  WorkerRunner(std::vector<std::string> argv, double timeoutSeconds = 120);
  ~WorkerRunner() override;
  VariantOutcome run(const TuningTarget& target, const Variant& variant) override;
  std::optional<double> copyBytesPerSecond() const override;

  //! Workers started so far (1 + the replacements).
  int workersStarted() const { return started_; }

 private:
  bool ensureWorker(std::string* error);
  void stopWorker();
  //! One line from the worker; false on EOF or timeout (`error` says which).
  bool readLine(std::string& line, double timeoutSeconds, std::string* error);

  std::vector<std::string> argv_;
  double timeoutSeconds_;
  int pid_ = -1;
  int toWorker_ = -1;
  int fromWorker_ = -1;
  std::string buffered_;
  int started_ = 0;
  // Written by the runner's thread, read by the tuning thread (a pool); 0
  // until a worker reported it.
  std::atomic<double> copyBytesPerSecond_{0};
};

}  // namespace fuserlab::tuner
