// ExprEvalScheduler: takes segments evaluated on the host without a kernel
// of FuserLab's: segments of meta ops whose every tensor is a view of a
// segment input (broadcast, expand, reshape, permute, squeeze, slice, and
// set/segment_set that keep the layout). Library calls (matmul, linear,
// sdpa) are the matmul scheduler's. Scalar arithmetic on the host may
// accompany the views. It also takes a segment whose one tensor op has no
// GPU kernel (cpu_reference_ops.h), which the cuda backend then refuses.
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class ExprEvalScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::ExprEval; }
  //! Refuses a segment with no exprs (no_op's), a library call, the first
  //! expr that computes new values, an in-place output, and a layout
  //! change (set to a split/merged allocation domain).
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Follows the strides of the inputs through the meta ops; refuses the
  //! first reshape that cannot be a view at these strides, and a tensor with
  //! a stride order the view does not have.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! No params: monostate.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Anything but monostate is refused.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! {"evaluation": "views"}, or "cpu_reference_only" for a segment of an
  //! op without a GPU kernel.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
