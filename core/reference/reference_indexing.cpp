// Indexing ops of the reference executor: index_select, take_along_axis
// (Gather) and embedding_fwd. Indices are read as int64; an index outside
// [0, extent) is a UserError naming the op, the index value and the axis
// (PyTorch raises too; negative indices are not wrapped, as
// torch.index_select and torch.embedding do not).
//
// embedding_fwd with max_norm scales each looked-up row whose norm exceeds
// it by max_norm / (norm + 1e-7), as torch.embedding_renorm_ does; torch
// also writes the scaled rows back into the weight, which the reference
// (like every fusion output here) does not: the weight input is unchanged.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

int64_t normalizeDim(const ir::Expr& expr, int64_t rank) {
  const int64_t dim = expr.attrs().dim < 0 ? expr.attrs().dim + rank : expr.attrs().dim;
  FL_ASSERT(dim >= 0 && dim < rank, expr.toString(), ": bad dim ", expr.attrs().dim);
  return dim;
}

void checkIndex(const ir::Expr& expr, int64_t index, int64_t dim, int64_t extent) {
  FL_CHECK(index >= 0 && index < extent, expr.opName(), ": index ", index,
           " is out of range for axis ", dim, " of size ", extent, " (", expr.toString(), ")");
}

void evaluateIndexSelect(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor x =
      asContiguous(context.tensor(expr.input(0)), context.tensor(expr.input(0)).dtype());
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
      std::memcpy(dst + (o * length + j) * rowBytes, src + (o * extent + indices[j]) * rowBytes,
                  static_cast<size_t>(rowBytes));
    }
  }
  context.setTensor(expr.output(0), result.to(expr.output(0)->dtype()));
}

void evaluateGather(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const Tensor index = asContiguous(context.tensor(expr.input(1)), DataType::Int);
  FL_ASSERT(index.dim() == x.dim(), expr.toString(), ": the index must have the input's rank");
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
             ": the index has size ", outSizes[d], " on axis ", d, " but the input only ",
             x.sizes()[d], " (", expr.toString(), ")");
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

// The p-norm of `count` elements (torch.norm: p = inf is the largest
// magnitude, p = 0 the count of non-zeros).
template <class T>
double normOf(const T* row, int64_t count, double p) {
  double total = 0;
  for (int64_t j = 0; j < count; ++j) {
    const double magnitude = std::fabs(castElement<double>(row[j]));
    if (std::isinf(p)) {
      total = std::max(total, magnitude);
    } else if (p == 0) {
      total += magnitude != 0 ? 1 : 0;
    } else {
      total += std::pow(magnitude, p);
    }
  }
  return std::isinf(p) || p == 0 ? total : std::pow(total, 1 / p);
}

void evaluateEmbedding(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor input = asContiguous(context.tensor(expr.input(0)), DataType::Int);
  const Tensor& weightIn = context.tensor(expr.input(1));
  const Tensor weight = asContiguous(weightIn, weightIn.dtype());
  FL_ASSERT(weight.dim() == 2, expr.toString(), ": the weight must be 2-D");
  const std::vector<bool>& given = expr.attrs().flags;
  FL_ASSERT(given.size() == 2, expr.toString(), ": expected two flags");
  const int64_t rows = weight.sizes()[0];
  const int64_t width = weight.sizes()[1];
  size_t next = 5;  // [input, weight, normType, scaleGradByFreq, sparse, ...]
  if (given[0]) {
    const int64_t padding = context.intValue(expr.input(next++), "embedding_fwd padding_idx");
    FL_CHECK(padding >= -rows && padding < rows, "embedding_fwd: padding_idx ", padding,
             " is out of range for ", rows, " embeddings (", expr.toString(), ")");
  }
  double maxNorm = std::numeric_limits<double>::infinity();
  if (given[1]) {
    maxNorm = context.doubleValue(expr.input(next++), "embedding_fwd max_norm");
  }
  const double normType = context.doubleValue(expr.input(2), "embedding_fwd norm_type");

  std::vector<int64_t> outSizes = input.sizes();
  outSizes.push_back(width);
  Tensor result = Tensor::empty(weight.dtype(), outSizes);
  const int64_t* indices = input.dataAs<int64_t>();
  for (int64_t i = 0; i < input.numel(); ++i) {
    checkIndex(expr, indices[i], 0, rows);
  }
  dispatchElementType(weight.dtype(), [&]<class T>(TypeTag<T>) {
    const T* table = weight.dataAs<T>();
    T* out = result.dataAs<T>();
    for (int64_t i = 0; i < input.numel(); ++i) {
      const T* row = table + indices[i] * width;
      T* to = out + i * width;
      std::copy(row, row + width, to);
      if (!given[1]) continue;
      const double norm = normOf(row, width, normType);
      if (!(norm > maxNorm)) continue;
      const double scale = maxNorm / (norm + 1e-7);
      // `row *= scale` in torch: in the row's compute type, rounded once.
      dispatchComputeType(computeDtype(weight.dtype()), [&]<class C>(TypeTag<C>) {
        const C factor = castElement<C>(scale);
        for (int64_t j = 0; j < width; ++j) {
          to[j] = castElement<T>(castElement<C>(row[j]) * factor);
        }
      });
    }
  });
  context.setTensor(expr.output(0), result);
}

}  // namespace

void evaluateIndexing(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::IndexSelect) {
    evaluateIndexSelect(expr, context);
  } else if (expr.type() == ir::ExprType::Embedding) {
    evaluateEmbedding(expr, context);
  } else {
    FL_ASSERT(expr.type() == ir::ExprType::Gather, "not an indexing op: ", expr.toString());
    evaluateGather(expr, context);
  }
}

}  // namespace fuserlab::runtime::reference
