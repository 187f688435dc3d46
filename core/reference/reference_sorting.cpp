// Argsort and TopK of the reference executor. Each line along the sorted
// axis is ordered with a stable sort in the input's compute dtype (exact for
// every dtype), NaN above every number as torch orders it. Stable order is a
// valid answer for stable=False too, and topk's sorted=False leaves the
// order to the implementation: the reference always gives the sorted one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

template <class T>
bool isNan(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(value);
  } else {
    return false;
  }
}

//! Ascending order with NaN last: a strict weak order.
template <class T>
bool ascending(T a, T b) {
  return !isNan(a) && (isNan(b) || a < b);
}

// The lines along `axis` of a contiguous tensor of `sizes`: outer * inner
// lines of `length` elements spaced by `inner`.
struct Lines {
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
};

Lines linesOf(const std::vector<int64_t>& sizes, int64_t axis) {
  Lines lines;
  if (sizes.empty()) return lines;  // a 0-dim tensor: one line of one
  for (int64_t d = 0; d < axis; ++d) lines.outer *= sizes[d];
  lines.length = sizes[axis];
  for (size_t d = axis + 1; d < sizes.size(); ++d) lines.inner *= sizes[d];
  return lines;
}

//! Calls `take(line, order)` for every line with the positions that sort it
//! (descending when `descending`); `line` is {outer index, inner index}.
template <class Take>
void sortLines(const Tensor& x, int64_t axis, bool descending, Take&& take) {
  const Tensor values = asContiguous(x, computeDtype(x.dtype()));
  const Lines lines = linesOf(x.sizes(), axis);
  std::vector<int64_t> order(static_cast<size_t>(lines.length));
  dispatchComputeType(values.dtype(), [&]<class T>(TypeTag<T>) {
    const T* data = values.dataAs<T>();
    for (int64_t o = 0; o < lines.outer; ++o) {
      for (int64_t i = 0; i < lines.inner; ++i) {
        const T* line = data + o * lines.length * lines.inner + i;
        auto at = [&](int64_t j) { return line[j * lines.inner]; };
        std::iota(order.begin(), order.end(), int64_t{0});
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return descending ? ascending(at(b), at(a)) : ascending(at(a), at(b));
        });
        take(o, i, order);
      }
    }
  });
}

void argsort(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const int64_t axis = expr.attrs().dim;
  const bool descending = expr.attrs().flags.at(0);
  Tensor result = Tensor::empty(DataType::Int, x.sizes());
  int64_t* out = result.dataAs<int64_t>();
  const Lines lines = linesOf(x.sizes(), axis);
  sortLines(x, axis, descending, [&](int64_t o, int64_t i, const std::vector<int64_t>& order) {
    for (int64_t j = 0; j < lines.length; ++j) {
      out[(o * lines.length + j) * lines.inner + i] = order[j];
    }
  });
  context.setTensor(expr.output(0), std::move(result));
}

void topk(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& x = context.tensor(expr.input(0));
  const int64_t axis = expr.attrs().dim;
  const bool largest = expr.attrs().flags.at(0);
  const int64_t k = context.intValue(expr.input(1), "topk's k");
  const Lines lines = linesOf(x.sizes(), axis);
  FL_CHECK(k >= 0 && k <= lines.length, "topk: k is ", k, " but axis ", axis, " has ", lines.length,
           " elements (", expr.toString(), ")");
  FL_CHECK(x.dim() != 0 || k == 1, "topk: k is ", k,
           " for a 0-dim input, whose top k is its one element (k=1) (", expr.toString(), ")");
  std::vector<int64_t> outSizes = x.sizes();
  if (x.dim() != 0) outSizes[axis] = k;
  const Tensor values = asContiguous(x, x.dtype());
  Tensor picked = Tensor::empty(x.dtype(), outSizes);
  Tensor indices = Tensor::empty(DataType::Int, outSizes);
  const int64_t bytes = ir::sizeInBytes(x.dtype());
  const auto* from = static_cast<const std::byte*>(values.data());
  auto* to = static_cast<std::byte*>(picked.data());
  int64_t* positions = indices.dataAs<int64_t>();
  sortLines(x, axis, largest, [&](int64_t o, int64_t i, const std::vector<int64_t>& order) {
    for (int64_t j = 0; j < k; ++j) {
      const int64_t out = (o * k + j) * lines.inner + i;
      const int64_t in = (o * lines.length + order[j]) * lines.inner + i;
      positions[out] = order[j];
      std::memcpy(to + out * bytes, from + in * bytes, static_cast<size_t>(bytes));
    }
  });
  context.setTensor(expr.output(0), std::move(picked));
  context.setTensor(expr.output(1), std::move(indices));
}

}  // namespace

void evaluateSorting(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::Argsort) {
    argsort(expr, context);
  } else {
    FL_ASSERT(expr.type() == ir::ExprType::TopK, "not a sorting op: ", expr.toString());
    topk(expr, context);
  }
}

}  // namespace fuserlab::runtime::reference
