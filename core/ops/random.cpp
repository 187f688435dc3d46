#include "core/ops/random.h"

#include <string>

#include "core/ir/error.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::DataType;
using ir::ExprType;
using ir::Fusion;
using ir::IterDomain;
using ir::IterType;
using ir::RandomOpType;
using ir::Scalar;
using ir::TensorView;

void checkDtype(std::string_view op, DataType dtype, std::string_view what) {
  FL_CHECK(ir::isFloatingPoint(dtype), op, ": ", what, " is ", ir::toString(dtype),
           "; random distributions only create floating-point tensors (Half, "
           "BFloat16, Float or Double)");
}

void checkParameter(std::string_view op, const Scalar* value, std::string_view what) {
  checkPresent(op, value, what);
  FL_CHECK(ir::isFloatingPoint(value->dtype()) || ir::isIntegral(value->dtype()), op, ": ", what,
           " ", describeVal(value), " is ", ir::toString(value->dtype()), "; expected a number");
}

// The seed and offset: both given (Int scalars) or both defaulted.
std::pair<Scalar*, Scalar*> seedAndOffset(std::string_view op, Fusion& fusion, Scalar* seed,
                                          Scalar* offset) {
  FL_CHECK((seed == nullptr) == (offset == nullptr), op,
           ": rng_seed and rng_offset must be given together; only ",
           seed != nullptr ? "rng_seed" : "rng_offset", " was given");
  if (seed != nullptr) {
    checkIntegralScalar(op, seed, "rng_seed");
    checkIntegralScalar(op, offset, "rng_offset");
    return {seed, offset};
  }
  int64_t earlier = 0;
  for (const auto& expr : fusion.exprs()) {
    if (expr->type() == ExprType::Random) ++earlier;
  }
  return {fusion.constInt(0), fusion.constInt(earlier)};
}

TensorView* makeRandom(std::string_view op, Fusion& fusion, std::vector<IterDomain*> axes,
                       const std::vector<Scalar*>& extents, RandomOpType kind, Scalar* a, Scalar* b,
                       DataType dtype, Scalar* seed, Scalar* offset) {
  auto [s, o] = seedAndOffset(op, fusion, seed, offset);
  TensorView* out = fusion.newTensorView(std::move(axes), dtype);
  std::vector<ir::Val*> inputs(extents.begin(), extents.end());
  inputs.insert(inputs.end(), {a, b, s, o});
  ir::ExprAttrs attrs;
  attrs.randomOp = kind;
  attrs.dtype = dtype;
  fusion.newExpr(ExprType::Random, inputs, {out}, attrs);
  return out;
}

TensorView* distribution(std::string_view op, Fusion& fusion, const std::vector<Scalar*>& shape,
                         RandomOpType kind, Scalar* a, Scalar* b, DataType dtype, Scalar* seed,
                         Scalar* offset) {
  const bool isUniform = kind == RandomOpType::Uniform;
  checkParameter(op, a, isUniform ? "minval" : "mean");
  checkParameter(op, b, isUniform ? "maxval" : "std");
  checkDtype(op, dtype, "dtype");
  std::vector<IterDomain*> axes;
  for (size_t i = 0; i < shape.size(); ++i) {
    checkIntegralScalar(op, shape[i], "shape[" + std::to_string(i) + "]");
    auto size = shape[i]->constInt();
    FL_CHECK(!size || *size >= 0, op, ": shape[", i, "] is ", *size, " in ", shapeToString(shape),
             "; sizes must be >= 0");
    axes.push_back(
        fusion.newIterDomain(shape[i], size == 1 ? IterType::Broadcast : IterType::Iteration));
  }
  return makeRandom(op, fusion, std::move(axes), shape, kind, a, b, dtype, seed, offset);
}

TensorView* like(std::string_view op, TensorView* x, RandomOpType kind, Scalar* seed,
                 Scalar* offset) {
  checkPresent(op, x, "the input");
  checkDtype(op, x->dtype(), "the input " + describeVal(x));
  Fusion& fusion = *x->fusion();
  std::vector<IterDomain*> axes;
  std::vector<Scalar*> extents;
  for (const IterDomain* id : x->logicalNoReductions()) {
    if (id->hasExpandedExtent()) {
      axes.push_back(fusion.newIterDomain(id->expandedExtent(), IterType::Iteration));
    } else {
      axes.push_back(fusion.cloneIterDomain(id));
    }
    extents.push_back(id->extentForIteration());
  }
  return makeRandom(op, fusion, std::move(axes), extents, kind, fusion.constDouble(0.0),
                    fusion.constDouble(1.0), x->dtype(), seed, offset);
}

}  // namespace

TensorView* uniform(Fusion& fusion, const std::vector<Scalar*>& shape, Scalar* low, Scalar* high,
                    DataType dtype, Scalar* seed, Scalar* offset) {
  return distribution("uniform", fusion, shape, RandomOpType::Uniform, low, high, dtype, seed,
                      offset);
}

TensorView* normal(Fusion& fusion, const std::vector<Scalar*>& shape, Scalar* mean, Scalar* stddev,
                   DataType dtype, Scalar* seed, Scalar* offset) {
  return distribution("normal", fusion, shape, RandomOpType::Normal, mean, stddev, dtype, seed,
                      offset);
}

TensorView* randLike(TensorView* x, Scalar* seed, Scalar* offset) {
  return like("rand_like", x, RandomOpType::Uniform, seed, offset);
}

TensorView* randnLike(TensorView* x, Scalar* seed, Scalar* offset) {
  return like("randn_like", x, RandomOpType::Normal, seed, offset);
}

}  // namespace fuserlab::ops
