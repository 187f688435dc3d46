#include "core/ops/alias.h"

#include <algorithm>
#include <string>

#include "core/ir/error.h"
#include "core/ops/arith.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::ExprAttrs;
using ir::ExprType;
using ir::Fusion;
using ir::IterDomain;
using ir::IterType;

std::vector<IterDomain*> cloneAll(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  out.reserve(ids.size());
  for (IterDomain* id : ids) out.push_back(id->fusion()->cloneIterDomain(id));
  return out;
}

// A size-1 axis that a consumer may broadcast or expand: a broadcast axis, or
// an iteration axis whose extent is the constant 1.
bool isSizeOne(const IterDomain* id) { return id->isBroadcast() || id->extent()->isConstInt(1); }

TensorView* copyOf(std::string_view op, ExprType type, TensorView* x) {
  checkPresent(op, x, "the input");
  Fusion* fusion = x->fusion();
  TensorView* out = fusion->newTensorView(cloneAll(x->logicalNoReductions()), x->dtype());
  fusion->newExpr(type, {x}, {out});
  return out;
}

std::string intList(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

// The element count of `x` as a scalar expression (constant when known).
Scalar* numelOf(const TensorView* x) {
  Fusion* fusion = x->fusion();
  Scalar* numel = fusion->constInt(1);
  for (IterDomain* id : x->logicalNoReductions()) {
    numel = fusion->scalarBinary(BinaryOpType::Mul, numel, id->extentForIteration());
  }
  return numel;
}

// Python's normalization of a constant slice bound against a constant extent.
int64_t clampBound(int64_t bound, int64_t extent) {
  if (bound < 0) bound += extent;
  return std::clamp<int64_t>(bound, 0, extent);
}

// Normalizes one slice bound: constants against a constant extent as Python
// does; a negative constant against a symbolic extent becomes extent + bound.
Scalar* normalizeBound(Scalar* bound, Scalar* extent) {
  Fusion* fusion = extent->fusion();
  auto constBound = bound->constInt();
  if (!constBound) return bound;
  if (auto constExtentValue = extent->constInt()) {
    return fusion->constInt(clampBound(*constBound, *constExtentValue));
  }
  if (*constBound < 0) {
    return fusion->scalarBinary(BinaryOpType::Add, extent, bound);
  }
  return bound;
}

Scalar* zeroOf(Fusion* fusion, DataType dtype) {
  if (dtype == DataType::Bool) return fusion->constBool(false);
  if (ir::isIntegral(dtype)) return fusion->constInt(0);
  return fusion->constDouble(0.0);
}

}  // namespace

TensorView* broadcast(TensorView* x, const std::vector<bool>& isBroadcastDim) {
  checkPresent("broadcast", x, "the input");
  const auto& inAxes = x->logicalNoReductions();
  const int64_t kept = std::count(isBroadcastDim.begin(), isBroadcastDim.end(), false);
  FL_CHECK(kept == x->rank(), "broadcast: is_broadcast_dim has ", kept, " False entries but ",
           describeVal(x), " has rank ", x->rank(), "; expected one False entry per input axis");
  if (kept == static_cast<int64_t>(isBroadcastDim.size())) return x;

  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> outAxes;
  size_t next = 0;
  for (bool isNew : isBroadcastDim) {
    outAxes.push_back(isNew ? fusion->newIterDomain(fusion->constInt(1), IterType::Broadcast)
                            : fusion->cloneIterDomain(inAxes[next++]));
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  ExprAttrs attrs;
  attrs.broadcastFlags = isBroadcastDim;
  fusion->newExpr(ExprType::Broadcast, {x}, {out}, attrs);
  return out;
}

TensorView* broadcastInDim(TensorView* x, const std::vector<Scalar*>& shape,
                           const std::vector<int64_t>& broadcastDims) {
  constexpr std::string_view kOp = "broadcast_in_dim";
  checkPresent(kOp, x, "the input");
  const int64_t outRank = static_cast<int64_t>(shape.size());
  FL_CHECK(static_cast<int64_t>(broadcastDims.size()) == x->rank(), kOp, ": ", describeVal(x),
           " has rank ", x->rank(), " but broadcast_dims ", intList(broadcastDims), " has ",
           broadcastDims.size(), " entries; expected one output axis per input axis");
  for (size_t i = 0; i < shape.size(); ++i) {
    checkIntegralScalar(kOp, shape[i], "output_shape[" + std::to_string(i) + "]");
  }
  std::vector<bool> isNew(outRank, true);
  for (size_t i = 0; i < broadcastDims.size(); ++i) {
    const int64_t dim = broadcastDims[i];
    FL_CHECK(dim >= 0 && dim < outRank, kOp, ": broadcast_dims[", i, "] = ", dim,
             " is out of range for the output rank ", outRank, " (output_shape ",
             shapeToString(shape), ")");
    FL_CHECK(i == 0 || dim > broadcastDims[i - 1], kOp,
             ": broadcast_dims must be strictly increasing, but got ", intList(broadcastDims),
             " for ", describeVal(x));
    isNew[dim] = false;
  }

  TensorView* broadcasted = broadcast(x, isNew);
  const auto& axes = broadcasted->logicalNoReductions();
  Fusion* fusion = x->fusion();
  std::vector<Scalar*> expandShape;
  bool needsExpand = false;
  int64_t inputAxis = 0;
  for (int64_t j = 0; j < outRank; ++j) {
    IterDomain* id = axes[j];
    Scalar* size = shape[j];
    auto constSize = size->constInt();
    auto where = [&] {
      return isNew[j] ? "new axis " + std::to_string(j)
                      : "axis " + std::to_string(inputAxis) + " of " + describeVal(x) +
                            " (output axis " + std::to_string(j) + ")";
    };
    FL_CHECK(!constSize || *constSize >= 0 || (*constSize == -1 && !isNew[j]), kOp,
             ": output_shape[", j, "] is ", *constSize, " for ", where(),
             "; expected a size >= 0 (or -1 to keep an input axis)");
    auto keep = [&] { return fusion->constInt(-1); };
    if (constSize == -1 || constSize == 1) {
      expandShape.push_back(keep());
    } else if (isSizeOne(id)) {
      needsExpand = true;
      expandShape.push_back(size);
    } else {
      auto extent = constExtent(id);
      FL_CHECK(!constSize || !extent || *constSize == *extent, kOp, ": ", where(), " has extent ",
               *extent, " but output_shape[", j, "] is ", *constSize,
               "; only broadcast (size 1) axes can be expanded");
      expandShape.push_back(keep());
    }
    if (!isNew[j]) ++inputAxis;
  }
  return needsExpand ? expand(broadcasted, expandShape) : broadcasted;
}

TensorView* expand(TensorView* x, const std::vector<Scalar*>& shape) {
  constexpr std::string_view kOp = "expand";
  checkPresent(kOp, x, "the input");
  const auto& axes = x->logicalNoReductions();
  FL_CHECK(static_cast<int64_t>(shape.size()) == x->rank(), kOp, ": ", describeVal(x), " has rank ",
           x->rank(), " but the shape ", shapeToString(shape), " has ", shape.size(),
           " entries; expected one per axis (use broadcast_in_dim to add axes)");
  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < axes.size(); ++i) {
    IterDomain* id = axes[i];
    Scalar* size = shape[i];
    checkIntegralScalar(kOp, size, "shape[" + std::to_string(i) + "]");
    auto constSize = size->constInt();
    FL_CHECK(!constSize || *constSize >= -1, kOp, ": shape[", i, "] is ", *constSize, " for axis ",
             i, " of ", describeVal(x), "; expected a size >= 0, or -1 to keep the axis");
    auto extent = constExtent(id);
    if (constSize == -1 || (constSize && extent == constSize)) {
      outAxes.push_back(fusion->cloneIterDomain(id));
    } else if (isSizeOne(id)) {
      FL_CHECK(!id->hasExpandedExtent() || !extent || !constSize || *extent == *constSize, kOp,
               ": axis ", i, " of ", describeVal(x), " is already expanded to ", *extent,
               " and cannot be expanded to ", *constSize);
      IterDomain* expanded = fusion->newIterDomain(fusion->constInt(1), IterType::Broadcast, size);
      expanded->parallelize(id->parallelType());
      outAxes.push_back(expanded);
    } else {
      FL_CHECK(!constSize || !extent, kOp, ": axis ", i, " of ", describeVal(x), " has extent ",
               *extent, " and is not a broadcast axis; it cannot be expanded to ", *constSize,
               " (only size-1 axes expand; -1 keeps an axis)");
      outAxes.push_back(fusion->cloneIterDomain(id));
    }
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  std::vector<ir::Val*> inputs = {x};
  inputs.insert(inputs.end(), shape.begin(), shape.end());
  fusion->newExpr(ExprType::Expand, inputs, {out});
  return out;
}

TensorView* reshape(TensorView* x, const std::vector<Scalar*>& requested) {
  constexpr std::string_view kOp = "reshape";
  checkPresent(kOp, x, "the input");
  // nvFuser casts each size to its index type: a floating size (a shape
  // computed through reciprocal or a true division, as in its
  // test_reshape_dynamic) is truncated as that cast truncates.
  std::vector<Scalar*> shape = requested;
  for (Scalar*& size : shape) {
    if (size != nullptr && ir::isFloatingPoint(size->dtype())) {
      size = cast(size, DataType::Int)->as<Scalar>();
    }
  }
  Fusion* fusion = x->fusion();
  std::optional<size_t> inferred;
  Scalar* known = fusion->constInt(1);
  for (size_t i = 0; i < shape.size(); ++i) {
    checkIntegralScalar(kOp, shape[i], "size " + std::to_string(i));
    auto size = shape[i]->constInt();
    if (size == -1) {
      FL_CHECK(!inferred, kOp, " of ", describeVal(x), " to ", shapeToString(shape), ": sizes ",
               *inferred, " and ", i, " are both -1; at most one size may be inferred");
      inferred = i;
      continue;
    }
    FL_CHECK(!size || *size >= 0, kOp, " of ", describeVal(x), " to ", shapeToString(shape),
             ": size ", i, " is ", *size, "; sizes must be >= 0, or -1 to infer one");
    known = fusion->scalarBinary(BinaryOpType::Mul, known, shape[i]);
  }

  Scalar* numel = numelOf(x);
  auto constNumel = numel->constInt();
  auto constKnown = known->constInt();
  const std::string what = std::string(kOp) + " of " + describeVal(x) + " " + shapeToString(x);
  Scalar* inferredExtent = nullptr;
  if (inferred) {
    if (constNumel && constKnown) {
      FL_CHECK(*constKnown != 0 && *constNumel % *constKnown == 0, what, " (", *constNumel,
               " elements) to ", shapeToString(shape), ": the other sizes multiply to ",
               *constKnown, ", which does not divide ", *constNumel, ", so size ", *inferred,
               " (-1) cannot be inferred");
      inferredExtent = fusion->constInt(*constNumel / *constKnown);
    } else {
      inferredExtent = fusion->scalarBinary(BinaryOpType::Div, numel, known);
    }
  } else if (constNumel && constKnown) {
    FL_CHECK(*constNumel == *constKnown, what, " (", *constNumel, " elements) to ",
             shapeToString(shape), " (", *constKnown, " elements): the element counts must match");
  }

  ir::TensorDomain domain;
  domain.root = cloneAll(x->logicalNoReductions());
  for (size_t i = 0; i < shape.size(); ++i) {
    Scalar* extent = (inferred == i) ? inferredExtent : shape[i];
    domain.logical.push_back(fusion->newIterDomain(
        extent, extent->isConstInt(1) ? IterType::Broadcast : IterType::Iteration));
  }
  TensorView* out = fusion->newTensorView(std::move(domain), x->dtype());
  std::vector<ir::Val*> inputs = {x};
  inputs.insert(inputs.end(), shape.begin(), shape.end());
  fusion->newExpr(ExprType::Reshape, inputs, {out});
  return out;
}

TensorView* permute(TensorView* x, const std::vector<int64_t>& dims) {
  constexpr std::string_view kOp = "permute";
  checkPresent(kOp, x, "the input");
  FL_CHECK(static_cast<int64_t>(dims.size()) == x->rank(), kOp, ": dims ", intList(dims), " has ",
           dims.size(), " entries but ", describeVal(x), " has rank ", x->rank(),
           "; expected a permutation of its axes");
  std::vector<int64_t> normalized = normalizeAxes(kOp, x, dims);
  const auto& axes = x->logicalNoReductions();
  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> outAxes;
  for (int64_t axis : normalized) {
    outAxes.push_back(fusion->cloneIterDomain(axes[axis]));
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  ExprAttrs attrs;
  attrs.axes = normalized;
  fusion->newExpr(ExprType::Permute, {x}, {out}, attrs);
  return out;
}

TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims, bool squeezeExpanded) {
  constexpr std::string_view kOp = "squeeze";
  checkPresent(kOp, x, "the input");
  std::vector<int64_t> removed = normalizeAxes(kOp, x, dims);
  std::sort(removed.begin(), removed.end());
  const auto& axes = x->logicalNoReductions();
  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < axes.size(); ++i) {
    IterDomain* id = axes[i];
    if (!std::binary_search(removed.begin(), removed.end(), static_cast<int64_t>(i))) {
      outAxes.push_back(fusion->cloneIterDomain(id));
      continue;
    }
    if (id->hasExpandedExtent()) {
      FL_CHECK(squeezeExpanded, kOp, ": axis ", i, " of ", describeVal(x), " ", shapeToString(x),
               " is an expanded broadcast; squeezing it needs "
               "squeeze_expanded=True");
      continue;
    }
    auto extent = constExtent(id);
    // Symbolic extents are checked to be 1 when the fusion runs.
    FL_CHECK(!extent || *extent == 1, kOp, ": axis ", i, " of ", describeVal(x), " ",
             shapeToString(x), " has extent ", *extent, "; only axes of extent 1 can be squeezed");
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  ExprAttrs attrs;
  attrs.axes = removed;
  fusion->newExpr(ExprType::Squeeze, {x}, {out}, attrs);
  return out;
}

TensorView* slice(TensorView* x, const std::vector<Scalar*>& starts,
                  const std::vector<Scalar*>& stops, const std::vector<Scalar*>& steps) {
  constexpr std::string_view kOp = "slice";
  checkPresent(kOp, x, "the input");
  const auto& axes = x->logicalNoReductions();
  const size_t rank = axes.size();
  FL_CHECK(starts.size() == rank && stops.size() == rank && (steps.empty() || steps.size() == rank),
           kOp, ": ", describeVal(x), " has rank ", rank, " but ", starts.size(), " start(s), ",
           stops.size(), " stop(s) and ", steps.size(),
           " step(s) were given; expected one per axis");
  Fusion* fusion = x->fusion();
  std::vector<ir::Val*> inputs = {x};
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < rank; ++i) {
    IterDomain* id = axes[i];
    Scalar* extent = id->extentForIteration();
    const std::string axis = "axis " + std::to_string(i);
    Scalar* start = starts[i] ? starts[i] : fusion->constInt(0);
    Scalar* stop = stops[i] ? stops[i] : extent;
    Scalar* step = (steps.empty() || !steps[i]) ? fusion->constInt(1) : steps[i];
    checkIntegralScalar(kOp, start, "the start of " + axis);
    checkIntegralScalar(kOp, stop, "the stop of " + axis);
    checkIntegralScalar(kOp, step, "the step of " + axis);
    auto constStep = step->constInt();
    FL_CHECK(!constStep || *constStep > 0, kOp, ": the step of ", axis, " of ", describeVal(x),
             " is ", *constStep, "; steps must be positive");
    start = normalizeBound(start, extent);
    stop = normalizeBound(stop, extent);
    auto constStart = start->constInt();
    auto constStop = stop->constInt();
    if (constStart && constStop && *constStop < *constStart) {
      stop = start;  // an empty slice, as Python gives for x[3:1]
    }
    inputs.insert(inputs.end(), {start, stop, step});

    const bool whole = start->isConstInt(0) && step->isConstInt(1) &&
                       (stop == extent || (constStop && constStop == constExtent(id)));
    if (whole) {
      outAxes.push_back(fusion->cloneIterDomain(id));
      continue;
    }
    Scalar* length = fusion->scalarBinary(
        BinaryOpType::CeilDiv, fusion->scalarBinary(BinaryOpType::Sub, stop, start), step);
    IterDomain* out = nullptr;
    if (id->isBroadcast() && !length->isConstInt(0)) {
      // A slice of a broadcast axis is still a broadcast (of fewer copies).
      out = fusion->newIterDomain(fusion->constInt(1), IterType::Broadcast,
                                  length->isConstInt(1) ? nullptr : length);
    } else {
      out = fusion->newIterDomain(length, IterType::Iteration);
    }
    out->parallelize(id->parallelType());
    outAxes.push_back(out);
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  fusion->newExpr(ExprType::Slice, inputs, {out});
  return out;
}

TensorView* pad(TensorView* x, const std::vector<Scalar*>& widths, Scalar* value) {
  constexpr std::string_view kOp = "pad";
  checkPresent(kOp, x, "the input");
  const auto& axes = x->logicalNoReductions();
  const size_t rank = axes.size();
  FL_CHECK(widths.size() % 2 == 0 && widths.size() <= 2 * rank, kOp, ": ", widths.size(),
           " pad widths were given for ", describeVal(x), " of rank ", rank,
           "; expected an even number (a left and a right "
           "width per padded axis, last axis first), at most ",
           2 * rank);
  Fusion* fusion = x->fusion();
  if (value == nullptr) value = zeroOf(fusion, x->dtype());
  std::vector<ir::Val*> inputs = {x, value};
  std::vector<IterDomain*> outAxes;
  for (size_t axis = 0; axis < rank; ++axis) {
    // torch order: the first pair pads the last axis.
    const size_t pair = rank - 1 - axis;
    Scalar* left = nullptr;
    Scalar* right = nullptr;
    if (2 * pair + 1 < widths.size()) {
      left = widths[2 * pair];
      right = widths[2 * pair + 1];
      checkIntegralScalar(kOp, left, "pad width " + std::to_string(2 * pair));
      checkIntegralScalar(kOp, right, "pad width " + std::to_string(2 * pair + 1));
    } else {
      left = fusion->constInt(0);
      right = fusion->constInt(0);
    }
    inputs.push_back(left);
    inputs.push_back(right);
    IterDomain* id = axes[axis];
    if (left->isConstInt(0) && right->isConstInt(0)) {
      outAxes.push_back(fusion->cloneIterDomain(id));
      continue;
    }
    Scalar* extent = fusion->scalarBinary(
        BinaryOpType::Add, fusion->scalarBinary(BinaryOpType::Add, left, id->extentForIteration()),
        right);
    auto constExtentValue = extent->constInt();
    FL_CHECK(!constExtentValue || *constExtentValue >= 0, kOp, ": padding axis ", axis, " of ",
             describeVal(x), " ", shapeToString(x), " by (", left->name(), ", ", right->name(),
             ") gives extent ", *constExtentValue, "; the result must not be negative");
    IterDomain* out = fusion->newIterDomain(extent, IterType::Iteration);
    out->parallelize(id->parallelType());
    outAxes.push_back(out);
  }
  TensorView* out = fusion->newTensorView(outAxes, x->dtype());
  fusion->newExpr(ExprType::Pad, inputs, {out});
  return out;
}

TensorView* cat(const std::vector<TensorView*>& xs, int64_t dim) {
  constexpr std::string_view kOp = "cat";
  FL_CHECK(!xs.empty(), kOp, ": no tensors were given; expected at least one");
  for (size_t i = 0; i < xs.size(); ++i) {
    checkPresent(kOp, xs[i], "tensor " + std::to_string(i));
  }
  TensorView* first = xs.front();
  FL_CHECK(first->rank() > 0, kOp, ": ", describeVal(first),
           " is 0-dim; zero-dimensional tensors cannot be concatenated");
  DataType dtype = DataType::Null;
  for (TensorView* x : xs) {
    FL_CHECK(x->rank() == first->rank(), kOp, ": ", describeVal(first), " has rank ", first->rank(),
             " but ", describeVal(x), " has rank ", x->rank(),
             "; every input must have the same rank");
    dtype = ir::promote(dtype, x->dtype());
  }
  const int64_t catDim = normalizeAxis(kOp, first, dim);
  const int64_t rank = first->rank();

  std::vector<ir::Val*> inputs;
  std::vector<std::vector<IterDomain*>> axesOf;
  for (TensorView* x : xs) {
    inputs.push_back(cast(x, dtype));
    axesOf.push_back(x->logicalNoReductions());
  }
  Fusion* fusion = first->fusion();
  std::vector<IterDomain*> outAxes;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (axis == catDim) {
      Scalar* total = fusion->constInt(0);
      for (const auto& axes : axesOf) {
        total = fusion->scalarBinary(BinaryOpType::Add, total, axes[axis]->extentForIteration());
      }
      outAxes.push_back(fusion->newIterDomain(total, IterType::Iteration));
      continue;
    }
    size_t chosen = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      auto extent = constExtent(axesOf[i][axis]);
      auto reference = constExtent(axesOf[0][axis]);
      FL_CHECK(!extent || !reference || *extent == *reference, kOp, ": axis ", axis, " has extent ",
               *reference, " in ", describeVal(xs[0]), " but ", *extent, " in ", describeVal(xs[i]),
               "; every axis other than the cat axis (", catDim, ") must match");
      if (axesOf[chosen][axis]->isBroadcast() && !axesOf[i][axis]->isBroadcast()) {
        chosen = i;
      }
    }
    outAxes.push_back(fusion->cloneIterDomain(axesOf[chosen][axis]));
  }
  TensorView* out = fusion->newTensorView(outAxes, dtype);
  ExprAttrs attrs;
  attrs.dim = catDim;
  fusion->newExpr(ExprType::Cat, inputs, {out}, attrs);
  return out;
}

TensorView* set(TensorView* x) { return copyOf("set", ExprType::Set, x); }

TensorView* segmentSet(TensorView* x) { return copyOf("segment_set", ExprType::SegmentSet, x); }

TensorView* strideOrder(TensorView* x, const std::vector<int64_t>& order) {
  constexpr std::string_view kOp = "stride_order";
  checkPresent(kOp, x, "the input");
  const int64_t rank = x->rank();
  FL_CHECK(static_cast<int64_t>(order.size()) == rank, kOp, ": ", describeVal(x), " has rank ",
           rank, " but the stride order ", intList(order), " has ", order.size(),
           " entries; expected one per axis");
  std::vector<bool> seen(rank, false);
  for (int64_t entry : order) {
    FL_CHECK(entry >= 0 && entry < rank && !seen[entry], kOp, ": ", intList(order), " for ",
             describeVal(x), " is not a permutation of 0..", rank - 1, " (entry ", entry,
             " is out of range or repeated)");
    seen[entry] = true;
  }
  TensorView* out = copyOf(kOp, ExprType::Set, x);
  out->setStrideOrder(order);
  return out;
}

}  // namespace fuserlab::ops
