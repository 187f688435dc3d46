// OuterPersistentScheduler: normalizations over outer axes (batch norm's
// statistics over N*H*W for each channel): the kept innermost axis is
// vectorized across the threads of blockDim.y, the reduction runs across
// blockDim.x, persistent batches and, when one block cannot hold a column,
// across blocks that all stay resident (grid persistence).
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class OuterPersistentScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::OuterPersistent; }
  //! Needs reductions over outer axes, all over the same axes, a persistent
  //! buffer, and ops a reduction kernel can contain.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses when a column's buffers fit neither budget, or when no grid of
  //! resident blocks can hold the columns.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! ReductionParams with persistentKernel set and fastestDimReduction not.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! The common checks, plus: the reduction and the kept axis are covered,
  //! the storage holds each block's share, a grid-persistent kernel's blocks
  //! fit on the SMs at once.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! The persistent buffer analysis (persistent_buffer_bytes, ...).
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
