#include "core/scheduler/analysis/row_gather.h"

#include <algorithm>

#include "core/ir/evaluator.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::scheduler {
namespace {

using ir::ExprType;
using ir::TensorView;

bool contains(const std::vector<const TensorView*>& tvs, const TensorView* tv) {
  return std::find(tvs.begin(), tvs.end(), tv) != tvs.end();
}

std::string gatherName(const ir::Expr& expr) { return "take_along_axis " + expr.output(0)->name(); }

// Why `use`, which reads a value only one thread of the row holds, cannot be
// computed from it; empty if it can (one value per row in, one out).
std::string refusedUse(const ir::Expr& use, const TensorView* tv) {
  switch (use.type()) {
    case ExprType::Reduction:
    case ExprType::Welford:
      return std::string(ir::toString(use.type())) + " " + use.output(0)->name() + " reduces " +
             tv->name();
    case ExprType::Gather:
    case ExprType::IndexSelect:
    case ExprType::Scatter:
    case ExprType::IndexPutAccumulate:
    case ExprType::Embedding:
      return std::string(ir::toString(use.type())) + " " + use.output(0)->name() + " reads " +
             tv->name();
    case ExprType::Expand:
      return "expand " + use.output(0)->name() + " spreads " + tv->name() + " along the row";
    default: return {};
  }
}

// Whether `tv` is a tensor input of the segment or computed from one. A
// source computed from constants alone (full) is a per-row value to the
// kernel, which has no element of it to pick (difftest seed 440346).
bool readsATensorInput(const TensorView* tv) {
  std::vector<const TensorView*> stack{tv};
  std::vector<const TensorView*> seen;
  while (!stack.empty()) {
    const TensorView* t = stack.back();
    stack.pop_back();
    if (contains(seen, t)) continue;
    seen.push_back(t);
    if (t->isFusionInput()) return true;
    if (t->definition() == nullptr) continue;
    for (const ir::Val* in : t->definition()->inputs()) {
      if (const auto* producer = in->as<TensorView>()) stack.push_back(producer);
    }
  }
  return false;
}

}  // namespace

RowGatherResult findRowGathers(const ir::Fusion& segment, const ReductionPattern& pattern) {
  RowGatherResult result;
  const std::vector<ir::Expr*> live = liveExprs(segment);
  auto isLive = [&](const ir::Expr* e) {
    return std::find(live.begin(), live.end(), e) != live.end();
  };
  for (const ir::Expr* expr : live) {
    if (expr->type() != ExprType::Gather) continue;
    RowGather g;
    g.expr = expr;
    g.source = expr->input(0)->as<TensorView>();
    g.index = expr->input(1)->as<TensorView>();
    g.output = expr->output(0)->as<TensorView>();
    g.dim = expr->attrs().dim;
    const std::string name = gatherName(*expr);
    auto refuse = [&](const std::string& why) {
      result.gathers.clear();
      result.reason = name + " " + why +
                      "; an inner persistent kernel gathers only one element "
                      "per row along its reduced axis (the rest belongs in a "
                      "pointwise segment)";
      return result;
    };
    if (!pattern.innermost || pattern.axes.size() != 1) {
      return refuse("is in a segment reducing " +
                    std::string(pattern.innermost ? "the innermost " : "outer ") +
                    pattern.axesDescription());
    }
    if (g.source->rank() != pattern.rank || g.dim != pattern.axes[0]) {
      return refuse("gathers along axis " + std::to_string(g.dim) + " of the rank-" +
                    std::to_string(g.source->rank()) + " " + g.source->name() +
                    ", not along the reduced " + pattern.axesDescription());
    }
    if (!readsATensorInput(g.source)) {
      return refuse("picks from " + g.source->name() +
                    ", which no tensor input feeds (a constant row: nothing moves along it)");
    }
    const ir::IterDomain* indexed = g.index->logicalNoReductions().at(static_cast<size_t>(g.dim));
    const auto constant = indexed->extentForIteration()->constInt();
    if (!indexed->isBroadcast() && constant && *constant != 1) {
      return refuse("takes " + std::to_string(*constant) + " elements per row (index " +
                    g.index->name() + " has extent " + std::to_string(*constant) + " on axis " +
                    std::to_string(g.dim) + ")");
    }
    // What only the owning thread holds: the output and what is computed
    // from it.
    std::vector<const TensorView*> stack{g.output};
    while (!stack.empty()) {
      const TensorView* tv = stack.back();
      stack.pop_back();
      if (contains(g.dependents, tv)) continue;
      for (const RowGather& other : result.gathers) {
        if (contains(other.dependents, tv)) {
          return refuse("and " + gatherName(*other.expr) + " both reach " + tv->name() +
                        ", whose parts two threads would hold");
        }
      }
      g.dependents.push_back(tv);
      for (const ir::Expr* use : tv->uses()) {
        if (!isLive(use)) continue;
        const std::string why = refusedUse(*use, tv);
        if (!why.empty()) {
          return refuse(
              "gives one value per row, held by the thread whose "
              "element it is, but " +
              why);
        }
        for (const ir::Val* out : use->outputs()) {
          if (const auto* consumer = out->as<TensorView>()) {
            stack.push_back(consumer);
          }
        }
      }
    }
    std::sort(g.dependents.begin(), g.dependents.end(),
              [&](const TensorView* a, const TensorView* b) { return a->id() < b->id(); });
    result.gathers.push_back(std::move(g));
  }
  return result;
}

std::vector<const TensorView*> rowGatherIndexInputs(const ir::Fusion& segment,
                                                    const std::vector<RowGather>& gathers) {
  std::vector<const TensorView*> inputs;
  std::vector<const TensorView*> seen;
  std::vector<const TensorView*> stack;
  for (const RowGather& g : gathers) stack.push_back(g.index);
  while (!stack.empty()) {
    const TensorView* tv = stack.back();
    stack.pop_back();
    if (contains(seen, tv)) continue;
    seen.push_back(tv);
    if (segment.isInput(tv)) {
      inputs.push_back(tv);
      continue;
    }
    const ir::Expr* def = tv->definition();
    if (def == nullptr || def->type() == ExprType::Reduction || def->type() == ExprType::Welford) {
      continue;
    }
    for (const ir::Val* in : def->inputs()) {
      if (const auto* producer = in->as<TensorView>()) stack.push_back(producer);
    }
  }
  return inputs;
}

std::optional<std::string> rejectRowGatherExtents(const ir::Fusion& segment,
                                                  const ReductionPattern& pattern,
                                                  const std::vector<RowGather>& gathers,
                                                  const ir::ExpressionEvaluator& evaluator) {
  if (gathers.empty()) return std::nullopt;
  const TensorView* reference = pattern.reference();
  const AxisTrace trace(segment, reference, &evaluator);
  const ir::IterDomain* reduced =
      reference->logicalNoReductions().at(static_cast<size_t>(pattern.axes.at(0)));
  const auto& refAxes = trace.referenceAxes();
  const size_t refAxis =
      static_cast<size_t>(std::find(refAxes.begin(), refAxes.end(), reduced) - refAxes.begin());
  int64_t rows = 1;
  for (size_t a = 0; a < refAxes.size(); ++a) {
    if (a != refAxis) rows *= std::max<int64_t>(trace.referenceExtents()[a], 0);
  }
  for (const RowGather& g : gathers) {
    const std::string name = gatherName(*g.expr);
    const auto& sourceAxes = g.source->logicalNoReductions();
    const ir::IterDomain* gathered = sourceAxes.at(static_cast<size_t>(g.dim));
    const TensorTrace* traced = trace.find(g.source);
    bool follows =
        traced != nullptr && refAxis < traced->axes.size() && traced->axes[refAxis].size() == 1;
    if (follows) {
      const AxisPiece& piece = traced->axes[refAxis].front();
      follows = piece.kind == PieceKind::Axis && piece.id == gathered && piece.step == 1 &&
                piece.offset == 0 && !piece.resized;
    }
    if (!follows) {
      return name + ": axis " + std::to_string(g.dim) + " of " + g.source->name() +
             " does not walk along the reduced axis of " + reference->name() +
             " element for element, so the thread "
             "holding an element of the row does not know its column";
    }
    const auto& indexAxes = g.index->logicalNoReductions();
    for (size_t a = 0; a < indexAxes.size(); ++a) {
      const int64_t extent = evaluatedExtent(&evaluator, indexAxes[a]).value_or(-1);
      const int64_t wanted = static_cast<int64_t>(a) == g.dim
                                 ? 1
                                 : evaluatedExtent(&evaluator, sourceAxes[a]).value_or(-2);
      if (extent != wanted) {
        return name + ": its index " + g.index->name() + " has extent " + std::to_string(extent) +
               " on axis " + std::to_string(a) + " where a row gather needs " +
               std::to_string(wanted) + " (one index per row of " + g.source->name() + ")";
      }
    }
    for (const TensorView* tv : g.dependents) {
      int64_t elements = 1;
      for (const ir::IterDomain* id : tv->logicalNoReductions()) {
        elements *= evaluatedExtent(&evaluator, id).value_or(-1);
      }
      if (elements != rows) {
        return name + ": " + tv->name() + ", computed from it, has " + std::to_string(elements) +
               " elements, not one per row (" + std::to_string(rows) +
               "); only the thread holding the "
               "gathered element has its value";
      }
    }
  }
  return std::nullopt;
}

}  // namespace fuserlab::scheduler
