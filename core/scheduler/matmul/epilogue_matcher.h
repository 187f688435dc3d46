// The matmul epilogue matcher: which ops after a matmul or linear cuBLASLt
// can compute inside the same call (seed 003). Walking forward from the op's
// output through tensors with a single use that are not fusion outputs, it
// takes, in this order and each optional:
//   1. a widening cast to Float of a bf16/half result (the call's fp32
//      accumulator already is that value, unrounded);
//   2. a bias add (matmul, or linear without a bias): add(x, b) where b is a
//      1-D tensor along the output's last axis, broadcast (and maybe cast to
//      Float) on the way; its dtype must be the call's output dtype or Float;
//   3. an activation: the elementwise region from x to some y, made only of
//      x, constants and pointwise ops, is evaluated in double at sample
//      points and compared with ReLU, tanh-GELU (cuBLASLt's GELU) and
//      erf-GELU. ReLU and tanh-GELU merge; erf-GELU does not (it differs
//      from the tanh form by up to 5e-4) and runs in a following kernel;
//   4. a final narrowing cast to bf16/half: the call writes that dtype.
// A widening cast merges only when the chain ends in such a narrowing cast:
// otherwise the fusion's float result would skip the rounding of the bf16
// matmul result that it asks for. Every step taken or refused is recorded
// with its reason.
#pragma once

#include <string>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/expr.h"
#include "core/ir/fusion.h"

namespace fuserlab::scheduler {

//! What the elementwise function of an activation region is.
enum class ActivationKind { Relu, TanhGelu, ErfGelu, Other };
std::string_view toString(ActivationKind kind);

//! One decision of the matcher.
struct EpilogueStep {
  std::string what;  //!< the exprs, "T5 = add(T3, T4)" or "{T6, ..., T12}"
  bool merged = false;
  std::string reason;
};

struct MatmulMatch {
  const ir::Expr* call = nullptr;  //!< the matmul or linear
  //! The call and every merged expr, in topological order.
  std::vector<const ir::Expr*> exprs;
  //! The tensor cuBLASLt reads as the bias vector (linear's own bias, or the
  //! root of a merged bias add); null without a bias.
  const ir::Val* bias = nullptr;
  //! The tensor the call writes (the last merged expr's output).
  const ir::TensorView* output = nullptr;
  //! "none", "BIAS", "RELU", "RELU_BIAS", "GELU" or "GELU_BIAS".
  std::string epilogue = "none";
  ir::DataType outputDtype = ir::DataType::Float;
  std::vector<EpilogueStep> steps;
};

//! Matches the epilogue of `call` (a Matmul or Linear expr of `fusion`).
MatmulMatch matchMatmulEpilogue(const ir::Fusion& fusion, const ir::Expr& call);

//! Classifies the elementwise function from `x` to `y` made of `exprs`
//! (topological; each reads only x, earlier outputs and constant scalars).
ActivationKind classifyActivation(const std::vector<const ir::Expr*>& exprs, const ir::Val* x,
                                  const ir::Val* y);

}  // namespace fuserlab::scheduler
