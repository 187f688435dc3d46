#include "core/ops/sorting.h"

#include "core/ir/error.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::Fusion;
using ir::IterDomain;
using ir::TensorView;

// `dim` normalized; a 0-dim tensor takes 0 or -1 (its one element).
int64_t sortedAxis(std::string_view op, const TensorView* x, int64_t dim) {
  if (x->rank() == 0) {
    FL_CHECK(dim == 0 || dim == -1, op, ": dim ", dim, " is out of range for ", describeVal(x),
             ", which is 0-dim (expected 0 or -1)");
    return 0;
  }
  return normalizeAxis(op, x, dim);
}

}  // namespace

TensorView* argsort(TensorView* x, int64_t dim, bool descending, bool stable) {
  constexpr std::string_view kOp = "argsort";
  checkPresent(kOp, x, "the input");
  const int64_t axis = sortedAxis(kOp, x, dim);
  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> axes;
  for (const IterDomain* id : x->logicalNoReductions()) {
    axes.push_back(fusion->cloneIterDomain(id));
  }
  TensorView* out = fusion->newTensorView(axes, ir::DataType::Int);
  ir::ExprAttrs attrs;
  attrs.dim = axis;
  attrs.flags = {descending, stable};
  fusion->newExpr(ir::ExprType::Argsort, {x}, {out}, attrs);
  return out;
}

TopKResult topk(TensorView* x, ir::Scalar* k, int64_t dim, bool largest, bool sorted) {
  constexpr std::string_view kOp = "topk";
  checkPresent(kOp, x, "the input");
  checkIntegralScalar(kOp, k, "k");
  const int64_t axis = sortedAxis(kOp, x, dim);
  Fusion* fusion = x->fusion();
  const auto& inAxes = x->logicalNoReductions();
  if (const auto constant = k->constInt()) {
    FL_CHECK(x->rank() != 0 || *constant == 1, kOp, ": k is ", *constant, " but ", describeVal(x),
             " is 0-dim; its top k has exactly one element (k=1)");
    const std::optional<int64_t> extent =
        x->rank() == 0 ? std::optional<int64_t>(1) : constExtent(inAxes[static_cast<size_t>(axis)]);
    FL_CHECK(*constant >= 0 && (!extent || *constant <= *extent), kOp, ": k is ", *constant,
             " but axis ", axis, " of ", describeVal(x), " ", shapeToString(x), " has ",
             extent ? std::to_string(*extent) : "?", " elements; expected 0 <= k <= that size");
  }
  TopKResult result;
  for (TensorView** out : {&result.values, &result.indices}) {
    std::vector<IterDomain*> axes;
    for (size_t i = 0; i < inAxes.size(); ++i) {
      axes.push_back(static_cast<int64_t>(i) == axis
                         ? fusion->newIterDomain(k, ir::IterType::Iteration)
                         : fusion->cloneIterDomain(inAxes[i]));
    }
    *out = fusion->newTensorView(axes, out == &result.values ? x->dtype() : ir::DataType::Int);
  }
  ir::ExprAttrs attrs;
  attrs.dim = axis;
  attrs.flags = {largest, sorted};
  fusion->newExpr(ir::ExprType::TopK, {x, k}, {result.values, result.indices}, attrs);
  return result;
}

}  // namespace fuserlab::ops
