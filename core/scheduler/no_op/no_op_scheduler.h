// NoOpScheduler: takes segments that compute nothing, whose every output is
// one of the segment's inputs or an empty tensor (an extent of zero): they
// need neither a kernel nor a host computation, only outputs handed back or
// allocated empty.
#pragma once

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class NoOpScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::NoOp; }
  //! Refuses when an output is computed and none of its extents can be zero.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses when a computed output has elements at these sizes.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! No params: monostate.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  //! Anything but monostate is refused.
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
};

}  // namespace fuserlab::scheduler
