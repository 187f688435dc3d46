#include "tuner/search_space.h"

#include <algorithm>
#include <set>

#include "core/ir/error.h"
#include "core/scheduler/registry.h"
#include "db/segment_key.h"
#include "tuner/search_space_families.h"

namespace fuserlab::tuner {
namespace {

// Enough reasons to see why a region of the grid is missing, not all of them.
constexpr size_t kRefusalSamples = 8;

std::string labelOf(const KnobGrid& grid, const std::vector<int64_t>& values) {
  std::string label;
  for (size_t k = 0; k < grid.knobs.size(); ++k) {
    if (!label.empty()) label += " ";
    label += grid.knobs[k].name + "=" + grid.valueName(grid.knobs[k].name, values[k]);
  }
  return label;
}

KnobGrid gridFor(const ir::Fusion& segment, scheduler::SchedulerType type,
                 const scheduler::SegmentRuntimeInfo& info,
                 const scheduler::HeuristicParams& params) {
  using scheduler::SchedulerType;
  switch (type) {
    case SchedulerType::Pointwise:
      return pointwiseGrid(segment, info, std::get<scheduler::PointwiseParams>(params));
    case SchedulerType::Reduction:
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent:
      return reductionGrid(segment, type, info, std::get<scheduler::ReductionParams>(params));
    case SchedulerType::Transpose:
      return transposeGrid(segment, info, std::get<scheduler::TransposeParams>(params));
    default: break;
  }
  FL_USER_ERROR("the ", scheduler::toString(type), " scheduler has no params to tune");
}

}  // namespace

bool isTunable(scheduler::SchedulerType type) {
  using scheduler::SchedulerType;
  return type == SchedulerType::Pointwise || type == SchedulerType::Reduction ||
         type == SchedulerType::InnerPersistent || type == SchedulerType::OuterPersistent ||
         type == SchedulerType::Transpose;
}

std::string numericValueName(const std::string&, int64_t value) { return std::to_string(value); }

int64_t SearchSpace::flatten(const Point& point) const {
  FL_ASSERT(point.size() == knobs.size(), "a point of ", point.size(), " knobs in a space of ",
            knobs.size());
  int64_t flat = 0;
  for (size_t k = 0; k < knobs.size(); ++k) {
    const auto size = static_cast<int64_t>(knobs[k].values.size());
    FL_ASSERT(point[k] >= 0 && point[k] < size, "knob ", knobs[k].name, " has no value ", point[k]);
    flat = flat * size + point[k];
  }
  return flat;
}

void SearchSpace::mapPoint(const Point& point, size_t variant) {
  byPoint_[flatten(point)] = variant;
}

std::optional<size_t> SearchSpace::variantAt(const Point& point) const {
  const auto it = byPoint_.find(flatten(point));
  if (it == byPoint_.end()) return std::nullopt;
  return it->second;
}

int64_t SearchSpace::gridSize() const {
  int64_t size = 1;
  for (const Knob& knob : knobs) size *= static_cast<int64_t>(knob.values.size());
  return size;
}

std::vector<int64_t> SearchSpace::acceptedValues(const std::string& name) const {
  std::set<int64_t> values;
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (knobs[k].name != name) continue;
    for (const Variant& v : variants) values.insert(knobs[k].values[v.point[k]]);
  }
  return {values.begin(), values.end()};
}

report::Json SearchSpace::toJson() const {
  report::Json json = report::Json::object();
  json.set("scheduler", std::string(scheduler::toString(scheduler)));
  report::Json knobList = report::Json::array();
  for (const Knob& knob : knobs) {
    report::Json k = report::Json::object();
    k.set("name", knob.name);
    k.set("values", report::Json::arrayOf(knob.values));
    k.set("accepted_values", report::Json::arrayOf(acceptedValues(knob.name)));
    knobList.push(std::move(k));
  }
  json.set("knobs", std::move(knobList));
  json.set("grid_points", gridSize());
  json.set("refused_points", refusedPoints);
  json.set("refusal_samples", report::Json::arrayOf(refusalSamples));
  report::Json list = report::Json::array();
  for (const Variant& v : variants) {
    report::Json item = report::Json::object();
    item.set("id", static_cast<int64_t>(v.id));
    item.set("default", v.isDefault);
    item.set("params_hash", v.paramsHash);
    item.set("label", v.label);
    item.set("params", scheduler::paramsToJson(v.params));
    list.push(std::move(item));
  }
  json.set("variants", std::move(list));
  return json;
}

SearchSpace buildSearchSpace(const ir::Fusion& segment, scheduler::SchedulerType type,
                             const scheduler::SegmentRuntimeInfo& info,
                             const scheduler::HeuristicParams& defaultParams) {
  FL_CHECK(isTunable(type), "the ", scheduler::toString(type), " scheduler has no params to tune");
  KnobGrid grid = gridFor(segment, type, info, defaultParams);
  FL_ASSERT(grid.defaultValues.size() == grid.knobs.size(),
            "a knob grid without the default's value of every knob");
  SearchSpace space;
  space.scheduler = type;
  // Every knob lists the default's value, so the default is a grid point
  // (coordinate descent starts there).
  for (size_t k = 0; k < grid.knobs.size(); ++k) {
    auto& values = grid.knobs[k].values;
    values.push_back(grid.defaultValues[k]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    const auto at = std::find(values.begin(), values.end(), grid.defaultValues[k]);
    space.defaultPoint.push_back(at - values.begin());
  }
  space.knobs = grid.knobs;

  const scheduler::Scheduler& scheduler = scheduler::schedulerFor(type);
  std::map<std::string, size_t> byHash;
  auto add = [&](scheduler::HeuristicParams params, const Point& point, bool isDefault,
                 std::vector<int64_t> values) {
    Variant v;
    v.id = space.variants.size();
    v.paramsHash = db::hex64(scheduler::paramsHash(params));
    v.params = std::move(params);
    v.isDefault = isDefault;
    v.point = point;
    v.label = labelOf(grid, values);
    byHash[v.paramsHash] = v.id;
    space.variants.push_back(std::move(v));
    return space.variants.back().id;
  };
  add(defaultParams, space.defaultPoint, true, grid.defaultValues);
  space.mapPoint(space.defaultPoint, 0);

  Point point(space.knobs.size(), 0);
  const int64_t total = space.gridSize();
  for (int64_t n = 0; n < total; ++n) {
    // Mixed-radix counting, last knob fastest.
    int64_t rest = n;
    for (size_t k = space.knobs.size(); k-- > 0;) {
      const auto size = static_cast<int64_t>(space.knobs[k].values.size());
      point[k] = rest % size;
      rest /= size;
    }
    if (point == space.defaultPoint) continue;
    std::vector<int64_t> values;
    for (size_t k = 0; k < space.knobs.size(); ++k) {
      values.push_back(space.knobs[k].values[point[k]]);
    }
    scheduler::HeuristicParams params = grid.materialize(values);
    if (auto why = scheduler.rejectParams(segment, info, params)) {
      ++space.refusedPoints;
      if (space.refusalSamples.size() < kRefusalSamples) {
        space.refusalSamples.push_back(labelOf(grid, values) + ": " + *why);
      }
      continue;
    }
    const std::string hash = db::hex64(scheduler::paramsHash(params));
    if (auto it = byHash.find(hash); it != byHash.end()) {
      space.mapPoint(point, it->second);
      continue;
    }
    space.mapPoint(point, add(std::move(params), point, false, values));
  }
  return space;
}

}  // namespace fuserlab::tuner
