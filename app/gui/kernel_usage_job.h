// KernelUsageJob: registers and spills of a compile's kernels, as ptxas
// reports them when NVRTC compiles the generated CUDA verbose for the
// device's architecture. Needs no GPU (NVRTC is a library), so the graph's
// metrics overlay shows them on any machine. Plain C++ for a worker thread;
// a kernel that does not compile is left out. The figures are cached by
// architecture, options and source (the kernel's name aside), so a
// recompile of the same script, or kernels alike but for their names, run
// NVRTC once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/gui/compile_job.h"
#include "core/cuda/ptxas_usage.h"

namespace fuserlab::gui {

struct KernelUsage {
  std::map<int, runtime::PtxasUsage> bySegment;
  std::string error;  //!< why nothing was measured (no NVRTC), else empty
};

//! Compiles each of `kernels` (those with source) verbose for compute
//! capability `computeCapability` (e.g. 90; the nearest architecture NVRTC
//! supports below it when it does not support that one).
KernelUsage kernelUsageJob(const std::vector<SegmentCode>& kernels, int computeCapability);

//! How many kernels kernelUsageJob has given NVRTC in this process (the
//! cache's misses).
int64_t kernelUsageNvrtcRuns();

//! The compute capability of a report's device ("9.0" -> 90); 0 if unknown.
int reportComputeCapability(const report::CompileReport& report);

}  // namespace fuserlab::gui
