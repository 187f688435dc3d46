// The knob grids of the scheduler families (pointwise, reduction and the
// persistent schedulers, transpose): which knobs, which values, how a point
// becomes params and how the default's point is read back. Internal to
// tuner/; buildSearchSpace (search_space.cpp) enumerates and filters.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "tuner/search_space.h"

namespace fuserlab::tuner {

struct KnobGrid {
  std::vector<Knob> knobs;
  //! The default params' value of each knob, in knob order.
  std::vector<int64_t> defaultValues;
  //! Params for one value per knob (dependent fields derived), starting
  //! from the default's fields for whatever no knob sets.
  std::function<scheduler::HeuristicParams(const std::vector<int64_t>&)> materialize;
  //! A knob value for people ("registers" rather than 0).
  std::function<std::string(const std::string&, int64_t)> valueName;
};

KnobGrid pointwiseGrid(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info,
                       const scheduler::PointwiseParams& defaults);
KnobGrid reductionGrid(const ir::Fusion& segment, scheduler::SchedulerType type,
                       const scheduler::SegmentRuntimeInfo& info,
                       const scheduler::ReductionParams& defaults);
KnobGrid transposeGrid(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info,
                       const scheduler::TransposeParams& defaults);

//! Plain numbers: std::to_string.
std::string numericValueName(const std::string& knob, int64_t value);

}  // namespace fuserlab::tuner
