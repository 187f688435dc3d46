// Scatter and IndexPutAccumulate of the reference executor: a copy of the
// tensor written into, then writes at the positions an index tensor gives.
// Indices are read as int64; one outside the axis is a UserError naming the
// op, the value and the axis, as torch raises.
//
// scatter writes index's positions in row-major order, so where an index
// repeats the last write wins (torch leaves that case unspecified).
// index_put_accumulate adds in the compute dtype (float for Half, BFloat16
// and Float) and rounds each element once at the end; a negative index
// counts from the end, as torch.index_put's does.
#include <cstring>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

std::string sizesText(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

void scatterInto(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const Tensor index = asContiguous(context.tensor(expr.input(1)), DataType::Int);
  const ir::Val* srcVal = expr.input(2);
  const int64_t rank = x.dim();
  const int64_t dim = expr.attrs().dim;
  FL_ASSERT(index.dim() == rank && dim >= 0 && dim < rank, expr.toString(),
            ": the index must have the input's rank and dim an axis of it");
  Tensor src;
  if (srcVal->isA<ir::TensorView>()) {
    src = context.tensor(srcVal);
  } else {
    src = scalarTensor(context.scalar(srcVal, "scatter's src"), x.dtype());
  }
  src = asContiguous(src, x.dtype());
  const bool scalarSrc = !srcVal->isA<ir::TensorView>();
  for (int64_t d = 0; d < rank; ++d) {
    FL_CHECK(d == dim || index.sizes()[d] <= x.sizes()[d], "scatter: the index ",
             sizesText(index.sizes()), " is longer than the input ", sizesText(x.sizes()),
             " on axis ", d, " (", expr.toString(), ")");
    FL_CHECK(scalarSrc || index.sizes()[d] <= src.sizes()[d], "scatter: the index ",
             sizesText(index.sizes()), " is longer than src ", sizesText(src.sizes()), " on axis ",
             d, " (", expr.toString(), ")");
  }
  Tensor result = x.contiguous();
  if (result.sharesStorageWith(x)) result = x.clone();
  const std::vector<int64_t> outStrides = Tensor::contiguousStrides(x.sizes());
  const std::vector<int64_t> srcStrides = scalarSrc
                                              ? std::vector<int64_t>(static_cast<size_t>(rank), 0)
                                              : Tensor::contiguousStrides(src.sizes());
  const int64_t bytes = ir::sizeInBytes(x.dtype());
  const auto* from = static_cast<const std::byte*>(src.data());
  auto* to = static_cast<std::byte*>(result.data());
  const int64_t* indices = index.dataAs<int64_t>();
  std::vector<int64_t> position(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t target = indices[i];
    FL_CHECK(target >= 0 && target < x.sizes()[dim], "scatter: index ", target,
             " is out of range for axis ", dim, " of size ", x.sizes()[dim], " (", expr.toString(),
             ")");
    int64_t outOffset = 0;
    int64_t srcOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      outOffset += (d == dim ? target : position[d]) * outStrides[d];
      srcOffset += position[d] * srcStrides[d];
    }
    std::memcpy(to + outOffset * bytes, from + srcOffset * bytes, static_cast<size_t>(bytes));
    for (int64_t d = rank; d-- > 0;) {  // next position of the index
      if (++position[d] < index.sizes()[d]) break;
      position[d] = 0;
    }
  }
  context.setTensor(expr.output(0), std::move(result));
}

void indexPutAccumulate(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& acc = context.tensor(expr.input(0));
  const Tensor index = asContiguous(context.tensor(expr.input(1)), DataType::Int);
  const Tensor& value = context.tensor(expr.input(2));
  FL_ASSERT(index.dim() == 1 && value.dim() == acc.dim() && acc.dim() >= 1, expr.toString(),
            ": expected a 1-D index and values of acc's rank");
  const int64_t rows = acc.sizes()[0];
  const int64_t count = index.numel();
  // value is [count, acc's other axes]; its size-1 axes broadcast.
  std::vector<int64_t> valueShape = acc.sizes();
  valueShape[0] = count;
  std::vector<int64_t> valueStrides(value.strides());
  for (size_t d = 0; d < valueShape.size(); ++d) {
    FL_CHECK(value.sizes()[d] == valueShape[d] || value.sizes()[d] == 1,
             "index_put_accumulate: the values ", sizesText(value.sizes()),
             " do not match [len(index), accumulator axes 1..] = ", sizesText(valueShape),
             " on axis ", d, " (", expr.toString(), ")");
    if (value.sizes()[d] == 1) valueStrides[d] = 0;
  }
  const DataType compute = computeDtype(acc.dtype());
  Tensor sum = convertContiguous(acc, compute);
  const Tensor values =
      convertContiguous(value.asStrided(valueShape, valueStrides, value.storageOffset()), compute);
  const int64_t rowSize = count == 0 ? 0 : values.numel() / count;
  const int64_t* indices = index.dataAs<int64_t>();
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    T* out = sum.dataAs<T>();
    const T* in = values.dataAs<T>();
    for (int64_t i = 0; i < count; ++i) {
      int64_t row = indices[i];
      FL_CHECK(row >= -rows && row < rows, "index_put_accumulate: index ", row,
               " is out of range for axis 0 of size ", rows, " (", expr.toString(), ")");
      if (row < 0) row += rows;
      for (int64_t j = 0; j < rowSize; ++j) {
        out[row * rowSize + j] += in[i * rowSize + j];
      }
    }
  });
  context.setTensor(expr.output(0), sum.to(acc.dtype()));
}

}  // namespace

void evaluateScatter(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::Scatter) {
    scatterInto(expr, context);
  } else {
    FL_ASSERT(expr.type() == ir::ExprType::IndexPutAccumulate,
              "not a scatter op: ", expr.toString());
    indexPutAccumulate(expr, context);
  }
}

}  // namespace fuserlab::runtime::reference
