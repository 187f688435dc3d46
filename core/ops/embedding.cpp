#include "core/ops/embedding.h"

#include "core/ir/error.h"
#include "core/ops/alias.h"
#include "core/ops/factory.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::DataType;
using ir::Scalar;

constexpr std::string_view kOp = "embedding_fwd";

void checkNumber(const Scalar* scalar, std::string_view what) {
  FL_CHECK(ir::isFloatingPoint(scalar->dtype()) || ir::isIntegral(scalar->dtype()), kOp, ": ", what,
           " ", describeVal(scalar), " is ", ir::toString(scalar->dtype()), "; expected a number");
}

void checkBool(const Scalar* scalar, std::string_view what) {
  FL_CHECK(scalar->dtype() == DataType::Bool, kOp, ": ", what, " ", describeVal(scalar), " is ",
           ir::toString(scalar->dtype()), "; expected a Bool");
}

// index_select(weight, input, 0) for 1-D indices; otherwise the indices
// flattened to 1-D first and the selected rows given their shape back.
ir::TensorView* lookUpRows(ir::TensorView* input, ir::TensorView* weight) {
  if (input->rank() == 1) return indexSelect(weight, input, 0);
  ir::Fusion* fusion = input->fusion();
  ir::TensorView* rows = indexSelect(weight, reshape(input, {fusion->constInt(-1)}), 0);
  std::vector<ir::Scalar*> shape;
  for (const ir::IterDomain* id : input->logicalNoReductions()) {
    shape.push_back(id->extentForIteration());
  }
  shape.push_back(weight->logicalNoReductions()[1]->extentForIteration());
  return reshape(rows, shape);
}

}  // namespace

ir::TensorView* embeddingFwd(ir::TensorView* input, ir::TensorView* weight, Scalar* paddingIdx,
                             Scalar* maxNorm, Scalar* normType, Scalar* scaleGradByFreq,
                             Scalar* sparse) {
  checkPresent(kOp, input, "the input");
  checkPresent(kOp, weight, "the weight");
  FL_CHECK(ir::isIntegral(input->dtype()), kOp, ": the input ", describeVal(input), " is ",
           ir::toString(input->dtype()), "; expected integer indices (Int32 or Int)");
  FL_CHECK(input->rank() >= 1, kOp, ": the input ", describeVal(input),
           " is 0-dim; expected at least one axis of indices");
  FL_CHECK(weight->rank() == 2, kOp, ": the weight ", describeVal(weight), " has rank ",
           weight->rank(), "; expected 2 axes [num_embeddings, embedding_dim]");
  const auto& weightAxes = weight->logicalNoReductions();
  ir::Fusion* fusion = input->fusion();
  if (paddingIdx != nullptr) {
    checkIntegralScalar(kOp, paddingIdx, "padding_idx");
    const auto rows = constExtent(weightAxes[0]);
    const auto padding = paddingIdx->constInt();
    FL_CHECK(!rows || !padding || (*padding >= -*rows && *padding < *rows), kOp, ": padding_idx ",
             *padding, " is out of range for ", describeVal(weight), " of ", *rows,
             " embeddings (expected -num_embeddings <= padding_idx < "
             "num_embeddings)");
  }
  if (maxNorm != nullptr) {
    checkNumber(maxNorm, "max_norm");
    FL_CHECK(ir::isFloatingPoint(weight->dtype()), kOp,
             ": max_norm renormalizes rows of the weight ", describeVal(weight), ", which is ",
             ir::toString(weight->dtype()), "; expected a floating-point weight");
  }
  if (normType == nullptr) normType = fusion->constDouble(2.0);
  if (scaleGradByFreq == nullptr) scaleGradByFreq = fusion->constBool(false);
  if (sparse == nullptr) sparse = fusion->constBool(false);
  checkNumber(normType, "norm_type");
  checkBool(scaleGradByFreq, "scale_grad_by_freq");
  checkBool(sparse, "sparse");

  // Without max_norm the forward is weight's rows picked by the indices:
  // padding_idx, scale_grad_by_freq and sparse change only the backward
  // (torch.embedding ignores them in its forward, and so does nvFuser's
  // EmbeddingFwdOp). So it is built, as nvFuser's triu is, from ops every
  // backend runs: an index_select of rows by the flattened indices, reshaped
  // to the indices' shape plus the embedding axis.
  if (maxNorm == nullptr) return lookUpRows(input, weight);

  // max_norm renormalizes each looked-up row by its norm: the Embedding expr
  // stays, which only the CPU reference evaluates (no GPU kernel).
  std::vector<ir::IterDomain*> axes;
  for (const ir::IterDomain* id : input->logicalNoReductions()) {
    axes.push_back(fusion->cloneIterDomain(id));
  }
  axes.push_back(fusion->cloneIterDomain(weightAxes[1]));
  ir::TensorView* out = fusion->newTensorView(axes, weight->dtype());
  std::vector<ir::Val*> inputs = {input, weight, normType, scaleGradByFreq, sparse};
  ir::ExprAttrs attrs;
  attrs.flags = {paddingIdx != nullptr, maxNorm != nullptr};
  if (paddingIdx != nullptr) inputs.push_back(paddingIdx);
  if (maxNorm != nullptr) inputs.push_back(maxNorm);
  fusion->newExpr(ir::ExprType::Embedding, inputs, {out}, attrs);
  return out;
}

}  // namespace fuserlab::ops
