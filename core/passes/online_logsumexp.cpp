#include "core/passes/online_logsumexp.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ops/arith.h"
#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::BinaryOpType;
using ir::Expr;
using ir::ExprType;
using ir::ReductionOpType;
using ir::TensorView;
using ir::UnaryOpType;

//! A max and the sum of exps shifted by it that L = logsumexp replaces.
struct SoftmaxStatistics {
  Expr* max = nullptr;  // M = max(x)
  Expr* sum = nullptr;  // S = sum(exp(x - broadcast(M)))
  TensorView* x = nullptr;
};

bool isReduction(const Expr* expr, ReductionOpType op) {
  return expr != nullptr && expr->type() == ExprType::Reduction && expr->attrs().reductionOp == op;
}

// The tensor `tv` broadcasts through Broadcast and Expand ops only, if it is
// broadcast along exactly `axes` (and nothing else), else nullptr.
TensorView* broadcastSource(TensorView* tv, const std::vector<int64_t>& axes) {
  const auto& logical = tv->logicalNoReductions();
  for (size_t i = 0; i < logical.size(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (logical[i]->isBroadcast() != reduced) return nullptr;
  }
  while (tv->definition() != nullptr && (tv->definition()->type() == ExprType::Broadcast ||
                                         tv->definition()->type() == ExprType::Expand)) {
    tv = tv->definition()->input(0)->as<TensorView>();
    if (tv == nullptr) return nullptr;
  }
  return tv;
}

// `sum` as S = sum(exp(x - broadcast(max(x)))) over the same axes, if it is.
std::optional<SoftmaxStatistics> match(const ir::Fusion& fusion, Expr* sum) {
  if (!isReduction(sum, ReductionOpType::Sum)) return std::nullopt;
  auto* s = sum->output(0)->as<TensorView>();
  auto* e = sum->input(0)->as<TensorView>();
  if (s == nullptr || e == nullptr || fusion.isOutput(s) || fusion.isOutput(e) ||
      e->uses().size() != 1) {
    return std::nullopt;
  }
  const Expr* exp = e->definition();
  if (exp == nullptr || exp->type() != ExprType::Unary ||
      exp->attrs().unaryOp != UnaryOpType::Exp) {
    return std::nullopt;
  }
  auto* d = exp->input(0)->as<TensorView>();
  const Expr* shift = d == nullptr ? nullptr : d->definition();
  if (shift == nullptr || shift->type() != ExprType::Binary ||
      shift->attrs().binaryOp != BinaryOpType::Sub) {
    return std::nullopt;
  }
  auto* x = shift->input(0)->as<TensorView>();
  auto* shifted = shift->input(1)->as<TensorView>();
  if (x == nullptr || shifted == nullptr ||
      (x->dtype() != ir::DataType::Float && x->dtype() != ir::DataType::Double) ||
      d->dtype() != x->dtype() || e->dtype() != x->dtype() || s->dtype() != x->dtype() ||
      x->rank() != d->rank() || shifted->rank() != x->rank()) {
    return std::nullopt;
  }
  const std::vector<int64_t>& axes = sum->attrs().axes;
  TensorView* m = broadcastSource(shifted, axes);
  Expr* max = m == nullptr ? nullptr : m->definition();
  if (!isReduction(max, ReductionOpType::Max) || max->input(0) != x || max->attrs().axes != axes ||
      m->dtype() != x->dtype()) {
    return std::nullopt;
  }
  return SoftmaxStatistics{max, sum, x};
}

}  // namespace

std::string_view OnlineLogSumExpPass::description() const {
  return "Replaces the sum of exps shifted by a max (a softmax's denominator) by a one-pass "
         "log-sum-exp beside the max: log(sum(exp(x - max(x)))) -> logsumexp(x) - max(x), "
         "so x is read once for both.";
}

void OnlineLogSumExpPass::run(ir::Fusion& fusion, const PassOptions& /*options*/,
                              PassRecord& record) const {
  // Each rewrite removes exprs, so the walk starts over after it.
  while (true) {
    std::optional<SoftmaxStatistics> found;
    for (Expr* expr : fusion.exprsForOutputs()) {
      found = match(fusion, expr);
      if (found) break;
    }
    if (!found) break;
    auto* m = found->max->output(0)->as<TensorView>();
    auto* s = found->sum->output(0)->as<TensorView>();
    TensorView* lse = ops::reduction(ReductionOpType::LogSumExp, found->x, found->max->attrs().axes,
                                     /*keepDim=*/false, ir::DataType::Null);
    ir::Val* logOfSum = ops::binaryOp(BinaryOpType::Sub, lse, m);
    std::string replaced;
    // log(S) is L - M; the other uses read exp(L - M).
    const std::vector<Expr*> uses = s->uses();
    for (Expr* use : uses) {
      if (use->type() != ExprType::Unary || use->attrs().unaryOp != UnaryOpType::Log ||
          use->output(0)->dtype() != s->dtype()) {
        continue;
      }
      ir::Val* log = use->output(0);
      replaced += (replaced.empty() ? "" : ", ") + log->name();
      fusion.replaceAllUsesWith(log, logOfSum);
      // The log is dead now: removed, so that S counts only its live uses.
      removeDeadDefinitions(fusion, {log});
    }
    if (!s->uses().empty()) {
      ir::Val* sum = ops::unaryOp(UnaryOpType::Exp, logOfSum);
      replaced += (replaced.empty() ? "" : ", ") + s->name() + " by exp(" + logOfSum->name() + ")";
      fusion.replaceAllUsesWith(s, sum);
    }
    record.rewrites.push_back(lse->name() + " = logsumexp(" + found->x->name() + ") beside " +
                              m->name() + " = max(" + found->x->name() + "): " + logOfSum->name() +
                              " = " + lse->name() + " - " + m->name() + " replaces " + replaced +
                              "; " + s->name() + " = sum(exp(" + found->x->name() + " - " +
                              m->name() + ")) is gone");
    std::vector<ir::Val*> dead{s};
    removeDeadDefinitions(fusion, dead);
  }
}

}  // namespace fuserlab::passes
