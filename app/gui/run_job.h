// RunJob: runs the script's fusion on its inputs (random values drawn from
// `seed` as the inputs block describes them) on the CPU reference backend or
// a CUDA GPU, optionally checking the GPU's outputs against the reference
// and timing its kernels.
// Plain C++ for a worker thread; failures are part of the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/compile_job.h"
#include "app/gui/segment_metrics.h"

namespace fuserlab::gui {

struct RunRequest {
  CompileRequest compile;       //!< script, fusion, options, inputs
  std::string backend = "cpu";  //!< "cpu" or "cuda"
  int cudaIndex = 0;
  uint64_t seed = 0;
  bool check = false;  //!< cuda: compare with the cpu reference
  //! cuda: after the run, time the kernels from CUPTI's records
  //! (measure/kernel_timing.h, kTimedRuns runs on device-resident inputs).
  bool timeKernels = false;
};

//! Runs the kernels are timed over when RunRequest::timeKernels is set.
inline constexpr int kTimedRuns = 20;

struct RunResult {
  std::optional<std::string> error;
  std::vector<std::string> lines;  //!< a line per output, checks, stats
  int kernelLaunches = -1;         //!< -1 on the cpu backend
  double milliseconds = 0;         //!< the run alone (inputs made before)
  bool checkFailed = false;
  //! cuda with timeKernels: each kernel's median GPU time (for the graph).
  std::optional<KernelFigures> kernelFigures;
};

RunResult runFusionJob(const RunRequest& request);

//! Whether the cuda backend can run here; if not, why (for the panel).
std::optional<std::string> cudaUnavailable();

}  // namespace fuserlab::gui
