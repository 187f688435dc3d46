#include "core/segmenter/pointwise_merge_check.h"

#include <algorithm>

#include "core/ir/fusion.h"
#include "core/multidevice/communication.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/segmenter/segment_extraction.h"

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::TensorView;
using ir::Val;

// The ops whose axes the trace pairs by position or by broadcast flags, with
// nothing a segment boundary changes (no reshapes, resizes or index tensors).
bool plainPointwiseOp(const Expr* expr) {
  switch (expr->type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Broadcast:
    case ExprType::Expand: return true;
    case ExprType::Set: return !multidevice::isReshardingSet(expr);
    default: return false;
  }
}

}  // namespace

bool pointwiseTakesWithoutExtraction(const CompleteFusionIndex& index,
                                     const std::vector<ir::Expr*>& exprs,
                                     const ir::ExpressionEvaluator* evaluator) {
  if (evaluator == nullptr || exprs.empty()) return false;
  const ir::Fusion& complete = index.fusion();
  std::vector<uint8_t> inGroup(complete.exprs().size(), 0);
  for (const Expr* expr : exprs) {
    if (!plainPointwiseOp(expr) || index.isReplicated(expr)) return false;
    inGroup[static_cast<size_t>(expr->id())] = 1;
  }
  auto grouped = [&](const Expr* e) { return inGroup[static_cast<size_t>(e->id())] != 0; };

  // The tensors the segment would read (those produced outside the group)
  // and write (in the segment's output order, as extraction finds them).
  std::vector<const TensorView*> tensors;
  for (const Expr* expr : exprs) {
    for (const Val* in : expr->inputs()) {
      const auto* tv = in->as<TensorView>();
      if (tv == nullptr) continue;
      if (tv->hasDeviceMesh()) return false;
      const Expr* def = tv->definition();
      if ((def != nullptr && grouped(def)) || tv->isCpuScalar()) continue;
      if (std::find(tensors.begin(), tensors.end(), tv) == tensors.end()) {
        tensors.push_back(tv);
      }
    }
    for (const Val* o : expr->outputs()) {
      const auto* tv = o->as<TensorView>();
      if (tv != nullptr && tv->hasDeviceMesh()) return false;
    }
  }
  std::vector<const TensorView*> outputs;
  for (const Val* o : segmentOutputs(index, exprs, inGroup)) {
    outputs.push_back(o->as<TensorView>());
  }
  if (outputs.empty()) return false;

  const TensorView* reference = scheduler::largestTensor(outputs, evaluator);
  const scheduler::AxisTrace trace(complete, reference, evaluator, &inGroup);
  for (const TensorView* tv : outputs) {
    if (std::find(tensors.begin(), tensors.end(), tv) == tensors.end()) {
      tensors.push_back(tv);
    }
  }
  return std::all_of(tensors.begin(), tensors.end(),
                     [&](const TensorView* tv) { return trace.uncoveredAxis(tv).empty(); });
}

}  // namespace fuserlab::segmenter
