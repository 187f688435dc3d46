// Matmul, linear and scaled dot-product attention of the reference executor.
//
// Operands are converted once to contiguous float (double for Double), the
// products accumulate in that type with each output element summed over k in
// ascending order (blocked loops for the cache; the blocking never changes an
// element's summation order), and the result is rounded once to the output
// dtype - after the bias for linear, as a fused cuBLASLt epilogue does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

constexpr int64_t kBlockRows = 64;
constexpr int64_t kBlockDepth = 256;
constexpr int64_t kBlockCols = 512;
constexpr int64_t kVector = 32;

//! c[0..n) += a * b[0..n); fixed-size chunks so the compiler vectorizes
//! the loop (the order of each c[j]'s additions is unchanged).
template <class T>
inline void axpy(T* __restrict c, const T* __restrict b, T a, int64_t n) {
  int64_t j = 0;
  for (; j + kVector <= n; j += kVector) {
    for (int64_t v = 0; v < kVector; ++v) c[j + v] += a * b[j + v];
  }
  for (; j < n; ++j) c[j] += a * b[j];
}

//! c[M, N] = a[M, K] @ b[K, N], all contiguous row-major.
template <class T>
void gemm(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k) {
  std::fill_n(c, m * n, T(0));
  for (int64_t i0 = 0; i0 < m; i0 += kBlockRows) {
    const int64_t i1 = std::min(m, i0 + kBlockRows);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockDepth) {
      const int64_t k1 = std::min(k, k0 + kBlockDepth);
      for (int64_t j0 = 0; j0 < n; j0 += kBlockCols) {
        const int64_t width = std::min(n, j0 + kBlockCols) - j0;
        for (int64_t i = i0; i < i1; ++i) {
          for (int64_t kk = k0; kk < k1; ++kk) {
            axpy(c + i * n + j0, b + kk * n + j0, a[i * k + kk], width);
          }
        }
      }
    }
  }
}

DataType accumulatorDtype(DataType dtype) {
  return dtype == DataType::Double ? DataType::Double : DataType::Float;
}

//! Right-aligned broadcast of two batch shapes.
std::vector<int64_t> broadcastBatch(const ir::Expr& expr, const std::vector<int64_t>& a,
                                    const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t sa = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t sb = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    FL_CHECK(sa == sb || sa == 1 || sb == 1, expr.opName(), ": batch sizes ", sa, " and ", sb,
             " do not broadcast (", expr.toString(), ")");
    shape[i] = std::max(sa, sb);
  }
  return shape;
}

//! Element offsets of each [rows, cols] matrix of a contiguous tensor of
//! shape batch + [rows, cols], for every index of the broadcast `batch`.
std::vector<int64_t> matrixOffsets(const std::vector<int64_t>& ownBatch,
                                   const std::vector<int64_t>& batch, int64_t matrixElements) {
  const size_t rank = batch.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = matrixElements;
  for (size_t i = ownBatch.size(); i-- > 0;) {
    const size_t d = i + rank - ownBatch.size();
    strides[d] = ownBatch[i] == 1 ? 0 : stride;
    stride *= ownBatch[i];
  }
  std::vector<int64_t> offsets;
  forEachOffset(batch, strides, [&](int64_t offset) { offsets.push_back(offset); });
  return offsets;
}

void evaluateMatmulOp(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  Tensor a = context.tensor(expr.input(0));
  Tensor b = context.tensor(expr.input(1));
  const int64_t aRank = a.dim();
  const int64_t bRank = b.dim();
  FL_ASSERT(aRank >= 1 && bRank >= 1, expr.toString(), ": 0-dim operand");
  // torch.matmul: a 1-D a is a row [1, K], a 1-D b a column [K, 1]; the
  // added axis is dropped from the result.
  if (aRank == 1) a = a.asStrided({1, a.sizes()[0]}, {0, a.strides()[0]}, a.storageOffset());
  if (bRank == 1) b = b.asStrided({b.sizes()[0], 1}, {b.strides()[0], 0}, b.storageOffset());
  const int64_t m = a.sizes()[a.dim() - 2];
  const int64_t k = a.sizes()[a.dim() - 1];
  const int64_t n = b.sizes()[b.dim() - 1];
  FL_CHECK(b.sizes()[b.dim() - 2] == k, "matmul: the operands' inner sizes ", k, " and ",
           b.sizes()[b.dim() - 2], " differ (", expr.toString(), ")");
  const std::vector<int64_t> aBatch(a.sizes().begin(), a.sizes().end() - 2);
  const std::vector<int64_t> bBatch(b.sizes().begin(), b.sizes().end() - 2);
  const std::vector<int64_t> batch = broadcastBatch(expr, aBatch, bBatch);

  const DataType compute = accumulatorDtype(out->dtype());
  const Tensor aMatrix = asContiguous(a, compute);
  const Tensor bMatrix = asContiguous(b, compute);
  const std::vector<int64_t> aOffsets = matrixOffsets(aBatch, batch, m * k);
  const std::vector<int64_t> bOffsets = matrixOffsets(bBatch, batch, k * n);

  std::vector<int64_t> shape = batch;
  if (aRank > 1) shape.push_back(m);
  if (bRank > 1) shape.push_back(n);
  Tensor result = Tensor::empty(compute, shape);
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      for (size_t i = 0; i < aOffsets.size(); ++i) {
        gemm(aMatrix.dataAs<T>() + aOffsets[i], bMatrix.dataAs<T>() + bOffsets[i],
             result.dataAs<T>() + static_cast<int64_t>(i) * m * n, m, n, k);
      }
    }
  });
  context.setTensor(out, result.to(out->dtype()));
}

void evaluateLinear(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  const Tensor& a = context.tensor(expr.input(0));
  const Tensor& weight = context.tensor(expr.input(1));
  FL_ASSERT(a.dim() >= 1 && (weight.dim() == 1 || weight.dim() == 2), expr.toString(),
            ": bad operand ranks");
  const int64_t k = a.sizes().back();
  const int64_t n = weight.dim() == 2 ? weight.sizes()[0] : 1;
  FL_CHECK(weight.sizes().back() == k, "linear: the input's last size ", k,
           " differs from the weight's ", weight.sizes().back(), " (", expr.toString(), ")");
  const int64_t m = a.numel() / std::max<int64_t>(k, 1);
  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end() - 1);
  if (weight.dim() == 2) shape.push_back(n);

  const DataType compute = accumulatorDtype(out->dtype());
  const Tensor aMatrix = asContiguous(a, compute);
  // weight^T as a contiguous [K, N] matrix.
  const Tensor wMatrix = weight.dim() == 2 ? asContiguous(weight.permute({1, 0}), compute)
                                           : asContiguous(weight, compute);
  Tensor bias;
  if (expr.inputs().size() > 2 && expr.input(2) != nullptr) {
    bias = asContiguous(context.tensor(expr.input(2)), compute);
    FL_CHECK(bias.numel() == 1 || (bias.dim() == 1 && bias.sizes()[0] == n),
             "linear: the bias has ", bias.numel(), " elements, expected ", n, " (",
             expr.toString(), ")");
  }
  Tensor result = Tensor::empty(compute, shape);
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      T* c = result.dataAs<T>();
      gemm(aMatrix.dataAs<T>(), wMatrix.dataAs<T>(), c, m, n, k);
      if (bias.defined()) {
        const T* b = bias.dataAs<T>();
        const int64_t step = bias.numel() == 1 ? 0 : 1;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) c[i * n + j] += b[j * step];
        }
      }
    }
  });
  context.setTensor(out, result.to(out->dtype()));
}

}  // namespace

void evaluateMatmul(const ir::Expr& expr, ReferenceContext& context) {
  if (expr.type() == ir::ExprType::Matmul) {
    evaluateMatmulOp(expr, context);
  } else {
    FL_ASSERT(expr.type() == ir::ExprType::Linear, "not a matmul: ", expr.toString());
    evaluateLinear(expr, context);
  }
}

void evaluateSdpa(const ir::Expr& expr, ReferenceContext& context) {
  const Tensor& qIn = context.tensor(expr.input(0));
  const Tensor& kIn = context.tensor(expr.input(1));
  const Tensor& vIn = context.tensor(expr.input(2));
  FL_ASSERT(qIn.dim() == 4 && kIn.dim() == 4 && vIn.dim() == 4, expr.toString(),
            ": q, k and v must be 4-D");
  const auto scalarInput = [&](size_t i) -> const ir::Val* {
    return expr.inputs().size() > i ? expr.input(i) : nullptr;
  };
  const double dropout =
      scalarInput(3) ? context.doubleValue(scalarInput(3), "sdpfa_fwd dropout_p") : 0.0;
  FL_CHECK(dropout == 0.0, "sdpfa_fwd: the CPU reference needs dropout_p = 0, got ", dropout,
           " (dropout is random; compare such fusions with dropout off)");
  const bool causal =
      scalarInput(4) &&
      context.evaluator().evaluateBool(scalarInput(4)->as<ir::Scalar>(), "sdpfa_fwd is_causal");
  const int64_t batch = qIn.sizes()[0];
  const int64_t heads = qIn.sizes()[1];
  const int64_t queries = qIn.sizes()[2];
  const int64_t depth = qIn.sizes()[3];
  const int64_t keys = kIn.sizes()[2];
  const int64_t valueDepth = vIn.sizes()[3];
  FL_CHECK(kIn.sizes()[0] == batch && kIn.sizes()[1] == heads && kIn.sizes()[3] == depth &&
               vIn.sizes()[0] == batch && vIn.sizes()[1] == heads && vIn.sizes()[2] == keys,
           "sdpfa_fwd: q ", qIn.toString(), ", k ", kIn.toString(), " and v ", vIn.toString(),
           " do not agree (", expr.toString(), ")");
  double scale = scalarInput(5) ? context.doubleValue(scalarInput(5), "sdpfa_fwd scale")
                                : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(scale)) scale = 1.0 / std::sqrt(static_cast<double>(depth));

  const Tensor q = asContiguous(qIn, DataType::Float);
  const Tensor k = asContiguous(kIn, DataType::Float);
  const Tensor v = asContiguous(vIn, DataType::Float);
  Tensor out = Tensor::empty(DataType::Float, {batch, heads, queries, valueDepth});
  Tensor logSumExp = Tensor::empty(DataType::Float, {batch, heads, queries});
  const float scaleF = static_cast<float>(scale);
  std::vector<float> scores(static_cast<size_t>(keys));
  for (int64_t bh = 0; bh < batch * heads; ++bh) {
    const float* qh = q.dataAs<float>() + bh * queries * depth;
    const float* kh = k.dataAs<float>() + bh * keys * depth;
    const float* vh = v.dataAs<float>() + bh * keys * valueDepth;
    float* oh = out.dataAs<float>() + bh * queries * valueDepth;
    for (int64_t i = 0; i < queries; ++i) {
      // Causal: the top-left aligned lower triangle (torch's is_causal).
      const int64_t visible = causal ? std::min(keys, i + 1) : keys;
      float rowMax = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        float dot = 0.0f;
        for (int64_t e = 0; e < depth; ++e) dot += qh[i * depth + e] * kh[j * depth + e];
        scores[j] = dot * scaleF;
        rowMax = std::max(rowMax, scores[j]);
      }
      float total = 0.0f;
      for (int64_t j = 0; j < visible; ++j) {
        scores[j] = std::exp(scores[j] - rowMax);
        total += scores[j];
      }
      float* row = oh + i * valueDepth;
      std::fill_n(row, valueDepth, 0.0f);
      for (int64_t j = 0; j < visible; ++j) {
        axpy(row, vh + j * valueDepth, scores[j], valueDepth);
      }
      for (int64_t e = 0; e < valueDepth; ++e) row[e] /= total;
      logSumExp.dataAs<float>()[bh * queries + i] =
          visible > 0 ? rowMax + std::log(total) : -std::numeric_limits<float>::infinity();
    }
  }
  context.setTensor(expr.output(0), out.to(expr.output(0)->dtype()));
  context.setTensor(expr.output(1), logSumExp.to(expr.output(1)->dtype()));
  // No dropout, so no random state: seed and offset are 0.
  for (size_t i = 2; i < expr.outputs().size(); ++i) {
    const auto* tv = expr.output(i)->as<ir::TensorView>();
    Tensor zero = Tensor::empty(tv->dtype(), context.shapeOf(tv));
    zero.zero();
    context.setTensor(tv, std::move(zero));
  }
}

}  // namespace fuserlab::runtime::reference
