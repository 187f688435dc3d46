// SearchSpace: the params variants the tuner may try for one segment. A space
// is a grid of knobs (vectorization, block shape, persistent storage, ...);
// each point is turned into a complete params struct by the scheduler
// family's materializer (dependent fields such as the grid are derived) and
// kept only if the scheduler's own rejectParams accepts it, so every variant
// the tuner measures is one the runtime would also accept from the database.
// Variant 0 is always the heuristic's own choice, exactly as it proposed it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::tuner {

//! One tunable choice and the values it takes (booleans and enums as 0/1).
struct Knob {
  std::string name;  //!< "vectorization_factor", "persistent_storage", ...
  std::vector<int64_t> values;
};

//! A point of the grid: one index into each knob's values.
using Point = std::vector<int64_t>;

struct Variant {
  size_t id = 0;  //!< position in SearchSpace::variants
  scheduler::HeuristicParams params;
  std::string paramsHash;  //!< hex of scheduler::paramsHash
  bool isDefault = false;
  //! The grid point it came from (the default's point for variant 0).
  Point point;
  //! "vectorization_factor=4 persistent_storage=registers ..." for people.
  std::string label;
};

class SearchSpace {
 public:
  scheduler::SchedulerType scheduler = scheduler::SchedulerType::NoOp;
  std::vector<Knob> knobs;
  //! Accepted variants, deduplicated by params; [0] is the default.
  std::vector<Variant> variants;
  //! The default's knob values as a point (every knob lists them).
  Point defaultPoint;
  //! Grid points the scheduler refused, and the first few reasons.
  int64_t refusedPoints = 0;
  std::vector<std::string> refusalSamples;

  //! The variant at `point`; nullopt when the scheduler refused it.
  std::optional<size_t> variantAt(const Point& point) const;
  //! Number of grid points (the product of the knobs' sizes).
  int64_t gridSize() const;
  //! Every value `knob` takes among the accepted variants.
  std::vector<int64_t> acceptedValues(const std::string& knob) const;
  //! The knobs and variants as JSON (the dry run's output).
  report::Json toJson() const;

  //! Internal: registers a point's variant.
  void mapPoint(const Point& point, size_t variant);

 private:
  int64_t flatten(const Point& point) const;
  std::map<int64_t, size_t> byPoint_;
};

//! The space of `segment` (scheduled by `type`, whose heuristic proposed
//! `defaultParams`) at these sizes. A UserError for a scheduler that has no
//! params to tune (no_op, expr_eval).
SearchSpace buildSearchSpace(const ir::Fusion& segment, scheduler::SchedulerType type,
                             const scheduler::SegmentRuntimeInfo& info,
                             const scheduler::HeuristicParams& defaultParams);

//! Whether `type` has a search space.
bool isTunable(scheduler::SchedulerType type);

}  // namespace fuserlab::tuner
