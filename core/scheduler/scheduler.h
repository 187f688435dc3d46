// Scheduler: one kind of segment scheduler. Each answers, with a reason a
// user can act on when it refuses, whether it can take a segment (at compile
// time from the IR alone, then at run time with sizes), computes its
// heuristic params, validates params supplied by the tuner or the database,
// and describes the properties its decision rests on for the report.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::scheduler {

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  virtual SchedulerType type() const = 0;

  //! Why this scheduler can never take `segment` whatever its sizes ("has a
  //! reduction", "reduction tv T3 needs a persistent buffer"); nullopt if it
  //! can.
  virtual std::optional<std::string> rejectCompileTime(const ir::Fusion& segment) const = 0;

  //! Why it cannot take `segment` at these sizes on this device ("the
  //! persistent buffer needs 262144 bytes per row; the H100 budget is
  //! 229376"); nullopt if it can. Only called after rejectCompileTime.
  virtual std::optional<std::string> rejectRunTime(const ir::Fusion& segment,
                                                   const SegmentRuntimeInfo& info) const = 0;

  //! The heuristic's proposal. Only called when both checks pass.
  virtual HeuristicParams computeHeuristics(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info) const = 0;

  //! Why `params` (e.g. from the tuner or the database) cannot run this
  //! segment at these sizes; nullopt if they can.
  virtual std::optional<std::string> rejectParams(const ir::Fusion& segment,
                                                  const SegmentRuntimeInfo& info,
                                                  const HeuristicParams& params) const = 0;

  //! What the decision rests on, for the report: persistent buffer sizes,
  //! the vectorization limit and why, reduction sizes, ... (an object).
  virtual report::Json properties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) const {
    return report::Json::object();
  }
};

}  // namespace fuserlab::scheduler
