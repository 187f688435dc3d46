// MatmulScheduler: takes the library-call segments. A matmul or linear with
// exactly the epilogue the matcher (epilogue_matcher.h) fuses runs as one
// cuBLASLt call; an sdpfa_fwd alone in its segment runs as the generated
// attention kernel. Anything else in the segment is refused with the
// matcher's reason, so the segmenter leaves it to a following kernel.
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class MatmulScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::Matmul; }
  //! Refuses a segment without exactly one matmul, linear or sdpfa_fwd,
  //! operands cuBLASLt does not take here (Double, a 0-dim linear bias), an
  //! sdpfa_fwd with company, an expr the epilogue matcher does not merge,
  //! and an in-place output.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Nothing depends on sizes: always nullopt.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! MatmulParams: backend, the matched epilogue and output dtype, and
  //! "heuristic" as the algorithm.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Only the algorithm may differ from the heuristic's params: backend,
  //! epilogue and output dtype follow from the fusion.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! {"op", "backend", "epilogue", "epilogue_steps": [...]}.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

}  // namespace fuserlab::scheduler
