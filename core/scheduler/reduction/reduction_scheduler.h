// ReductionScheduler: segments whose reductions need no persistent buffer:
// every tensor read before a reduction is done with once the reduction has
// consumed it (row sums, column sums, welford statistics, with pointwise ops
// before and on the result). Inner reductions (the reduced axes are the
// innermost) vectorize along the row and reduce across the threads of a
// block; outer ones vectorize along the kept innermost axis and reduce
// across blockDim.y. When the kept extent cannot fill the SMs, the reduction
// is split across blocks (a grid reduction).
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class ReductionScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::Reduction; }
  //! Refuses segments without a reduction, with reductions over different
  //! axes, with ops a reduction kernel cannot contain, and any that needs a
  //! persistent buffer or combines a reduction's result with full rows.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses reductions of different extents at these sizes.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! ReductionParams with persistentKernel false.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Checks the kind, vectorization (power of two, within the allowed
  //! factor), block size and grid limits.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! reduction_extent, iteration_extent, fastest_dim_reduction,
  //! max_allowed_vectorize_factor and what limits it.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
