#include "core/runtime/matmul_call.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ir/tensor_view.h"
#include "core/scheduler/matmul/epilogue_matcher.h"

namespace fuserlab::runtime {
namespace {

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

const Tensor& tensorOf(const ir::Fusion& segment, const Arguments& args, const ir::Val* val,
                       const std::string& what) {
  const auto& inputs = segment.inputs();
  const auto it = std::find(inputs.begin(), inputs.end(), val);
  FL_ASSERT(it != inputs.end(), what, ": ", val->name(), " is no segment input");
  const auto* tensor = std::get_if<Tensor>(&args.at(static_cast<size_t>(it - inputs.begin())));
  FL_ASSERT(tensor != nullptr, what, ": ", val->name(), " is bound to a scalar");
  return *tensor;
}

std::vector<int64_t> head(const std::vector<int64_t>& v, size_t drop) {
  return std::vector<int64_t>(v.begin(), v.end() - static_cast<std::ptrdiff_t>(drop));
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

int64_t collapseOrFail(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                       const std::string& tensor, const std::string& what) {
  auto stride = collapsedStride(sizes, strides);
  FL_CHECK(stride.has_value(), what, ": the leading axes ", listString(sizes), " of ", tensor,
           " have strides ", listString(strides),
           ", which no single stride walks; cuBLASLt needs them flattened (copy needed)");
  return *stride;
}

// The strides of `tensor`'s leading (batch) axes aligned right to `batch`
// axes: missing and size-1 axes broadcast (stride 0).
std::vector<int64_t> alignedBatchStrides(const Tensor& tensor, size_t matrixAxes,
                                         const std::vector<int64_t>& batch) {
  std::vector<int64_t> strides(batch.size(), 0);
  const size_t own = static_cast<size_t>(tensor.dim()) - matrixAxes;
  for (size_t i = 0; i < own; ++i) {
    const size_t d = batch.size() - own + i;
    strides[d] = tensor.sizes()[i] == 1 ? 0 : tensor.strides()[i];
  }
  return strides;
}

}  // namespace

std::optional<int64_t> collapsedStride(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides) {
  std::optional<int64_t> base;
  int64_t expected = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (!base) {
      base = strides[d];
      expected = strides[d] * sizes[d];
      continue;
    }
    if (strides[d] != expected) return std::nullopt;
    expected *= sizes[d];
  }
  return base.value_or(0);
}

MatmulCall matmulCallFor(const ir::Fusion& segment, const scheduler::MatmulParams& params,
                         const Arguments& args, const Tensor& output, const std::string& what) {
  const ir::Expr* call = nullptr;
  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    if (expr->type() == ir::ExprType::Matmul || expr->type() == ir::ExprType::Linear) {
      call = expr;
    }
  }
  FL_ASSERT(call != nullptr, what, ": a cuBLASLt segment without a matmul or linear");
  const scheduler::MatmulMatch match = scheduler::matchMatmulEpilogue(segment, *call);
  FL_ASSERT(match.epilogue == params.epilogue, what, ": the params' epilogue ", params.epilogue,
            " is not the segment's ", match.epilogue);

  MatmulCall result;
  result.epilogue = params.epilogue;
  result.heuristicIndex = scheduler::heuristicIndex(params.algo);
  const Tensor& x = tensorOf(segment, args, call->input(0), what);
  const Tensor& w = tensorOf(segment, args, call->input(1), what);
  const int64_t k = x.sizes().back();
  result.a = {x.data(), x.dtype(), 1, k, 0, x.strides().back(), 0};
  result.d = {output.data(), output.dtype(), 1, 1, 0, 1, 0};

  if (call->type() == ir::ExprType::Linear) {
    // x [..., K] -> A [M, K]; weight [N, K] -> B = weight^T [K, N].
    if (x.dim() > 1) {
      const auto leading = head(x.sizes(), 1);
      result.a.rows = product(leading);
      result.a.rowStride =
          collapseOrFail(leading, head(x.strides(), 1), call->input(0)->name(), what);
    }
    const int64_t n = w.dim() == 2 ? w.sizes()[0] : 1;
    result.b = {w.data(), w.dtype(), k, n, w.strides().back(), w.dim() == 2 ? w.strides()[0] : 1,
                0};
    result.d.rows = result.a.rows;
    result.d.cols = n;
    const size_t featureAxes = w.dim() == 2 ? 1 : 0;
    if (featureAxes == 1) result.d.colStride = output.strides().back();
    const auto leading = head(output.sizes(), featureAxes);
    result.d.rowStride =
        collapseOrFail(leading, head(output.strides(), featureAxes), "the output", what);
  } else {
    // a [..., M, K] (or [K]) @ b [..., K, N] (or [K]).
    const bool aMatrix = x.dim() >= 2;
    const bool bMatrix = w.dim() >= 2;
    if (aMatrix) {
      result.a.rows = x.sizes()[x.dim() - 2];
      result.a.rowStride = x.strides()[x.dim() - 2];
    }
    const int64_t n = bMatrix ? w.sizes().back() : 1;
    result.b = {w.data(),
                w.dtype(),
                k,
                n,
                bMatrix ? w.strides()[w.dim() - 2] : w.strides()[0],
                bMatrix ? w.strides().back() : 1,
                0};
    std::vector<int64_t> batch(output.sizes().begin(),
                               output.sizes().end() - (aMatrix ? 1 : 0) - (bMatrix ? 1 : 0));
    std::vector<int64_t> outStrides(output.strides().begin(),
                                    output.strides().begin() + batch.size());
    result.d.rows = result.a.rows;
    result.d.cols = n;
    size_t next = batch.size();
    if (aMatrix) result.d.rowStride = output.strides()[next++];
    if (bMatrix) result.d.colStride = output.strides()[next++];
    const std::vector<int64_t> aBatch = alignedBatchStrides(x, aMatrix ? 2 : 1, batch);
    const std::vector<int64_t> bBatch = alignedBatchStrides(w, bMatrix ? 2 : 1, batch);
    // The innermost batch axes that one stride walks in all three tensors
    // form the call's batch; the axes outside them (say a [2, 3] batch whose
    // B broadcasts over the 2) become separate calls.
    size_t split = 0;
    auto tail = [&](const std::vector<int64_t>& v) {
      return std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(split), v.end());
    };
    while (split < batch.size() && !(collapsedStride(tail(batch), tail(aBatch)) &&
                                     collapsedStride(tail(batch), tail(bBatch)) &&
                                     collapsedStride(tail(batch), tail(outStrides)))) {
      ++split;
    }
    result.batch = product(tail(batch));
    result.a.batchStride = *collapsedStride(tail(batch), tail(aBatch));
    result.b.batchStride = *collapsedStride(tail(batch), tail(bBatch));
    result.d.batchStride = *collapsedStride(tail(batch), tail(outStrides));
    result.outer.sizes.assign(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(split));
    result.outer.aStrides.assign(aBatch.begin(),
                                 aBatch.begin() + static_cast<std::ptrdiff_t>(split));
    result.outer.bStrides.assign(bBatch.begin(),
                                 bBatch.begin() + static_cast<std::ptrdiff_t>(split));
    result.outer.dStrides.assign(outStrides.begin(),
                                 outStrides.begin() + static_cast<std::ptrdiff_t>(split));
  }

  if (match.bias != nullptr) {
    const Tensor& bias = tensorOf(segment, args, match.bias, what);
    for (int64_t d = 0; d < bias.dim(); ++d) {
      FL_CHECK(bias.sizes()[d] == 1 || bias.strides()[d] <= 1, what, ": the bias ",
               match.bias->name(), " has sizes ", listString(bias.sizes()), " and strides ",
               listString(bias.strides()), "; cuBLASLt reads a contiguous vector (copy needed)");
    }
    result.bias = bias.data();
    result.biasDtype = bias.dtype();
  }
  return result;
}

}  // namespace fuserlab::runtime

namespace fuserlab::runtime {

std::vector<MatmulCall> splitOuterBatch(const MatmulCall& call) {
  const OuterBatch& outer = call.outer;
  int64_t count = 1;
  for (int64_t size : outer.sizes) count *= size;
  std::vector<MatmulCall> calls;
  calls.reserve(static_cast<size_t>(count));
  auto shifted = [](const void* data, ir::DataType dtype, int64_t elements) {
    return static_cast<const void*>(static_cast<const char*>(data) +
                                    elements * ir::sizeInBytes(dtype));
  };
  for (int64_t flat = 0; flat < count; ++flat) {
    MatmulCall one = call;
    one.outer = {};
    int64_t rest = flat, a = 0, b = 0, d = 0;
    for (size_t i = outer.sizes.size(); i-- > 0;) {
      const int64_t index = rest % outer.sizes[i];
      rest /= outer.sizes[i];
      a += index * outer.aStrides[i];
      b += index * outer.bStrides[i];
      d += index * outer.dStrides[i];
    }
    one.a.data = shifted(call.a.data, call.a.dtype, a);
    one.b.data = shifted(call.b.data, call.b.dtype, b);
    one.d.data = shifted(call.d.data, call.d.dtype, d);
    calls.push_back(one);
  }
  return calls;
}

}  // namespace fuserlab::runtime
