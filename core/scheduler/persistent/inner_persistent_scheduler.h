// InnerPersistentScheduler: normalizations over the innermost axes (softmax,
// layer norm, rms norm): one block per row (or a few short rows per block),
// each row read once into registers or shared memory, reduced across the
// block, and used again from there. Projection keeps a narrow input (bf16)
// instead of its upcast (float) when that keeps fewer bytes (seed 000).
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class InnerPersistentScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::InnerPersistent; }
  //! Needs reductions over the innermost axes, all over the same axes, a
  //! persistent buffer, and ops a reduction kernel can contain.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses when a row's buffers (projected where that keeps fewer bytes)
  //! fit neither the register budget nor the shared memory budget.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! ReductionParams with persistentKernel and fastestDimReduction set:
  //! the largest vectorization factor, a persistent batch and blockDimX
  //! covering the row, rows per block, storage.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! The common checks, plus: the block covers a row, one block per row
  //! (grid_dim_y 1), the grid covers the rows, the storage holds
  //! block_dim_y rows.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! The persistent buffer analysis (persistent_buffer_bytes, ...).
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
