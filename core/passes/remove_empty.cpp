#include "core/passes/remove_empty.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ops/alias.h"
#include "core/ops/factory.h"
#include "core/ops/operand_checks.h"
#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::DataType;
using ir::Expr;
using ir::ExprType;
using ir::Scalar;
using ir::TensorView;

class EmptyTensorRemover {
 public:
  EmptyTensorRemover(ir::Fusion& fusion, PassRecord& record) : fusion_(fusion), record_(record) {}

  // Rewrites until nothing changes, outputs first: replacing an empty output
  // makes everything that only fed it dead, so it is never visited.
  void run() {
    bool changed = true;
    while (changed) {
      changed = false;
      const std::vector<Expr*> exprs = fusion_.exprsForOutputs();
      for (auto it = exprs.rbegin(); it != exprs.rend() && !changed; ++it) {
        changed = rewrite(*it);
      }
    }
  }

 private:
  bool rewrite(Expr* expr) {
    if (expr->type() == ExprType::Full) return false;
    if (replaceEmptyOutputs(expr)) return true;
    switch (expr->type()) {
      case ExprType::Reduction: return replaceEmptyReduction(expr);
      case ExprType::Welford: return replaceEmptyWelford(expr);
      case ExprType::Cat: return dropEmptyCatInputs(expr);
      case ExprType::Pad: return replaceEmptyPad(expr);
      case ExprType::Matmul:
      case ExprType::Linear: return replaceEmptyContraction(expr);
      default: return false;
    }
  }

  // A constant (or constant-folding) zero: evaluated without any inputs
  // bound, so symbolic extents are simply unknown.
  bool isZero(const Scalar* extent) const {
    if (extent->isConst()) return extent->isConstInt(0);
    if (extent->definition() == nullptr) return false;  // bound at run time
    try {
      auto value = evaluator_.evaluate(extent);
      const auto* i = value ? std::get_if<int64_t>(&*value) : nullptr;
      return i != nullptr && *i == 0;
    } catch (const UserError&) {
      return false;  // e.g. a division by zero: not provably empty
    }
  }

  std::optional<size_t> firstEmptyAxis(const TensorView* tv) const {
    const auto& axes = tv->logicalNoReductions();
    for (size_t i = 0; i < axes.size(); ++i) {
      if (isZero(axes[i]->extentForIteration())) return i;
    }
    return std::nullopt;
  }

  bool isLive(const ir::Val* val) const { return !val->uses().empty() || fusion_.isOutput(val); }

  std::vector<Scalar*> shapeOf(const TensorView* tv) const {
    std::vector<Scalar*> shape;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      shape.push_back(id->extentForIteration());
    }
    return shape;
  }

  Scalar* zeroOf(DataType dtype) {
    if (dtype == DataType::Bool) return fusion_.constBool(false);
    if (ir::isIntegral(dtype)) return fusion_.constInt(0);
    return fusion_.constDouble(0.0);
  }

  // The value a reduction starts from: the result over no elements.
  Scalar* initOf(ir::ReductionOpType op, DataType dtype) {
    const bool max = op == ir::ReductionOpType::Max;
    switch (op) {
      case ir::ReductionOpType::Sum: return zeroOf(dtype);
      case ir::ReductionOpType::Prod:
        if (dtype == DataType::Bool) return fusion_.constBool(true);
        return ir::isIntegral(dtype) ? fusion_.constInt(1) : fusion_.constDouble(1.0);
      case ir::ReductionOpType::Max:
      case ir::ReductionOpType::Min:
        if (dtype == DataType::Bool) return fusion_.constBool(!max);
        if (dtype == DataType::Int32) {
          return fusion_.constInt(max ? std::numeric_limits<int32_t>::min()
                                      : std::numeric_limits<int32_t>::max());
        }
        if (dtype == DataType::Int) {
          return fusion_.constInt(max ? std::numeric_limits<int64_t>::min()
                                      : std::numeric_limits<int64_t>::max());
        }
        return fusion_.constDouble(max ? -std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::infinity());
      case ir::ReductionOpType::LogSumExp:  // the max's -inf plus log(0)
        return fusion_.constDouble(-std::numeric_limits<double>::infinity());
    }
    FL_ASSERT(false, "unknown reduction op");
    return nullptr;
  }

  // Redirects every use of `old` (and the output slot it fills) to a fresh
  // full of `fill`; an output keeps the layout it was given.
  TensorView* replaceByFull(TensorView* old, Scalar* fill) {
    TensorView* full = ops::full(fusion_, shapeOf(old), fill, old->dtype());
    const std::vector<int64_t> order = old->strideOrder();
    if (fusion_.isOutput(old) && !order.empty()) full->setStrideOrder(order);
    fusion_.replaceAllUsesWith(old, full);
    return full;
  }

  static std::string fullText(const TensorView* full) {
    return full->name() + " = full(" + ops::shapeToString(full) + ", " +
           full->definition()->inputs().back()->name() + ")";
  }

  static std::string exprText(const Expr* expr) {
    std::string out;
    for (size_t i = 0; i < expr->outputs().size(); ++i) {
      out += (i ? ", " : "") + expr->output(i)->name();
    }
    out += " = " + expr->opName() + "(";
    bool first = true;
    for (const ir::Val* in : expr->inputs()) {
      if (!in->isA<TensorView>()) continue;
      out += (first ? "" : ", ") + in->name();
      first = false;
    }
    return out + ")";
  }

  void finish(std::string line, const std::vector<ir::Val*>& replaced) {
    record_.rewrites.push_back(std::move(line));
    removeDeadDefinitions(fusion_, replaced);
  }

  bool replaceEmptyOutputs(Expr* expr) {
    std::vector<ir::Val*> replaced;
    std::string fulls;
    std::string why;
    for (ir::Val* out : expr->outputs()) {
      auto* tv = out->as<TensorView>();
      if (tv == nullptr || !isLive(tv)) continue;
      auto axis = firstEmptyAxis(tv);
      if (!axis) continue;
      if (why.empty()) {
        why = tv->name() + " " + ops::shapeToString(tv) + " has no elements (axis " +
              std::to_string(*axis) + " has extent 0)";
      }
      TensorView* full = replaceByFull(tv, zeroOf(tv->dtype()));
      fulls += (fulls.empty() ? "" : ", ") + fullText(full);
      replaced.push_back(tv);
    }
    if (replaced.empty()) return false;
    finish("replaced " + exprText(expr) + " by " + fulls + ": " + why, replaced);
    return true;
  }

  // For reductions and welfords: the empty axis of the input, which must be
  // reduced (an empty kept axis makes the output empty, handled above).
  std::optional<size_t> emptyReducedAxis(const Expr* expr) const {
    return firstEmptyAxis(expr->input(0)->as<TensorView>());
  }

  std::string reducesEmpty(const Expr* expr, size_t axis) const {
    return "it reduces axis " + std::to_string(axis) + " of " + expr->input(0)->name() +
           ", which has extent 0";
  }

  bool replaceEmptyReduction(Expr* expr) {
    auto axis = emptyReducedAxis(expr);
    auto* out = expr->output(0)->as<TensorView>();
    if (!axis || !isLive(out)) return false;
    TensorView* full = replaceByFull(out, initOf(expr->attrs().reductionOp, out->dtype()));
    finish(
        "replaced " + exprText(expr) + " by " + fullText(full) + ": " + reducesEmpty(expr, *axis),
        {out});
    return true;
  }

  bool replaceEmptyWelford(Expr* expr) {
    auto axis = emptyReducedAxis(expr);
    if (!axis) return false;
    std::vector<ir::Val*> replaced;
    std::string fulls;
    for (size_t i = 0; i < expr->outputs().size(); ++i) {
      auto* tv = expr->output(i)->as<TensorView>();
      if (!isLive(tv)) continue;
      // avg = sum / N is 0/0; var_sum and the count are sums over nothing.
      Scalar* fill = i == 0 ? fusion_.constDouble(std::numeric_limits<double>::quiet_NaN())
                            : zeroOf(tv->dtype());
      TensorView* full = replaceByFull(tv, fill);
      fulls += (fulls.empty() ? "" : ", ") + fullText(full);
      replaced.push_back(tv);
    }
    if (replaced.empty()) return false;
    finish("replaced " + exprText(expr) + " by " + fulls + ": " + reducesEmpty(expr, *axis),
           replaced);
    return true;
  }

  bool dropEmptyCatInputs(Expr* expr) {
    const auto dim = static_cast<size_t>(expr->attrs().dim);
    std::vector<TensorView*> kept;
    std::string dropped;
    int droppedCount = 0;
    for (ir::Val* in : expr->inputs()) {
      auto* tv = in->as<TensorView>();
      if (isZero(tv->logicalNoReductions().at(dim)->extentForIteration())) {
        dropped += (dropped.empty() ? "" : ", ") + tv->name();
        ++droppedCount;
      } else {
        kept.push_back(tv);
      }
    }
    // No input left means an empty output, which replaceEmptyOutputs took.
    if (dropped.empty() || kept.empty()) return false;
    auto* out = expr->output(0)->as<TensorView>();
    TensorView* replacement =
        kept.size() == 1 ? ops::set(kept[0]) : ops::cat(kept, static_cast<int64_t>(dim));
    fusion_.replaceAllUsesWith(out, replacement);
    finish("replaced " + exprText(expr) + " by " + exprText(replacement->definition()) + ": " +
               dropped + (droppedCount > 1 ? " have" : " has") +
               " extent 0 along the concatenated axis " + std::to_string(dim),
           {out});
    return true;
  }

  bool replaceEmptyPad(Expr* expr) {
    auto* in = expr->input(0)->as<TensorView>();
    auto* out = expr->output(0)->as<TensorView>();
    auto axis = firstEmptyAxis(in);
    if (!axis || !isLive(out)) return false;
    TensorView* full = replaceByFull(out, expr->input(1)->as<Scalar>());
    finish("replaced " + exprText(expr) + " by " + fullText(full) + ": " + in->name() +
               " has no elements (axis " + std::to_string(*axis) +
               " has extent 0), so every element is padding",
           {out});
    return true;
  }

  bool replaceEmptyContraction(Expr* expr) {
    // linear with a bias would need the bias broadcast; left alone.
    if (expr->type() == ExprType::Linear && expr->inputs().size() > 2) {
      return false;
    }
    auto* a = expr->input(0)->as<TensorView>();
    auto* out = expr->output(0)->as<TensorView>();
    const auto& axes = a->logicalNoReductions();
    if (axes.empty() || !isZero(axes.back()->extentForIteration()) || !isLive(out)) {
      return false;
    }
    TensorView* full = replaceByFull(out, zeroOf(out->dtype()));
    finish("replaced " + exprText(expr) + " by " + fullText(full) +
               ": its contraction axis K (the last axis of " + a->name() + ") has extent 0",
           {out});
    return true;
  }

  ir::Fusion& fusion_;
  PassRecord& record_;
  ir::ExpressionEvaluator evaluator_;
};

}  // namespace

std::string_view RemoveEmptyPass::description() const {
  return "Replaces tensors with a constant zero extent by `full` (reductions "
         "over an empty axis by their init value) and removes the work that "
         "only fed them.";
}

void RemoveEmptyPass::run(ir::Fusion& fusion, const PassOptions& options,
                          PassRecord& record) const {
  EmptyTensorRemover(fusion, record).run();
}

}  // namespace fuserlab::passes
