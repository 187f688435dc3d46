// Reductions of the reference executor: sum, prod, max, min, logsumexp and
// Welford.
//
// The input is read once into a contiguous [kept, reduced] matrix of the
// compute type (the reduced axes innermost, in their logical order), so every
// output element reduces one contiguous row in logical index order whatever
// the input's strides: results do not depend on the layout. Sums are pairwise
// (numpy's scheme), which keeps float error at O(log n) ulps; integer sums and
// products wrap; max/min propagate NaN; Welford is two-pass (mean, then the
// sum of squared deviations), both pairwise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/reference/reference_math.h"
#include "core/reference/reference_parallel.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;
using ir::ReductionOpType;

constexpr int64_t kPairwiseBlock = 128;

//! numpy's pairwise summation: below 8 elements a plain loop; up to a block
//! of 128, eight interleaved partial sums combined as a tree; larger ranges
//! split in halves (a multiple of 8) recursively.
template <class T>
T pairwiseSum(const T* x, int64_t n) {
  if (n < 8) {
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += x[i];
    return sum;
  }
  if (n <= kPairwiseBlock) {
    T partial[8];
    for (int j = 0; j < 8; ++j) partial[j] = x[j];
    int64_t i = 8;
    for (; i + 8 <= n; i += 8) {
      for (int j = 0; j < 8; ++j) partial[j] += x[i + j];
    }
    T sum = ((partial[0] + partial[1]) + (partial[2] + partial[3])) +
            ((partial[4] + partial[5]) + (partial[6] + partial[7]));
    for (; i < n; ++i) sum += x[i];
    return sum;
  }
  int64_t half = n / 2;
  half -= half % 8;
  return pairwiseSum(x, half) + pairwiseSum(x + half, n - half);
}

template <class T>
T sumOf(const T* x, int64_t n) {
  if constexpr (kIsFloating<T>) {
    return pairwiseSum(x, n);
  } else {
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum = wrappingAdd(sum, x[i]);
    return sum;
  }
}

//! max + log(sum(exp(x - max))), as the ops a log-softmax is written with
//! compute it (the max, the shifted exps summed pairwise, the log): a row
//! of -inf, or one holding a +inf or a NaN, gives NaN. `shifted`: scratch.
template <class T>
T logSumExpOf(const T* x, int64_t n, std::vector<T>& shifted) {
  if constexpr (kIsFloating<T>) {
    T best = x[0];
    for (int64_t i = 1; i < n; ++i) best = maximumOf(best, x[i]);
    shifted.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) shifted[i] = std::exp(x[i] - best);
    return best + std::log(pairwiseSum(shifted.data(), n));
  } else {
    FL_ASSERT(false, "logsumexp of integers");
  }
}

template <class T>
void reduceRows(const ir::Expr& expr, const T* data, int64_t rows, int64_t length, T* out) {
  const ReductionOpType op = expr.attrs().reductionOp;
  if (op == ReductionOpType::Max || op == ReductionOpType::Min ||
      op == ReductionOpType::LogSumExp) {
    FL_CHECK(length > 0 || rows == 0, expr.opName(),
             ": cannot reduce an empty axis (the reduced extent is 0) in ", expr.toString());
  }
  // Rows are independent and each keeps its own order: split over threads.
  const int64_t minRows =
      std::max<int64_t>(1, kMinElementsPerThread / std::max<int64_t>(1, length));
  parallelRanges(rows, minRows, [&](int64_t first, int64_t last) {
    std::vector<T> shifted;
    for (int64_t r = first; r < last; ++r) {
      const T* x = data + r * length;
      switch (op) {
        case ReductionOpType::Sum: out[r] = sumOf(x, length); break;
        case ReductionOpType::Prod: {
          T product = 1;
          for (int64_t i = 0; i < length; ++i) product = wrappingMul(product, x[i]);
          out[r] = product;
          break;
        }
        case ReductionOpType::Max: {
          T best = x[0];
          for (int64_t i = 1; i < length; ++i) best = maximumOf(best, x[i]);
          out[r] = best;
          break;
        }
        case ReductionOpType::Min: {
          T best = x[0];
          for (int64_t i = 1; i < length; ++i) best = minimumOf(best, x[i]);
          out[r] = best;
          break;
        }
        case ReductionOpType::LogSumExp: out[r] = logSumExpOf(x, length, shifted); break;
      }
    }
  });
}

//! The input split into kept and reduced axes.
struct ReductionLayout {
  std::vector<int64_t> keptShape;
  int64_t rows = 1;    // product of the kept extents
  int64_t length = 1;  // product of the reduced extents
  Tensor matrix;       // [rows, length] contiguous, in the compute dtype
};

ReductionLayout layoutFor(const ir::Expr& expr, const Tensor& x, DataType compute) {
  const int64_t rank = x.dim();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : expr.attrs().axes) {
    const int64_t a = axis < 0 ? axis + rank : axis;
    FL_ASSERT(a >= 0 && a < rank && !reduced[a], expr.toString(), ": bad reduction axis ", axis);
    reduced[a] = true;
  }
  ReductionLayout layout;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) continue;
    order.push_back(d);
    layout.keptShape.push_back(x.sizes()[d]);
    layout.rows *= x.sizes()[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    order.push_back(d);
    layout.length *= x.sizes()[d];
  }
  layout.matrix = asContiguous(x.permute(order), compute);
  return layout;
}

void evaluateSimpleReduction(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const ir::Val* out = expr.output(0);
  const DataType compute = computeDtype(ir::promote(x.dtype(), out->dtype()));
  const ReductionLayout layout = layoutFor(expr, x, compute);
  Tensor result = Tensor::empty(compute, layout.keptShape);
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    reduceRows(expr, layout.matrix.dataAs<T>(), layout.rows, layout.length, result.dataAs<T>());
  });
  context.setTensor(out, result.to(out->dtype()));
}

//! Two-pass mean and M2 per row; an empty row gives NaN for both.
template <class T>
void welfordRows(const T* data, int64_t rows, int64_t length, T* avg, T* m2) {
  const int64_t minRows =
      std::max<int64_t>(1, kMinElementsPerThread / std::max<int64_t>(1, length));
  parallelRanges(rows, minRows, [&](int64_t first, int64_t last) {
    std::vector<T> deviations(static_cast<size_t>(length));
    for (int64_t r = first; r < last; ++r) {
      const T* x = data + r * length;
      if (length == 0) {
        avg[r] = std::numeric_limits<T>::quiet_NaN();
        m2[r] = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
      const T mean = pairwiseSum(x, length) / static_cast<T>(length);
      for (int64_t i = 0; i < length; ++i) {
        const T d = x[i] - mean;
        deviations[i] = d * d;
      }
      avg[r] = mean;
      m2[r] = pairwiseSum(deviations.data(), length);
    }
  });
}

void evaluateWelford(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const DataType compute = x.dtype() == DataType::Double ? DataType::Double : DataType::Float;
  const ReductionLayout layout = layoutFor(expr, x, compute);
  Tensor avg = Tensor::empty(compute, layout.keptShape);
  Tensor m2 = Tensor::empty(compute, layout.keptShape);
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    if constexpr (kIsFloating<T>) {
      welfordRows(layout.matrix.dataAs<T>(), layout.rows, layout.length, avg.dataAs<T>(),
                  m2.dataAs<T>());
    }
  });
  Tensor count = Tensor::empty(DataType::Int, layout.keptShape);
  std::fill_n(count.dataAs<int64_t>(), layout.rows, layout.length);
  context.setTensor(expr.output(0), avg.to(expr.output(0)->dtype()));
  context.setTensor(expr.output(1), m2.to(expr.output(1)->dtype()));
  context.setTensor(expr.output(2), count.to(expr.output(2)->dtype()));
}

}  // namespace

void evaluateReduction(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::Welford) {
    evaluateWelford(expr, context);
  } else {
    evaluateSimpleReduction(expr, context);
  }
}

}  // namespace fuserlab::runtime::reference
