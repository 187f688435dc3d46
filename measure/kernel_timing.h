// Kernel timing: the GPU time of a fusion's kernels themselves, from
// CUPTI's kernel records (each kernel's start and end as the GPU stamps
// them), for `fuserlab-cli bench` to print beside its CUDA-event figure.
//
// The events bracket the launches, so their window also holds what it takes
// the GPU to start the first kernel after the start event and to record the
// end event after the last (on an H100 about 3.3 us: an empty kernel between
// two events, docs/performance.md). The kernel records leave that out, as
// nsys and ncu do; their difference from the event figure is that window.
// The benchmark's targets stay on the events, as torch's timer in
// compare_torch.py times torch's kernels.
//
// Per sample: the L2 flush (runtime::L2Flush), a synchronize (so its
// kernels' records are dropped before the sample begins), the whole fusion,
// and the records of the sample's kernels, cuBLASLt's included.
#pragma once

#include <string>
#include <vector>

#include "core/runtime/gpu_executor.h"
#include "core/tensor/argument.h"
#include "measure/sample_statistics.h"

namespace fuserlab::tuner {

struct KernelTimes {
  //! Why the kernels were not timed (CUPTI could not be loaded or enabled,
  //! or a sample's records did not match the others'); empty when they were.
  std::string unavailable;
  //! The sum of the sample's kernel durations, microseconds.
  runtime::SampleSummary busyMicroseconds;
  //! From the first kernel's start to the last kernel's end, microseconds:
  //! the busy time plus the gaps between kernels (a programmatic dependent
  //! launch can overlap the kernel before it, so it can also be less).
  runtime::SampleSummary spanMicroseconds;
  struct Kernel {
    std::string name;  //!< as CUPTI reports it
    runtime::SampleSummary microseconds;
  };
  //! Each kernel of a sample, in the order they started.
  std::vector<Kernel> kernels;
};

//! Times `samples` runs of `executor` (already run once, so nothing
//! compiles) on device-resident `inputs` with CUPTI.
KernelTimes measureKernelTimes(runtime::GpuExecutor& executor, const runtime::Arguments& inputs,
                               int samples);

//! `times` as lines of text for the workbench's run panel: the kernels'
//! span with p20 and p80, each kernel's median where there are several, or
//! why they were not timed.
std::vector<std::string> describeKernelTimes(const KernelTimes& times);

}  // namespace fuserlab::tuner
