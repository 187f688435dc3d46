#include "core/ops/normalization.h"

#include <cmath>
#include <string_view>

#include "core/ir/error.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/operand_checks.h"
#include "core/ops/reduction_domain.h"

namespace fuserlab::ops {
namespace {

using ir::DataType;
using ir::TensorView;

// Welford accumulates in Float (Double for Double inputs), as nvFuser's
// frontend casts reduced-precision and integer inputs before it.
TensorView* welfordInput(TensorView* x) {
  if (x->dtype() == DataType::Float || x->dtype() == DataType::Double) {
    return x;
  }
  return cast(x, DataType::Float)->as<TensorView>();
}

struct WelfordWithAxes {
  WelfordResult result;
  TensorView* input;  // after the upcast
  std::vector<int64_t> axes;
};

WelfordWithAxes welfordFor(std::string_view op, TensorView* x, const std::vector<int64_t>& axes) {
  checkPresent(op, x, "the input");
  std::vector<int64_t> reduced = reductionAxes(op, x, axes);
  FL_CHECK(!reduced.empty(), op, ": no axes of ", describeVal(x), " (rank ", x->rank(),
           ") were given; expected at least one axis to reduce");
  TensorView* in = welfordInput(x);
  ir::Fusion* fusion = in->fusion();
  WelfordResult result;
  result.avg = fusion->newTensorView(reductionDomain(in, reduced), in->dtype());
  result.varSum = fusion->newTensorView(reductionDomain(in, reduced), in->dtype());
  result.count = fusion->newTensorView(reductionDomain(in, reduced), DataType::Int);
  ir::ExprAttrs attrs;
  attrs.axes = reduced;
  fusion->newExpr(ir::ExprType::Welford, {in}, {result.avg, result.varSum, result.count}, attrs);
  return {result, in, reduced};
}

// N - correction, where N is the number of elements each output reduces.
Scalar* divisor(const TensorView* in, const std::vector<int64_t>& axes, double correction) {
  ir::Fusion* fusion = in->fusion();
  const auto& logical = in->logicalNoReductions();
  Scalar* count = fusion->constInt(1);
  for (int64_t axis : axes) {
    count = fusion->scalarBinary(BinaryOpType::Mul, count, logical[axis]->extentForIteration());
  }
  // An integral correction (the usual 0 or 1) keeps constant folding exact.
  Scalar* corr = correction == std::trunc(correction)
                     ? fusion->constInt(static_cast<int64_t>(correction))
                     : fusion->constDouble(correction);
  return fusion->scalarBinary(BinaryOpType::Sub, count, corr);
}

VarMeanResult varMeanFor(std::string_view op, TensorView* x, const std::vector<int64_t>& axes,
                         double correction, bool keepDim) {
  FL_CHECK(std::isfinite(correction) && correction >= 0, op, ": correction is ", correction,
           "; expected a finite, non-negative number");
  WelfordWithAxes w = welfordFor(op, x, axes);
  Scalar* n = divisor(w.input, w.axes, correction);
  TensorView* var = binaryOp(BinaryOpType::Div, w.result.varSum, n)->as<TensorView>();
  TensorView* mean = w.result.avg;
  if (keepDim) {
    const auto flags = keepDimFlags(w.input->rank(), w.axes);
    var = broadcast(var, flags);
    mean = broadcast(mean, flags);
  }
  return {var, mean};
}

}  // namespace

WelfordResult welford(TensorView* x, const std::vector<int64_t>& axes) {
  return welfordFor("welford", x, axes).result;
}

VarMeanResult varMean(TensorView* x, const std::vector<int64_t>& axes, double correction,
                      bool keepDim) {
  return varMeanFor("var_mean", x, axes, correction, keepDim);
}

TensorView* var(TensorView* x, const std::vector<int64_t>& axes, double correction, bool keepDim) {
  return varMeanFor("var", x, axes, correction, keepDim).var;
}

}  // namespace fuserlab::ops
