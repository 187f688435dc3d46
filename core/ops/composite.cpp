#include "core/ops/composite.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/ir/error.h"
#include "core/ops/broadcast_shape.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::DataType;
using ir::Fusion;
using ir::IterDomain;
using ir::Scalar;
using ir::TensorView;

void checkSameFloatingDtype(std::string_view op, const std::vector<const TensorView*>& tensors) {
  const TensorView* first = tensors.front();
  FL_CHECK(ir::isFloatingPoint(first->dtype()), op, ": ", describeVal(first), " is ",
           ir::toString(first->dtype()), "; expected a floating-point dtype");
  for (const TensorView* tv : tensors) {
    FL_CHECK(tv->dtype() == first->dtype(), op, ": ", describeVal(first), " is ",
             ir::toString(first->dtype()), " but ", describeVal(tv), " is ",
             ir::toString(tv->dtype()), "; operands must have the same dtype (cast one of them)");
  }
}

// Constant extents of two axes that must agree (a contraction axis, the
// batch of attention operands), named for the message.
void checkSameExtent(std::string_view op, std::string_view what, const TensorView* a,
                     const IterDomain* aAxis, const TensorView* b, const IterDomain* bAxis) {
  auto ea = constExtent(aAxis);
  auto eb = constExtent(bAxis);
  FL_CHECK(!ea || !eb || *ea == *eb, op, ": ", describeVal(a), " ", shapeToString(a), " and ",
           describeVal(b), " ", shapeToString(b), " disagree on ", what, ": ", *ea, " vs ", *eb);
}

void checkRank(std::string_view op, std::string_view role, const TensorView* tv, int64_t rank,
               std::string_view layout) {
  FL_CHECK(tv->rank() == rank, op, ": ", role, " ", describeVal(tv), " has rank ", tv->rank(),
           "; expected ", rank, " axes ", layout);
}

Scalar* scalarOr(Scalar* given, Scalar* fallback) { return given != nullptr ? given : fallback; }

}  // namespace

TensorView* matmul(TensorView* a, TensorView* b) {
  constexpr std::string_view kOp = "matmul";
  checkPresent(kOp, a, "the first operand");
  checkPresent(kOp, b, "the second operand");
  for (const TensorView* tv : {a, b}) {
    FL_CHECK(tv->rank() >= 1, kOp, ": ", describeVal(tv),
             " is 0-dim; both operands need at least one axis");
  }
  checkSameFloatingDtype(kOp, {a, b});
  const auto& aAxes = a->logicalNoReductions();
  const auto& bAxes = b->logicalNoReductions();
  const size_t ra = aAxes.size();
  const size_t rb = bAxes.size();
  checkSameExtent(kOp, "the contraction axis (K)", a, aAxes[ra - 1], b,
                  rb == 1 ? bAxes[0] : bAxes[rb - 2]);

  // Batch axes: all but the last two of each operand, aligned from the right.
  const size_t aBatch = ra >= 2 ? ra - 2 : 0;
  const size_t bBatch = rb >= 2 ? rb - 2 : 0;
  const size_t batch = std::max(aBatch, bBatch);
  Fusion* fusion = a->fusion();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i < batch; ++i) {
    std::vector<AlignedAxis> aligned;
    if (i + aBatch >= batch) aligned.push_back({a, aAxes[i + aBatch - batch]});
    if (i + bBatch >= batch) aligned.push_back({b, bAxes[i + bBatch - batch]});
    outAxes.push_back(broadcastAxis(kOp, aligned, static_cast<int64_t>(i)));
  }
  if (ra >= 2) outAxes.push_back(fusion->cloneIterDomain(aAxes[ra - 2]));
  if (rb >= 2) outAxes.push_back(fusion->cloneIterDomain(bAxes[rb - 1]));
  TensorView* out = fusion->newTensorView(outAxes, a->dtype());
  fusion->newExpr(ir::ExprType::Matmul, {a, b}, {out});
  return out;
}

TensorView* linear(TensorView* a, TensorView* weight, TensorView* bias) {
  constexpr std::string_view kOp = "linear";
  checkPresent(kOp, a, "the input");
  checkPresent(kOp, weight, "the weight");
  FL_CHECK(a->rank() >= 1, kOp, ": the input ", describeVal(a), " is 0-dim; expected [..., K]");
  FL_CHECK(weight->rank() == 1 || weight->rank() == 2, kOp, ": the weight ", describeVal(weight),
           " has rank ", weight->rank(), "; expected [N, K] or [K]");
  std::vector<const TensorView*> operands = {a, weight};
  if (bias != nullptr) operands.push_back(bias);
  checkSameFloatingDtype(kOp, operands);
  const auto& aAxes = a->logicalNoReductions();
  const auto& wAxes = weight->logicalNoReductions();
  checkSameExtent(kOp, "the contraction axis (K)", a, aAxes.back(), weight, wAxes.back());
  if (bias != nullptr) {
    const int64_t expected = weight->rank() - 1;
    FL_CHECK(bias->rank() == expected || bias->rank() == 0, kOp, ": the bias ", describeVal(bias),
             " has rank ", bias->rank(), "; expected ",
             expected == 1 ? "[N] (the weight's first axis)" : "a 0-dim tensor");
    if (bias->rank() == 1) {
      checkSameExtent(kOp, "the output features (N)", weight, wAxes[0], bias,
                      bias->logicalNoReductions()[0]);
    }
  }
  Fusion* fusion = a->fusion();
  std::vector<IterDomain*> outAxes;
  for (size_t i = 0; i + 1 < aAxes.size(); ++i) {
    outAxes.push_back(fusion->cloneIterDomain(aAxes[i]));
  }
  if (wAxes.size() == 2) outAxes.push_back(fusion->cloneIterDomain(wAxes[0]));
  TensorView* out = fusion->newTensorView(outAxes, a->dtype());
  std::vector<ir::Val*> inputs = {a, weight};
  if (bias != nullptr) inputs.push_back(bias);
  fusion->newExpr(ir::ExprType::Linear, inputs, {out});
  return out;
}

SdpaResult sdpfaFwd(TensorView* q, TensorView* k, TensorView* v, Scalar* dropoutP, Scalar* isCausal,
                    Scalar* scale) {
  constexpr std::string_view kOp = "sdpfa_fwd";
  checkPresent(kOp, q, "the query");
  checkPresent(kOp, k, "the key");
  checkPresent(kOp, v, "the value");
  checkRank(kOp, "the query", q, 4, "[N, H, L, E]");
  checkRank(kOp, "the key", k, 4, "[N, H, S, E]");
  checkRank(kOp, "the value", v, 4, "[N, H, S, Ev]");
  FL_CHECK(ir::isReducedPrecision(q->dtype()), kOp, ": the query ", describeVal(q), " is ",
           ir::toString(q->dtype()), "; flash attention needs Half or BFloat16");
  checkSameFloatingDtype(kOp, {q, k, v});
  const auto& qAxes = q->logicalNoReductions();
  const auto& kAxes = k->logicalNoReductions();
  const auto& vAxes = v->logicalNoReductions();
  checkSameExtent(kOp, "the batch (N)", q, qAxes[0], k, kAxes[0]);
  checkSameExtent(kOp, "the batch (N)", q, qAxes[0], v, vAxes[0]);
  checkSameExtent(kOp, "the heads (H)", q, qAxes[1], k, kAxes[1]);
  checkSameExtent(kOp, "the heads (H)", q, qAxes[1], v, vAxes[1]);
  checkSameExtent(kOp, "the head size (E)", q, qAxes[3], k, kAxes[3]);
  checkSameExtent(kOp, "the sequence length (S)", k, kAxes[2], v, vAxes[2]);

  Fusion* fusion = q->fusion();
  dropoutP = scalarOr(dropoutP, fusion->constDouble(0.0));
  isCausal = scalarOr(isCausal, fusion->constBool(false));
  scale = scalarOr(scale, fusion->constDouble(std::numeric_limits<double>::quiet_NaN()));
  FL_CHECK(ir::isFloatingPoint(dropoutP->dtype()) || ir::isIntegral(dropoutP->dtype()), kOp,
           ": dropout_p ", describeVal(dropoutP), " is ", ir::toString(dropoutP->dtype()),
           "; expected a number");
  FL_CHECK(isCausal->dtype() == DataType::Bool, kOp, ": is_causal ", describeVal(isCausal), " is ",
           ir::toString(isCausal->dtype()), "; expected Bool");
  FL_CHECK(ir::isFloatingPoint(scale->dtype()) || ir::isIntegral(scale->dtype()), kOp, ": scale ",
           describeVal(scale), " is ", ir::toString(scale->dtype()), "; expected a number");

  SdpaResult result;
  result.output =
      fusion->newTensorView({fusion->cloneIterDomain(qAxes[0]), fusion->cloneIterDomain(qAxes[1]),
                             fusion->cloneIterDomain(qAxes[2]), fusion->cloneIterDomain(vAxes[3])},
                            q->dtype());
  result.logSumExp =
      fusion->newTensorView({fusion->cloneIterDomain(qAxes[0]), fusion->cloneIterDomain(qAxes[1]),
                             fusion->cloneIterDomain(qAxes[2])},
                            DataType::Float);
  result.philoxSeed = fusion->newTensorView(std::vector<IterDomain*>{}, DataType::Int);
  result.philoxOffset = fusion->newTensorView(std::vector<IterDomain*>{}, DataType::Int);
  result.philoxSeed->setCpuScalar(true);
  result.philoxOffset->setCpuScalar(true);
  fusion->newExpr(ir::ExprType::Sdpa, {q, k, v, dropoutP, isCausal, scale},
                  {result.output, result.logSumExp, result.philoxSeed, result.philoxOffset});
  return result;
}

SdpaBwdResult sdpfaBwd(TensorView* gradOutput, TensorView* q, TensorView* k, TensorView* v,
                       TensorView* output, TensorView* logSumExp, Scalar* dropoutP,
                       Scalar* isCausal, TensorView* philoxSeed, TensorView* philoxOffset,
                       Scalar* scale) {
  constexpr std::string_view kOp = "sdpfa_bwd";
  checkPresent(kOp, gradOutput, "grad_output");
  checkPresent(kOp, q, "the query");
  checkPresent(kOp, k, "the key");
  checkPresent(kOp, v, "the value");
  checkPresent(kOp, output, "the output");
  checkPresent(kOp, logSumExp, "log_sumexp");
  checkRank(kOp, "grad_output", gradOutput, 4, "[N, H, L, Ev]");
  checkRank(kOp, "the query", q, 4, "[N, H, L, E]");
  checkRank(kOp, "the key", k, 4, "[N, H, S, E]");
  checkRank(kOp, "the value", v, 4, "[N, H, S, Ev]");
  checkRank(kOp, "the output", output, 4, "[N, H, L, Ev]");
  checkRank(kOp, "log_sumexp", logSumExp, 3, "[N, H, L]");
  checkSameFloatingDtype(kOp, {q, k, v, output, gradOutput});
  FL_CHECK(ir::isFloatingPoint(logSumExp->dtype()), kOp, ": log_sumexp ", describeVal(logSumExp),
           " is ", ir::toString(logSumExp->dtype()),
           "; expected Float (sdpfa_fwd's second output)");
  const auto& qAxes = q->logicalNoReductions();
  const auto& kAxes = k->logicalNoReductions();
  const auto& vAxes = v->logicalNoReductions();
  const auto& oAxes = output->logicalNoReductions();
  const auto& gAxes = gradOutput->logicalNoReductions();
  const auto& lAxes = logSumExp->logicalNoReductions();
  checkSameExtent(kOp, "the batch (N)", q, qAxes[0], k, kAxes[0]);
  checkSameExtent(kOp, "the batch (N)", q, qAxes[0], v, vAxes[0]);
  checkSameExtent(kOp, "the heads (H)", q, qAxes[1], k, kAxes[1]);
  checkSameExtent(kOp, "the heads (H)", q, qAxes[1], v, vAxes[1]);
  checkSameExtent(kOp, "the head size (E)", q, qAxes[3], k, kAxes[3]);
  checkSameExtent(kOp, "the sequence length (S)", k, kAxes[2], v, vAxes[2]);
  for (size_t i = 0; i < 3; ++i) {
    checkSameExtent(kOp, "the output's shape [N, H, L]", q, qAxes[i], output, oAxes[i]);
    checkSameExtent(kOp, "the output's shape [N, H, L]", q, qAxes[i], gradOutput, gAxes[i]);
    checkSameExtent(kOp, "logsumexp's shape [N, H, L]", q, qAxes[i], logSumExp, lAxes[i]);
  }
  checkSameExtent(kOp, "the value head size (Ev)", v, vAxes[3], output, oAxes[3]);
  checkSameExtent(kOp, "the value head size (Ev)", v, vAxes[3], gradOutput, gAxes[3]);

  Fusion* fusion = q->fusion();
  dropoutP = scalarOr(dropoutP, fusion->constDouble(0.0));
  isCausal = scalarOr(isCausal, fusion->constBool(false));
  scale = scalarOr(scale, fusion->constDouble(std::numeric_limits<double>::quiet_NaN()));
  FL_CHECK(ir::isFloatingPoint(dropoutP->dtype()) || ir::isIntegral(dropoutP->dtype()), kOp,
           ": dropout_p ", describeVal(dropoutP), " is ", ir::toString(dropoutP->dtype()),
           "; expected a number");
  FL_CHECK(isCausal->dtype() == DataType::Bool, kOp, ": is_causal ", describeVal(isCausal), " is ",
           ir::toString(isCausal->dtype()), "; expected Bool");
  FL_CHECK(ir::isFloatingPoint(scale->dtype()) || ir::isIntegral(scale->dtype()), kOp, ": scale ",
           describeVal(scale), " is ", ir::toString(scale->dtype()), "; expected a number");
  ir::Val* seed = philoxSeed;
  ir::Val* offset = philoxOffset;
  if (seed == nullptr) seed = fusion->constInt(0);
  if (offset == nullptr) offset = fusion->constInt(0);

  auto like = [&](const TensorView* tv) {
    std::vector<IterDomain*> axes;
    for (const IterDomain* id : tv->logicalNoReductions()) {
      axes.push_back(fusion->cloneIterDomain(id));
    }
    return fusion->newTensorView(axes, tv->dtype());
  };
  SdpaBwdResult result;
  result.gradQuery = like(q);
  result.gradKey = like(k);
  result.gradValue = like(v);
  fusion->newExpr(ir::ExprType::SdpaBwd,
                  {gradOutput, q, k, v, output, logSumExp, dropoutP, isCausal, seed, offset, scale},
                  {result.gradQuery, result.gradKey, result.gradValue});
  return result;
}

}  // namespace fuserlab::ops
