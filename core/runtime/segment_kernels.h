// Segment kernels: the CUDA kernel of every kernel-launching segment of a
// compiled fusion, generated from the segment's scheduler and params at the
// shapes of the inputs it was compiled for. Inputs may be metadata only:
// code generation never reads values. This is what `fuserlab-cli compile`
// prints and the CI test compiles with NVRTC.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/codegen/kernel.h"
#include "core/runtime/argument.h"
#include "core/runtime/fusion_compiler.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::runtime {

struct SegmentKernel {
  int segment = 0;  //!< the group's id
  scheduler::SchedulerType scheduler = scheduler::SchedulerType::NoOp;
  std::string name;  //!< the kernel's name: "<scheduler>_seg<id>"
  //! The kernel; empty when code generation refused, then `error` says why.
  std::optional<codegen::GeneratedKernel> kernel;
  std::string error;
};

//! "pointwise_seg0": the name of segment `id`'s kernel.
std::string segmentKernelName(int id, scheduler::SchedulerType type);

//! Binds each segment of `compiled` at the shapes of `inputs` (the
//! arguments `compiled` was compiled for; intermediates contiguous in their
//! allocation order) and generates the kernel of every segment whose
//! scheduler launches one, in segment order (cuBLASLt calls have none and
//! are left out). Code generation errors are
//! recorded per segment, not thrown.
std::vector<SegmentKernel> generateSegmentKernels(const CompiledFusion& compiled,
                                                  const scheduler::DeviceSpec& device,
                                                  const Arguments& inputs);

}  // namespace fuserlab::runtime
