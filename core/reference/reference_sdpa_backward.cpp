// Attention backward of the reference executor (sdpfa_bwd): the gradients of
// softmax(scale q k^T) v with respect to q, k and v, recomputing the
// probabilities from the forward's logsumexp as flash attention does:
//   P = exp(scale q k^T - lse)          (0 where a causal mask hides a key)
//   dV = P^T dO
//   dP = dO v^T,  D = rowsum(dO * O),  dS = P * (dP - D)
//   dQ = scale dS k,  dK = scale dS^T q
// Accumulation is in double; the results are rounded once to the operands'
// dtype. Dropout is random and is refused here, as in sdpfa_fwd.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;

struct AttentionShape {
  int64_t batchHeads = 0;
  int64_t queries = 0;     // L
  int64_t keys = 0;        // S
  int64_t depth = 0;       // E
  int64_t valueDepth = 0;  // Ev
};

AttentionShape shapeOf(const ir::Expr& expr, const Tensor& gradOut, const Tensor& q,
                       const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse) {
  FL_ASSERT(q.dim() == 4 && k.dim() == 4 && v.dim() == 4 && out.dim() == 4 && gradOut.dim() == 4 &&
                lse.dim() == 3,
            expr.toString(), ": unexpected ranks");
  AttentionShape s;
  const int64_t batch = q.sizes()[0];
  const int64_t heads = q.sizes()[1];
  s.batchHeads = batch * heads;
  s.queries = q.sizes()[2];
  s.depth = q.sizes()[3];
  s.keys = k.sizes()[2];
  s.valueDepth = v.sizes()[3];
  const auto same = [](const Tensor& t, std::vector<int64_t> sizes) { return t.sizes() == sizes; };
  FL_CHECK(same(k, {batch, heads, s.keys, s.depth}) &&
               same(v, {batch, heads, s.keys, s.valueDepth}) &&
               same(out, {batch, heads, s.queries, s.valueDepth}) &&
               same(gradOut, {batch, heads, s.queries, s.valueDepth}) &&
               same(lse, {batch, heads, s.queries}),
           "sdpfa_bwd: grad_output ", gradOut.toString(), ", q ", q.toString(), ", k ",
           k.toString(), ", v ", v.toString(), ", output ", out.toString(), " and log_sumexp ",
           lse.toString(), " do not agree (", expr.toString(), ")");
  return s;
}

}  // namespace

void evaluateSdpaBwd(const ir::Expr& expr, ReferenceContext& context) {
  FL_ASSERT(expr.inputs().size() == 11 && expr.outputs().size() == 3, expr.toString(),
            ": sdpfa_bwd has 11 inputs and 3 outputs");
  const Tensor& gradOutIn = context.tensor(expr.input(0));
  const Tensor& qIn = context.tensor(expr.input(1));
  const Tensor& kIn = context.tensor(expr.input(2));
  const Tensor& vIn = context.tensor(expr.input(3));
  const Tensor& outIn = context.tensor(expr.input(4));
  const Tensor& lseIn = context.tensor(expr.input(5));
  const double dropout = context.doubleValue(expr.input(6), "sdpfa_bwd dropout_p");
  FL_CHECK(dropout == 0.0, "sdpfa_bwd: the CPU reference needs dropout_p = 0, got ", dropout,
           " (dropout is random; compare such fusions with dropout off)");
  const bool causal =
      context.evaluator().evaluateBool(expr.input(7)->as<ir::Scalar>(), "sdpfa_bwd is_causal");
  const AttentionShape s = shapeOf(expr, gradOutIn, qIn, kIn, vIn, outIn, lseIn);
  double scale = context.doubleValue(expr.input(10), "sdpfa_bwd scale");
  if (std::isnan(scale)) scale = 1.0 / std::sqrt(static_cast<double>(s.depth));

  const Tensor dO = asContiguous(gradOutIn, DataType::Double);
  const Tensor q = asContiguous(qIn, DataType::Double);
  const Tensor k = asContiguous(kIn, DataType::Double);
  const Tensor v = asContiguous(vIn, DataType::Double);
  const Tensor o = asContiguous(outIn, DataType::Double);
  const Tensor lse = asContiguous(lseIn, DataType::Double);
  Tensor dQ = Tensor::empty(DataType::Double, qIn.sizes());
  Tensor dK = Tensor::empty(DataType::Double, kIn.sizes());
  Tensor dV = Tensor::empty(DataType::Double, vIn.sizes());
  dQ.zero();
  dK.zero();
  dV.zero();

  const int64_t L = s.queries, S = s.keys, E = s.depth, Ev = s.valueDepth;
  std::vector<double> dS(static_cast<size_t>(S));
  for (int64_t bh = 0; bh < s.batchHeads; ++bh) {
    const double* qh = q.dataAs<double>() + bh * L * E;
    const double* kh = k.dataAs<double>() + bh * S * E;
    const double* vh = v.dataAs<double>() + bh * S * Ev;
    const double* oh = o.dataAs<double>() + bh * L * Ev;
    const double* dOh = dO.dataAs<double>() + bh * L * Ev;
    const double* lseh = lse.dataAs<double>() + bh * L;
    double* dQh = dQ.dataAs<double>() + bh * L * E;
    double* dKh = dK.dataAs<double>() + bh * S * E;
    double* dVh = dV.dataAs<double>() + bh * S * Ev;
    for (int64_t i = 0; i < L; ++i) {
      // Causal: the top-left aligned lower triangle, as in sdpfa_fwd.
      const int64_t visible = causal ? std::min(S, i + 1) : S;
      const double* qi = qh + i * E;
      const double* dOi = dOh + i * Ev;
      double rowDot = 0.0;  // D_i = dO_i . O_i
      for (int64_t e = 0; e < Ev; ++e) rowDot += dOi[e] * oh[i * Ev + e];
      for (int64_t j = 0; j < visible; ++j) {
        const double* kj = kh + j * E;
        const double* vj = vh + j * Ev;
        double score = 0.0;
        for (int64_t e = 0; e < E; ++e) score += qi[e] * kj[e];
        const double p = std::exp(score * scale - lseh[i]);
        double dP = 0.0;
        for (int64_t e = 0; e < Ev; ++e) {
          dVh[j * Ev + e] += p * dOi[e];
          dP += dOi[e] * vj[e];
        }
        dS[static_cast<size_t>(j)] = p * (dP - rowDot);
      }
      for (int64_t j = 0; j < visible; ++j) {
        const double g = dS[static_cast<size_t>(j)] * scale;
        const double* kj = kh + j * E;
        for (int64_t e = 0; e < E; ++e) {
          dQh[i * E + e] += g * kj[e];
          dKh[j * E + e] += g * qi[e];
        }
      }
    }
  }
  context.setTensor(expr.output(0), dQ.to(expr.output(0)->dtype()));
  context.setTensor(expr.output(1), dK.to(expr.output(1)->dtype()));
  context.setTensor(expr.output(2), dV.to(expr.output(2)->dtype()));
}

}  // namespace fuserlab::runtime::reference
