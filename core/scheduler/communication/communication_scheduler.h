// CommunicationScheduler: takes a segment that is exactly one resharding set
// (decompose_reshardings leaves each on its own), the data movement between
// devices that an allgather, allreduce, reduce-scatter, broadcast or
// send/recv performs. It has no tunable params; its properties name the
// collective, the mesh, and the sharded axes on both sides, which is what the
// multi-device runner executes (core/multidevice/rank_program.h).
//
// Every other scheduler refuses a segment holding a resharding set (see
// reshardingRefusal): compute and communication never share a segment.
#pragma once

#include <optional>
#include <string>

#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

class CommunicationScheduler final : public Scheduler {
 public:
  SchedulerType type() const override { return SchedulerType::Communication; }
  //! Refuses anything but one resharding set whose collective is supported.
  std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const override;
  //! Refuses a sharded axis its mesh does not divide at these sizes.
  std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const override;
  //! No params: monostate.
  HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                    const SegmentRuntimeInfo& info) const override;
  std::optional<std::string> rejectParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                          const HeuristicParams& params) const override;
  //! {"collective", "mesh", "input_sharding", "output_sharding",
  //!  "input_sharded_axis", "output_sharded_axis", "bytes_per_device"}.
  report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const override;
};

//! Why a scheduler other than communication refuses `segment`: it holds a
//! resharding set ("T15 = set(T14) moves data between devices (allreduce)
//! ..."); nullopt when it holds none.
std::optional<std::string> reshardingRefusal(const ir::Fusion& segment);

}  // namespace fuserlab::scheduler
