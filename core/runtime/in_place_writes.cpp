#include "core/runtime/in_place_writes.h"

#include <vector>

#include "core/ir/expr.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::runtime {
namespace {

bool isElementwise(ir::ExprType type) {
  switch (type) {
    case ir::ExprType::Unary:
    case ir::ExprType::Binary:
    case ir::ExprType::Ternary:
    case ir::ExprType::Cast:
    case ir::ExprType::Set:
      return true;
    default:
      return false;
  }
}

//! Same rank and the same broadcast axes: each element of `out` reads the
//! element of `in` at its own index.
bool sameAxes(const ir::TensorView& in, const ir::TensorView& out) {
  const auto& a = in.logical();
  const auto& b = out.logical();
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->isBroadcast() != b[i]->isBroadcast()) return false;
  }
  return true;
}

}  // namespace

bool readsOnlyInPlace(const ir::Fusion& segment, const ir::Val* input,
                      scheduler::SchedulerType scheduler) {
  if (scheduler != scheduler::SchedulerType::Pointwise) return false;
  std::vector<const ir::Val*> pending = {input};
  std::vector<const ir::Val*> seen;
  while (!pending.empty()) {
    const ir::Val* val = pending.back();
    pending.pop_back();
    const auto* tv = val->as<ir::TensorView>();
    if (tv == nullptr) return false;
    for (const ir::Expr* use : val->uses()) {
      if (use->fusion() != &segment) continue;
      if (!isElementwise(use->type())) return false;
      for (const ir::Val* out : use->outputs()) {
        const auto* outTv = out->as<ir::TensorView>();
        if (outTv == nullptr || !sameAxes(*tv, *outTv)) return false;
        bool known = false;
        for (const ir::Val* s : seen) known = known || s == out;
        if (!known) {
          seen.push_back(out);
          pending.push_back(out);
        }
      }
    }
  }
  return true;
}

}  // namespace fuserlab::runtime
