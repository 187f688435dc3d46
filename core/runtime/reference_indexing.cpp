// Indexing ops of the reference executor: index_select and take_along_axis
// (Gather). Indices are read as int64; an index outside [0, extent) is a
// UserError naming the op, the index value and the axis (PyTorch raises
// too; negative indices are not wrapped, as torch.index_select does not).
#include <cstring>

#include "core/ir/error.h"
#include "core/runtime/element_type.h"
#include "core/runtime/reference_internal.h"
#include "core/runtime/reference_loops.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

int64_t normalizeDim(const ir::Expr& expr, int64_t rank) {
  const int64_t dim = expr.attrs().dim < 0 ? expr.attrs().dim + rank
                                           : expr.attrs().dim;
  FL_ASSERT(dim >= 0 && dim < rank, expr.toString(), ": bad dim ",
            expr.attrs().dim);
  return dim;
}

void checkIndex(const ir::Expr& expr, int64_t index, int64_t dim,
                int64_t extent) {
  FL_CHECK(index >= 0 && index < extent, expr.opName(), ": index ", index,
           " is out of range for axis ", dim, " of size ", extent, " (",
           expr.toString(), ")");
}

void evaluateIndexSelect(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor x = asContiguous(context.tensor(expr.input(0)),
                                context.tensor(expr.input(0)).dtype());
  const Tensor index = asContiguous(context.tensor(expr.input(1)), DataType::Int);
  FL_ASSERT(index.dim() == 1, expr.toString(), ": the index must be 1-D");
  const int64_t dim = normalizeDim(expr, x.dim());
  const int64_t* indices = index.dataAs<int64_t>();
  const int64_t length = index.numel();
  const int64_t extent = x.sizes()[dim];
  for (int64_t j = 0; j < length; ++j) checkIndex(expr, indices[j], dim, extent);

  std::vector<int64_t> outSizes = x.sizes();
  outSizes[dim] = length;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.sizes()[d];
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.sizes()[d];
  Tensor result = Tensor::empty(x.dtype(), outSizes);
  const int64_t rowBytes = inner * ir::sizeInBytes(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.data());
  auto* dst = static_cast<std::byte*>(result.data());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < length; ++j) {
      std::memcpy(dst + (o * length + j) * rowBytes,
                  src + (o * extent + indices[j]) * rowBytes,
                  static_cast<size_t>(rowBytes));
    }
  }
  context.setTensor(expr.output(0), result.to(expr.output(0)->dtype()));
}

void evaluateGather(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const Tensor index = asContiguous(context.tensor(expr.input(1)), DataType::Int);
  FL_ASSERT(index.dim() == x.dim(), expr.toString(),
            ": the index must have the input's rank");
  const int64_t dim = normalizeDim(expr, x.dim());
  const std::vector<int64_t>& outSizes = index.sizes();
  // x read over the output's (the index's) shape: stride 0 on `dim`, which
  // the index chooses, and on x's size-1 axes that the index broadcasts;
  // elsewhere x's stride, reading its leading positions as torch.gather does
  // when the index is smaller (e.g. a broadcast index axis).
  std::vector<int64_t> strides(x.sizes().size(), 0);
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    FL_CHECK(x.sizes()[d] >= outSizes[d] || x.sizes()[d] == 1, expr.opName(),
             ": the index has size ", outSizes[d], " on axis ", d,
             " but the input only ", x.sizes()[d], " (", expr.toString(), ")");
    if (x.sizes()[d] != 1) strides[d] = x.strides()[d];
  }
  const int64_t extent = x.sizes()[dim];
  const int64_t dimStride = x.strides()[dim];
  const int64_t* indices = index.dataAs<int64_t>();
  for (int64_t i = 0; i < index.numel(); ++i) {
    checkIndex(expr, indices[i], dim, extent);
  }
  Tensor result = Tensor::empty(x.dtype(), outSizes);
  dispatchElementType(x.dtype(), [&]<class T>(TypeTag<T>) {
    const T* src = x.dataAs<T>();
    T* dst = result.dataAs<T>();
    int64_t position = 0;
    forEachOffset(outSizes, strides, [&](int64_t base) {
      dst[position] = src[base + indices[position] * dimStride];
      ++position;
    });
  });
  context.setTensor(expr.output(0), result.to(expr.output(0)->dtype()));
}

}  // namespace

void evaluateIndexing(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::IndexSelect) {
    evaluateIndexSelect(expr, context);
  } else {
    FL_ASSERT(expr.type() == ir::ExprType::Gather, "not an indexing op: ",
              expr.toString());
    evaluateGather(expr, context);
  }
}

}  // namespace fuserlab::runtime::reference
