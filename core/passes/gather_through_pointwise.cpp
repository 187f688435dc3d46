#include "core/passes/gather_through_pointwise.h"

#include <optional>
#include <string>
#include <vector>

#include "core/ir/elementwise.h"
#include "core/ops/broadcast_shape.h"
#include "core/ops/factory.h"
#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::TensorView;
using ir::Val;

bool isElementwise(const Expr* expr) {
  return expr != nullptr && ir::isElementwiseMath(expr->type());
}

bool broadcastAlong(const TensorView* tv, int64_t dim) {
  return tv->logicalNoReductions().at(static_cast<size_t>(dim))->isBroadcast();
}

// What `tv`, broadcast along `dim`, was expanded from; `tv` itself when no
// Expand op made it.
TensorView* beforeExpand(TensorView* tv) {
  while (tv->definition() != nullptr && tv->definition()->type() == ExprType::Expand) {
    tv = tv->definition()->input(0)->as<TensorView>();
  }
  return tv;
}

// A value broadcast along `dim` that is the same at every index: extent 1
// there, not expanded.
bool sameAlong(const TensorView* tv, int64_t dim) {
  const ir::IterDomain* axis = tv->logicalNoReductions().at(static_cast<size_t>(dim));
  return axis->isBroadcast() && !axis->hasExpandedExtent();
}

// Whether every tensor operand below `tv` that Pusher::push reaches has
// `rank` axes, so each rewritten expression lines its operands up as the
// original did (and each gather of one is well formed).
bool sameRankBelow(TensorView* tv, int64_t rank, int64_t dim) {
  if (tv->rank() != rank) return false;
  if (broadcastAlong(tv, dim)) tv = beforeExpand(tv);
  const Expr* def = tv->definition();
  if (sameAlong(tv, dim) || !isElementwise(def)) return tv->rank() == rank;
  for (Val* in : def->inputs()) {
    auto* operand = in->as<TensorView>();
    if (operand != nullptr && !sameRankBelow(operand, rank, dim)) return false;
  }
  return true;
}

class Pusher {
 public:
  Pusher(TensorView* index, int64_t dim) : index_(index), dim_(dim) {}

  //! `tv` at the gathered positions.
  Val* push(TensorView* tv) {
    // The same value along the row: what was expanded along it, if that
    // has extent 1 there. An input expanded along it, or an expression of
    // expanded operands, is gathered (or its operands are) as any other.
    if (broadcastAlong(tv, dim_)) tv = beforeExpand(tv);
    if (sameAlong(tv, dim_)) return tv;
    const Expr* def = tv->definition();
    if (!isElementwise(def)) return ops::takeAlongAxis(tv, index_, dim_);
    std::vector<Val*> inputs;
    for (Val* in : def->inputs()) {
      auto* operand = in->as<TensorView>();
      inputs.push_back(operand == nullptr ? in : push(operand));
    }
    Val* out = ops::newElementwiseOutput(def->opName(), inputs, tv->dtype());
    tv->fusion()->newExpr(def->type(), inputs, {out}, def->attrs());
    return out;
  }

 private:
  TensorView* index_;
  int64_t dim_;
};

// A gather whose source is an elementwise expression used by it alone.
bool pushable(const ir::Fusion& fusion, Expr* gather) {
  if (gather->type() != ExprType::Gather) return false;
  auto* source = gather->input(0)->as<TensorView>();
  if (source == nullptr || fusion.isOutput(source) || source->uses().size() != 1 ||
      !isElementwise(source->definition()) || broadcastAlong(source, gather->attrs().dim)) {
    return false;
  }
  return sameRankBelow(source, source->rank(), gather->attrs().dim);
}

// Whether `pushed` has the gather output's extents (constant ones compared;
// broadcast axes match broadcast axes).
bool sameShape(const TensorView* pushed, const TensorView* gathered) {
  if (pushed->rank() != gathered->rank()) return false;
  for (int64_t i = 0; i < pushed->rank(); ++i) {
    const ir::IterDomain* a = pushed->logicalNoReductions()[static_cast<size_t>(i)];
    const ir::IterDomain* b = gathered->logicalNoReductions()[static_cast<size_t>(i)];
    if (a->isBroadcast() != b->isBroadcast() || a->hasExpandedExtent() != b->hasExpandedExtent()) {
      return false;
    }
    if (a->isBroadcast() && !a->hasExpandedExtent()) continue;
    const std::optional<int64_t> x = a->extentForIteration()->constInt();
    const std::optional<int64_t> y = b->extentForIteration()->constInt();
    if (x && y && *x != *y) return false;
  }
  return true;
}

}  // namespace

std::string_view GatherThroughPointwisePass::description() const {
  return "Moves take_along_axis of an elementwise expression onto its operands "
         "(take_along_axis(f(a, b), i) -> f(take_along_axis(a, i), b) for b broadcast along the "
         "axis), so only the picked elements are computed, not the whole tensor.";
}

void GatherThroughPointwisePass::run(ir::Fusion& fusion, const PassOptions& /*options*/,
                                     PassRecord& record) const {
  // Each rewrite removes exprs, so the walk starts over after it.
  for (bool changed = true; changed;) {
    changed = false;
    for (Expr* gather : fusion.exprsForOutputs()) {
      if (!pushable(fusion, gather)) continue;
      auto* source = gather->input(0)->as<TensorView>();
      auto* gathered = gather->output(0)->as<TensorView>();
      Pusher pusher(gather->input(1)->as<TensorView>(), gather->attrs().dim);
      auto* pushed = pusher.push(source)->as<TensorView>();
      if (pushed == nullptr || !sameShape(pushed, gathered)) {
        removeDeadDefinitions(fusion, {pushed});
        continue;
      }
      record.rewrites.push_back(
          gathered->name() + " = take_along_axis(" + source->name() + ", " +
          gather->input(1)->name() + ", dim=" + std::to_string(gather->attrs().dim) +
          ") is computed as " + pushed->name() + " from the gathered operands of " +
          source->name() + " = " + source->definition()->opName() + "(...)");
      fusion.replaceAllUsesWith(gathered, pushed);
      removeDeadDefinitions(fusion, {gathered});
      changed = true;
      break;
    }
  }
}

}  // namespace fuserlab::passes
