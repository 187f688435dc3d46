// PointwiseScheduler: segments of elementwise ops, broadcasts, casts and
// meta ops (reshape, permute, slice, pad, cat, index_select, gather are all
// pointwise over their output) without reductions or matmuls. It accepts
// any such segment whose largest output covers every axis of the others;
// transposes it takes too, only slower than the transpose scheduler, which
// is tried first. Its heuristic is pointwise_heuristic.h.
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class PointwiseScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::Pointwise; }
  //! Refuses segments with a reduction or Welford, a matmul, linear or sdpa,
  //! or no tensor output.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses when no output covers every axis of the other inputs and
  //! outputs (the reference the schedule walks). Zero-size is fine.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! PointwiseParams from decidePointwise.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Checks the vectorization factor against what the tensors allow at the
  //! params' break point, the break point against the reference's rank and
  //! its reshapes, block and grid shape against the device, and the index
  //! type against the tensors' spans.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! The reference and its shape, max_allowed_vectorize_factor and every
  //! tensor's limit and reason, the break point candidates and the reason
  //! for the choice, the bytes moved, unrolling and the index type.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
