// TransposeScheduler: pointwise segments where some inputs and outputs
// disagree about which axis is innermost in memory (a permute between them,
// or permuted allocation domains / stride orders). Tensors split into two
// groups by their innermost axis: group 2 shares it with the reference (the
// largest output), group 1 has another one. A kernel moves tiles through
// shared memory so both groups read or write along their own innermost axis,
// coalesced and vectorized. Transposes whose inner extents are too small to
// fill a tile are left to the pointwise scheduler.
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class TransposeScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::Transpose; }
  //! The pointwise refusals, and "no transpose" when every input and output
  //! has the same innermost axis (or they disagree in more than two ways).
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! The same at the bound strides, reference coverage, and small
  //! transposes (an inner extent below 32) left to pointwise.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! 32x32 tiles of 128 threads (64x64 of 256 for 2-byte dtypes when both
  //! inner extents allow it and shared memory fits), each group vectorized
  //! as the vectorization analysis allows along its innermost axis.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Checks tiles against vectorization, threads and shared memory, and each
  //! group's vectorization against what its tensors allow.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! The groups, their inner axes and extents, each group's vectorization
  //! limit and reasons, the tile choice and its shared memory.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
