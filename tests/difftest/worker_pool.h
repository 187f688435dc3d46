// The differential tester's worker processes. A case that faults on the GPU
// (an illegal address leaves the CUDA context unusable) or hangs must cost
// that case only, so cases run in child processes of the tester itself
// (`--worker`), several at once (NVRTC builds use every host core; launches
// share the GPU). Each worker runs a contiguous range of cases and reports
// on its stdout, one line per event:
//   start INDEX
//   result INDEX STATUS KERNELS DETAIL...
// When a worker dies or goes silent past the case timeout, the case it had
// started is recorded as a crash (with its exit status and the tail of its
// stderr) and a new worker takes the rest of the range.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/difftest/case_runner.h"

namespace fuserlab::difftest {

struct WorkerJob {
  uint64_t firstSeed = 0;  //!< case i of the job uses seed firstSeed + i
  int64_t count = 1;
  //! Shrink steps applied to each case's fusion ("3.0.5": candidate 3,
  //! then candidate 0 of that, ...); empty for the generated fusion.
  std::string shrinkPath;
};

struct PoolOptions {
  std::string executable;                    //!< this program (/proc/self/exe)
  std::vector<std::string> workerArguments;  //!< mode, device, generator options
  int jobs = 1;
  double caseTimeoutSeconds = 300;
};

//! Runs every job's cases with at most options.jobs workers at a time;
//! `onResult(job, caseIndex, result)` is called in the parent as results
//! arrive (any order across jobs, in order within one).
void runJobs(const PoolOptions& options, const std::vector<WorkerJob>& jobs,
             const std::function<void(size_t, int64_t, const CaseResult&)>& onResult);

//! The worker's side: writes the protocol lines for `job` to stdout,
//! running each case with `run(seed, shrinkPath)`.
int workerMain(const WorkerJob& job,
               const std::function<CaseResult(uint64_t, const std::string&)>& run);

}  // namespace fuserlab::difftest
