// Meta ops and tensor factories of the reference executor.
//
// Broadcast, expand, permute, squeeze and slice only change how existing
// elements are viewed, so they produce views (stride 0 for broadcast and
// expanded axes) that the next op reads through its strided loads; reshape is
// a view of a contiguous copy; pad, cat, set and segment_set write new
// contiguous tensors; full and iota create them. Bounds and sizes come from
// the ops' scalar inputs through the evaluator, normalized at run time as
// Python does (negative slice bounds count from the end and are clamped).
#include <algorithm>
#include <string>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/reference/reference_math.h"
#include "core/tensor/element_type.h"
#include "core/tensor/slice_view.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

std::string axisName(const ir::Expr& expr, size_t axis) {
  return expr.opName() + " axis " + std::to_string(axis);
}

//! Every element of `out` set to `value` converted to out's dtype.
void fillWith(const Tensor& out, const ir::ScalarValue& value) {
  const Tensor element = scalarTensor(value, out.dtype());
  convertInto(element.asStrided(out.sizes(), std::vector<int64_t>(out.sizes().size(), 0), 0), out);
}

void evaluateBroadcast(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const auto* out = expr.output(0)->as<ir::TensorView>();
  const std::vector<bool>& flags = expr.attrs().broadcastFlags;
  const std::vector<ir::IterDomain*>& axes = out->logicalNoReductions();
  FL_ASSERT(flags.size() == axes.size(), expr.toString(), ": ", flags.size(),
            " broadcast flags for ", axes.size(), " axes");
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t next = 0;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i]) {
      sizes.push_back(context.evaluator().evaluateExtent(axes[i]));
      strides.push_back(0);
    } else {
      FL_ASSERT(next < x.dim(), expr.toString(), ": too few input axes");
      sizes.push_back(x.sizes()[next]);
      strides.push_back(x.strides()[next]);
      ++next;
    }
  }
  FL_ASSERT(next == x.dim(), expr.toString(), ": unused input axes");
  context.setTensor(out, x.asStrided(sizes, strides, x.storageOffset()));
}

void evaluateExpand(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  FL_ASSERT(static_cast<int64_t>(expr.inputs().size()) == x.dim() + 1, expr.toString(),
            ": one extent per axis expected");
  std::vector<int64_t> sizes = x.sizes();
  std::vector<int64_t> strides = x.strides();
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t extent = context.intValue(expr.input(d + 1), axisName(expr, d));
    if (extent == -1 || extent == sizes[d]) continue;
    FL_CHECK(sizes[d] == 1 && extent >= 0, "expand: axis ", d, " of size ", sizes[d],
             " cannot be expanded to ", extent, " (", expr.toString(), ")");
    sizes[d] = extent;
    strides[d] = 0;
  }
  context.setTensor(expr.output(0), x.asStrided(sizes, strides, x.storageOffset()));
}

void evaluateReshape(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const auto* out = expr.output(0)->as<ir::TensorView>();
  const std::vector<int64_t> shape = context.shapeOf(out);
  int64_t numel = 1;
  for (int64_t size : shape) numel *= size;
  FL_CHECK(numel == x.numel(), "reshape: cannot reshape ", x.numel(), " elements (sizes of ",
           expr.input(0)->name(), ") into ", numel, " (", expr.toString(), ")");
  const Tensor contiguous = asContiguous(x, x.dtype());
  context.setTensor(out, contiguous.asStrided(shape, Tensor::contiguousStrides(shape),
                                              contiguous.storageOffset()));
}

void evaluateSqueeze(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const auto* in = expr.input(0)->as<ir::TensorView>();
  std::vector<bool> removed(static_cast<size_t>(x.dim()), false);
  for (int64_t axis : expr.attrs().axes) {
    const int64_t a = axis < 0 ? axis + x.dim() : axis;
    FL_ASSERT(a >= 0 && a < x.dim(), expr.toString(), ": bad axis ", axis);
    // An expanded broadcast (stride 0) goes with squeeze_expanded=True,
    // which the op builder checked.
    const bool expanded = in->logicalNoReductions().at(static_cast<size_t>(a))->hasExpandedExtent();
    FL_CHECK(expanded || x.sizes()[a] == 1, "squeeze: axis ", a, " of ", in->name(), " has size ",
             x.sizes()[a], ", expected 1 (", expr.toString(), ")");
    removed[a] = true;
  }
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (removed[d]) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  context.setTensor(expr.output(0), x.asStrided(sizes, strides, x.storageOffset()));
}

void evaluateSlice(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  FL_ASSERT(static_cast<int64_t>(expr.inputs().size()) == 3 * x.dim() + 1, expr.toString(),
            ": start, stop and step per axis expected");
  std::vector<int64_t> sizes = x.sizes();
  std::vector<int64_t> strides = x.strides();
  int64_t offset = x.storageOffset();
  for (int64_t d = 0; d < x.dim(); ++d) {
    const std::string what = axisName(expr, d);
    const int64_t start = context.intValue(expr.input(3 * d + 1), what + " start");
    const int64_t stop = context.intValue(expr.input(3 * d + 2), what + " stop");
    const int64_t step = context.intValue(expr.input(3 * d + 3), what + " step");
    sliceViewAxis(sizes, strides, offset, d, start, stop, step, expr.toString());
  }
  context.setTensor(expr.output(0), x.asStrided(sizes, strides, offset));
}

void evaluatePad(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const ir::Val* out = expr.output(0);
  FL_ASSERT(static_cast<int64_t>(expr.inputs().size()) == 2 * x.dim() + 2, expr.toString(),
            ": a (left, right) pair per axis expected");
  const ir::ScalarValue value = context.scalar(expr.input(1), "pad value");
  std::vector<int64_t> outSizes(x.sizes());
  std::vector<int64_t> srcBegin(x.sizes().size(), 0);
  std::vector<int64_t> dstBegin(x.sizes().size(), 0);
  std::vector<int64_t> regionSizes(x.sizes().size(), 0);
  for (int64_t d = 0; d < x.dim(); ++d) {
    const std::string what = axisName(expr, d);
    const int64_t left = context.intValue(expr.input(2 * d + 2), what + " left");
    const int64_t right = context.intValue(expr.input(2 * d + 3), what + " right");
    const int64_t size = x.sizes()[d];
    outSizes[d] = left + size + right;
    FL_CHECK(outSizes[d] >= 0, "pad: axis ", d, " of size ", size, " padded by (", left, ", ",
             right, ") would have size ", outSizes[d], " (", expr.toString(), ")");
    // Negative widths crop: the kept source range and where it lands.
    srcBegin[d] = std::max<int64_t>(0, -left);
    dstBegin[d] = std::max<int64_t>(0, left);
    const int64_t srcEnd = size + std::min<int64_t>(0, right);
    regionSizes[d] = std::max<int64_t>(0, srcEnd - srcBegin[d]);
  }
  Tensor result = Tensor::empty(out->dtype(), outSizes);
  fillWith(result, value);
  int64_t srcOffset = x.storageOffset();
  int64_t dstOffset = result.storageOffset();
  int64_t regionNumel = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    srcOffset += srcBegin[d] * x.strides()[d];
    dstOffset += dstBegin[d] * result.strides()[d];
    regionNumel *= regionSizes[d];
  }
  if (regionNumel > 0) {
    convertInto(x.asStrided(regionSizes, x.strides(), srcOffset),
                result.asStrided(regionSizes, result.strides(), dstOffset));
  }
  context.setTensor(out, std::move(result));
}

void evaluateCat(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  const Tensor& first = context.tensor(expr.input(0));
  const int64_t rank = first.dim();
  const int64_t dim = expr.attrs().dim < 0 ? expr.attrs().dim + rank : expr.attrs().dim;
  FL_ASSERT(dim >= 0 && dim < rank, expr.toString(), ": bad dim");
  std::vector<int64_t> outSizes = first.sizes();
  outSizes[dim] = 0;
  for (size_t i = 0; i < expr.inputs().size(); ++i) {
    const Tensor& t = context.tensor(expr.input(i));
    FL_ASSERT(t.dim() == rank, expr.toString(), ": ranks differ");
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim) continue;
      FL_CHECK(t.sizes()[d] == first.sizes()[d], "cat: input ", i, " (", expr.input(i)->name(),
               ") has size ", t.sizes()[d], " on axis ", d, " but input 0 has ", first.sizes()[d],
               " (", expr.toString(), ")");
    }
    outSizes[dim] += t.sizes()[dim];
  }
  Tensor result = Tensor::empty(out->dtype(), outSizes);
  int64_t position = 0;
  for (const ir::Val* in : expr.inputs()) {
    const Tensor& t = context.tensor(in);
    if (t.numel() > 0) {
      convertInto(t,
                  result.asStrided(t.sizes(), result.strides(), position * result.strides()[dim]));
    }
    position += t.sizes()[dim];
  }
  context.setTensor(out, std::move(result));
}

void evaluateFull(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  const size_t rank = expr.inputs().size() - 1;
  std::vector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    shape.push_back(context.intValue(expr.input(d), axisName(expr, d)));
    FL_CHECK(shape.back() >= 0, "full: size ", shape.back(), " of axis ", d, " is negative (",
             expr.toString(), ")");
  }
  Tensor result = Tensor::empty(out->dtype(), shape);
  fillWith(result, context.scalar(expr.input(rank), "full fill value"));
  context.setTensor(out, std::move(result));
}

//! start + i * step computed in T (the output's compute type).
template <class T>
void iotaInto(T* values, int64_t length, T start, T step) {
  for (int64_t i = 0; i < length; ++i) {
    values[i] = wrappingAdd(start, wrappingMul(static_cast<T>(i), step));
  }
}

void evaluateIota(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  const int64_t length = context.intValue(expr.input(0), "iota length");
  FL_CHECK(length >= 0, "iota: the length must be non-negative, got ", length);
  const auto operand = [&](size_t i, int64_t fallback) -> Tensor {
    if (expr.inputs().size() <= i || expr.input(i) == nullptr) {
      return scalarTensor(fallback, DataType::Int);
    }
    return scalarTensor(context.scalar(expr.input(i), "iota operand"), expr.input(i)->dtype());
  };
  const Tensor start = operand(1, 0);
  const Tensor step = operand(2, 1);
  const DataType compute = computeDtype(out->dtype());
  Tensor values = Tensor::empty(compute, {length});
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    const T startValue = dispatchElementType(
        start.dtype(), [&]<class S>(TypeTag<S>) { return castElement<T>(*start.dataAs<S>()); });
    const T stepValue = dispatchElementType(
        step.dtype(), [&]<class S>(TypeTag<S>) { return castElement<T>(*step.dataAs<S>()); });
    iotaInto(values.dataAs<T>(), length, startValue, stepValue);
  });
  context.setTensor(out, values.to(out->dtype()));
}

}  // namespace

void evaluateMetaOp(const ir::Expr& expr, ReferenceContext& context) {
  using ir::ExprType;
  switch (expr.type()) {
    case ExprType::Broadcast: return evaluateBroadcast(expr, context);
    case ExprType::Expand: return evaluateExpand(expr, context);
    case ExprType::Reshape: return evaluateReshape(expr, context);
    case ExprType::Permute:
      return context.setTensor(expr.output(0),
                               context.tensor(expr.input(0)).permute(expr.attrs().axes));
    case ExprType::Squeeze: return evaluateSqueeze(expr, context);
    case ExprType::Slice: return evaluateSlice(expr, context);
    case ExprType::Pad: return evaluatePad(expr, context);
    case ExprType::Cat: return evaluateCat(expr, context);
    case ExprType::Set:
    case ExprType::SegmentSet:
      return context.setTensor(expr.output(0), convertContiguous(context.tensor(expr.input(0)),
                                                                 expr.output(0)->dtype()));
    case ExprType::Full: return evaluateFull(expr, context);
    case ExprType::Iota: return evaluateIota(expr, context);
    default: break;
  }
  FL_ASSERT(false, "not a meta op: ", expr.toString());
}

}  // namespace fuserlab::runtime::reference
