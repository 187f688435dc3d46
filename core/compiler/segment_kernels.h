// Segment kernels: the CUDA kernel of every kernel-launching segment of a
// compiled fusion, generated from the segment's scheduler and params at the
// shapes of the inputs it was compiled for. Inputs may be metadata only:
// code generation never reads values. This is what `fuserlab-cli compile`
// prints and the CI test compiles with NVRTC.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/codegen/kernel.h"
#include "core/compiler/fusion_compiler.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/runtime_info.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

struct SegmentKernel {
  int segment = 0;  //!< the group's id
  scheduler::SchedulerType scheduler = scheduler::SchedulerType::NoOp;
  std::string name;  //!< the kernel's name: "<scheduler>_seg<id>"
  //! The kernel; empty when code generation refused, then `error` says why.
  std::optional<codegen::GeneratedKernel> kernel;
  std::string error;
};

//! One segment of a compiled fusion bound at the shapes of its inputs: what
//! its scheduler's checks, heuristics and code generation read. `info`
//! points into `evaluator` and at the device given to bindSegment, which
//! must outlive it.
struct BoundSegment {
  const segmenter::SegmentedGroup* group = nullptr;
  Arguments arguments;  //!< the segment fusion's inputs (metadata for intermediates)
  std::unique_ptr<ir::ExpressionEvaluator> evaluator;
  scheduler::SegmentRuntimeInfo info;
};

//! Binds group `id` of `compiled` at the shapes of `inputs` (as
//! generateSegmentKernels does for each kernel segment).
BoundSegment bindSegment(const CompiledFusion& compiled, int id,
                         const scheduler::DeviceSpec& device, const Arguments& inputs);

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
