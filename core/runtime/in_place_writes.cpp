#include "core/runtime/in_place_writes.h"

#include <algorithm>
#include <vector>

#include "core/cuda/cuda_memory.h"
#include "core/ir/elementwise.h"
#include "core/ir/expr.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"
#include "core/runtime/device_views.h"

namespace fuserlab::runtime {
namespace {

bool isElementwise(ir::ExprType type) {
  return ir::isElementwiseMath(type) || type == ir::ExprType::Set;
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

bool hasOutputViewOf(const ir::Fusion& fusion, const ir::Val* input) {
  std::vector<const ir::Val*> views = {input};
  for (size_t v = 0; v < views.size(); ++v) {
    for (const ir::Expr* use : views[v]->uses()) {
      if (use->fusion() != &fusion || !isViewOp(use->type())) continue;
      for (const ir::Val* out : use->outputs()) views.push_back(out);
    }
  }
  for (const ir::FusionOutput& output : fusion.outputs()) {
    if (output.aliasOf == nullptr &&
        std::find(views.begin(), views.end(), output.val) != views.end()) {
      return true;
    }
  }
  return false;
}

bool sharesMemory(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    const auto* begin = static_cast<const char*>(t.data());
    return std::make_pair(
        begin, begin + spanElements(t.sizes(), t.strides()) * ir::sizeInBytes(t.dtype()));
  };
  const auto [a0, a1] = range(a);
  const auto [b0, b1] = range(b);
  return a0 < b1 && b0 < a1;
}

}  // namespace fuserlab::runtime
