#include "core/ops/factory.h"

#include <string>

#include "core/ir/error.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::DataType;
using ir::ExprAttrs;
using ir::ExprType;
using ir::Fusion;
using ir::IterDomain;
using ir::IterType;
using ir::Scalar;
using ir::TensorView;

void checkIndexTensor(std::string_view op, const TensorView* index) {
  checkPresent(op, index, "the index");
  FL_CHECK(ir::isIntegral(index->dtype()), op, ": the index ", describeVal(index), " is ",
           ir::toString(index->dtype()), "; expected Int32 or Int");
}

}  // namespace

TensorView* full(Fusion& fusion, const std::vector<Scalar*>& shape, Scalar* fillValue,
                 DataType dtype) {
  constexpr std::string_view kOp = "full";
  checkPresent(kOp, fillValue, "fill_value");
  FL_CHECK(dtype != DataType::Null, kOp,
           ": dtype is DataType.Null; expected the dtype to fill with");
  std::vector<IterDomain*> axes;
  for (size_t i = 0; i < shape.size(); ++i) {
    checkIntegralScalar(kOp, shape[i], "shape[" + std::to_string(i) + "]");
    auto size = shape[i]->constInt();
    FL_CHECK(!size || *size >= 0, kOp, ": shape[", i, "] is ", *size, " in ", shapeToString(shape),
             "; sizes must be >= 0");
    axes.push_back(
        fusion.newIterDomain(shape[i], size == 1 ? IterType::Broadcast : IterType::Iteration));
  }
  TensorView* out = fusion.newTensorView(axes, dtype);
  std::vector<ir::Val*> inputs(shape.begin(), shape.end());
  inputs.push_back(fillValue);
  ExprAttrs attrs;
  attrs.dtype = dtype;
  fusion.newExpr(ExprType::Full, inputs, {out}, attrs);
  return out;
}

TensorView* iota(Fusion& fusion, Scalar* length, Scalar* start, Scalar* step, DataType dtype) {
  constexpr std::string_view kOp = "iota";
  checkIntegralScalar(kOp, length, "length");
  FL_CHECK(ir::isIntegral(dtype) || ir::isFloatingPoint(dtype), kOp, ": dtype is ",
           ir::toString(dtype), "; expected an integer or floating-point dtype");
  auto constLength = length->constInt();
  FL_CHECK(!constLength || *constLength >= 0, kOp, ": length is ", *constLength,
           "; expected a length >= 0");
  const bool integral = ir::isIntegral(dtype);
  if (start == nullptr) {
    start = integral ? fusion.constInt(0) : fusion.constDouble(0.0);
  }
  if (step == nullptr) {
    step = integral ? fusion.constInt(1) : fusion.constDouble(1.0);
  }
  for (const Scalar* s : {start, step}) {
    FL_CHECK(s->dtype() != DataType::Bool, kOp, ": ", s == start ? "start" : "step", " ",
             describeVal(s), " is Bool; expected a number");
  }
  TensorView* out =
      fusion.newTensorView({fusion.newIterDomain(length, IterType::Iteration)}, dtype);
  ExprAttrs attrs;
  attrs.dtype = dtype;
  fusion.newExpr(ExprType::Iota, {length, start, step}, {out}, attrs);
  return out;
}

TensorView* indexSelect(TensorView* x, TensorView* index, int64_t dim) {
  constexpr std::string_view kOp = "index_select";
  checkPresent(kOp, x, "the input");
  checkIndexTensor(kOp, index);
  // A 0-dim index selects one element: torch.index_select gives the axis
  // size 1, as nvFuser does (select, then unsqueeze). Here the index becomes
  // a 1-D index of one element, a broadcast axis that the output takes.
  if (index->rank() == 0) index = broadcast(index, {true});
  FL_CHECK(index->rank() == 1, kOp, ": the index ", describeVal(index), " has rank ", index->rank(),
           "; expected a 1-D or 0-dim index");
  const int64_t axis = normalizeAxis(kOp, x, dim);
  Fusion* fusion = x->fusion();
  const auto& axes = x->logicalNoReductions();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < axes.size(); ++i) {
    const IterDomain* source =
        static_cast<int64_t>(i) == axis ? index->logicalNoReductions()[0] : axes[i];
    outAxes.push_back(fusion->cloneIterDomain(source));
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  ExprAttrs attrs;
  attrs.dim = axis;
  fusion->newExpr(ExprType::IndexSelect, {x, index}, {out}, attrs);
  return out;
}

TensorView* select(TensorView* x, Scalar* index, int64_t dim) {
  constexpr std::string_view kOp = "select";
  checkPresent(kOp, x, "the input");
  FL_CHECK(x->rank() > 0, kOp, ": ", describeVal(x),
           " is 0-dim; expected a tensor with an axis to select from");
  checkIntegralScalar(kOp, index, "the index");
  const int64_t axis = normalizeAxis(kOp, x, dim);
  Fusion& fusion = *x->fusion();
  Scalar* extent = x->logicalNoReductions()[axis]->extentForIteration();
  if (const std::optional<int64_t> constant = index->constInt()) {
    const std::optional<int64_t> size = extent->constInt();
    FL_CHECK(!size || (*constant >= -*size && *constant < *size), kOp, ": index ", *constant,
             " is out of range for axis ", axis, " of ", describeVal(x), " ", shapeToString(x),
             " (expected ", -*size, " <= index < ", *size, ")");
    if (*constant < 0) {
      index = size ? fusion.constInt(*constant + *size)
                   : fusion.scalarBinary(BinaryOpType::Add, extent, fusion.constInt(*constant));
    }
  } else {
    // Counted from the end when negative: index + extent * (index < 0).
    Val* negative = binaryOp(BinaryOpType::Lt, index, fusion.constInt(0));
    Val* shift = binaryOp(BinaryOpType::Mul, cast(negative, DataType::Int), extent);
    index = binaryOp(BinaryOpType::Add, index, shift)->as<Scalar>();
  }
  // Every axis whole but `axis`, which keeps [index, index + 1).
  const size_t rank = static_cast<size_t>(x->rank());
  std::vector<Scalar*> starts(rank, nullptr);
  std::vector<Scalar*> stops(rank, nullptr);
  starts[axis] = index;
  stops[axis] = fusion.scalarBinary(BinaryOpType::Add, index, fusion.constInt(1));
  return squeeze(slice(x, starts, stops, {}), {axis});
}

TensorView* takeAlongAxis(TensorView* x, TensorView* index, int64_t dim) {
  constexpr std::string_view kOp = "take_along_axis";
  checkPresent(kOp, x, "the input");
  checkIndexTensor(kOp, index);
  FL_CHECK(index->rank() == x->rank(), kOp, ": the index ", describeVal(index), " has rank ",
           index->rank(), " but ", describeVal(x), " has rank ", x->rank(),
           "; expected the same rank");
  const int64_t axis = normalizeAxis(kOp, x, dim);
  Fusion* fusion = x->fusion();
  const auto& axes = x->logicalNoReductions();
  const auto& indexAxes = index->logicalNoReductions();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (static_cast<int64_t>(i) != axis && !axes[i]->isBroadcast() &&
        !indexAxes[i]->isBroadcast()) {
      auto extent = constExtent(axes[i]);
      auto indexExtent = constExtent(indexAxes[i]);
      FL_CHECK(!extent || !indexExtent || *extent == *indexExtent, kOp, ": axis ", i,
               " has extent ", *extent, " in ", describeVal(x), " but ", *indexExtent,
               " in the index ", describeVal(index), "; axes other than ", axis, " must match");
    }
    outAxes.push_back(fusion->cloneIterDomain(indexAxes[i]));
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  ExprAttrs attrs;
  attrs.dim = axis;
  fusion->newExpr(ExprType::Gather, {x, index}, {out}, attrs);
  return out;
}

TensorView* triu(TensorView* x, Scalar* diagonal) {
  constexpr std::string_view kOp = "triu";
  checkPresent(kOp, x, "the input");
  const int64_t rank = x->rank();
  FL_CHECK(rank >= 2, kOp, ": ", describeVal(x), " has ", rank,
           " axes; triu takes the upper triangle of the last two, so it needs at least 2");
  FL_CHECK(diagonal != nullptr && ir::isIntegral(diagonal->dtype()), kOp,
           ": the diagonal must be an integer");
  Fusion& fusion = *x->fusion();
  const auto& axes = x->logicalNoReductions();
  // An iota along one of the last two axes, broadcast along every other.
  auto indexAlong = [&](int64_t axis) {
    TensorView* along = iota(fusion, axes[static_cast<size_t>(axis)]->extentForIteration(), nullptr,
                             nullptr, DataType::Int);
    std::vector<bool> flags(static_cast<size_t>(rank), true);
    flags[static_cast<size_t>(axis)] = false;
    return broadcast(along, flags);
  };
  Val* column = indexAlong(rank - 1);
  Val* row = indexAlong(rank - 2);
  Val* keep = binaryOp(BinaryOpType::Ge, binaryOp(BinaryOpType::Sub, column, row), diagonal);
  Scalar* zero = x->dtype() == DataType::Bool
                     ? fusion.constBool(false)
                     : (ir::isIntegral(x->dtype()) ? fusion.constInt(0) : fusion.constDouble(0.0));
  return cast(where(keep, x, zero), x->dtype())->as<TensorView>();
}

}  // namespace fuserlab::ops
