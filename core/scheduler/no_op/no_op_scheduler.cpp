#include "core/scheduler/no_op/no_op_scheduler.h"

#include "core/ir/error.h"
#include "core/scheduler/expr_summary.h"

namespace fuserlab::scheduler {
namespace {

constexpr const char* kWhatNoOpTakes =
    "no_op only takes segments whose outputs are segment inputs or empty "
    "tensors";

// The outputs the segment has to produce: not a plain input handed back.
std::vector<const ir::Val*> computedOutputs(const ir::Fusion& segment) {
  std::vector<const ir::Val*> out;
  for (const ir::FusionOutput& output : segment.outputs()) {
    if (segment.isInput(output.val) && output.aliasOf == nullptr) continue;
    out.push_back(output.val);
  }
  return out;
}

std::string definedBy(const ir::Val* val) {
  return val->definition() != nullptr ? " (" + exprSummary(*val->definition()) + ")"
                                      : std::string();
}

}  // namespace

std::optional<std::string> NoOpScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  for (const ir::Val* val : computedOutputs(segment)) {
    const auto* tv = val->as<ir::TensorView>();
    if (tv == nullptr) {
      return "output " + val->name() + " is a scalar the segment computes" + definedBy(val) + "; " +
             kWhatNoOpTakes;
    }
    bool mayBeEmpty = false;
    std::string shape;
    for (const ir::IterDomain* id : tv->logicalNoReductions()) {
      const ir::Scalar* extent = id->extentForIteration();
      mayBeEmpty = mayBeEmpty || !extent->isConst() || extent->isConstInt(0);
      shape += (shape.empty() ? "" : ", ") + extent->name();
    }
    if (!mayBeEmpty) {
      return "output " + tv->name() + " of shape [" + shape + "] is computed by the segment" +
             definedBy(tv) + " and has no zero extent; " + kWhatNoOpTakes;
    }
  }
  return std::nullopt;
}

std::optional<std::string> NoOpScheduler::rejectRunTime(const ir::Fusion& segment,
                                                        const SegmentRuntimeInfo& info) const {
  FL_ASSERT(info.evaluator != nullptr, "no_op's run-time check needs bound sizes");
  for (const ir::Val* val : computedOutputs(segment)) {
    const auto* tv = val->as<ir::TensorView>();
    FL_ASSERT(tv != nullptr, "rejectRunTime after a failed compile-time check");
    bool empty = false;
    std::string shape;
    for (const ir::IterDomain* id : tv->logicalNoReductions()) {
      const int64_t extent = info.evaluator->evaluateExtent(id);
      empty = empty || extent == 0;
      shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
    }
    if (!empty) {
      return "output " + tv->name() + " has shape [" + shape +
             "] at these sizes (not empty) and is computed by the segment" + definedBy(tv) + "; " +
             kWhatNoOpTakes;
    }
  }
  return std::nullopt;
}

HeuristicParams NoOpScheduler::computeHeuristics(const ir::Fusion& segment,
                                                 const SegmentRuntimeInfo& info) const {
  return std::monostate{};
}

std::optional<std::string> NoOpScheduler::rejectParams(const ir::Fusion& segment,
                                                       const SegmentRuntimeInfo& info,
                                                       const HeuristicParams& params) const {
  if (std::holds_alternative<std::monostate>(params)) return std::nullopt;
  return "no_op takes no params, but " + std::string(paramsKind(params)) + " params were given";
}

}  // namespace fuserlab::scheduler
