// The random ops of fd.ops (uniform, normal, rand_like, randn_like) and
// attention backward (sdpfa_bwd), with nvFuser's signatures (both frontends):
//   uniform(minval, maxval, shape, *, rng_seed=None, rng_offset=None,
//           dtype=DataType.Float)
//   normal(mean, std, shape, *, rng_seed=None, rng_offset=None,
//          dtype=DataType.Float)
//   rand_like(arg, *, rng_seed=None, rng_offset=None)   (and randn_like)
//   sdpfa_bwd(grad_output, query, key, value, output, logsumexp, dropout_p,
//             is_causal, philox_seed, philox_offset, scale)
// The keyword-only parameters are also taken by position.
#include <array>

#include "core/frontend/fd_ops.h"
#include "core/frontend/fd_ops_internal.h"
#include "core/ops/composite.h"
#include "core/ops/random.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::TensorView;

Value distribution(const OpCall& c) {
  const bool uniform = c.op == "uniform";
  const std::string_view a = uniform ? "minval" : "mean";
  const std::string_view b = uniform ? "maxval" : "std";
  BoundArguments args(c.call,
                      {{a, true},
                       {b, true},
                       {"shape", true},
                       {"rng_seed", false},
                       {"rng_offset", false},
                       {"dtype", false}},
                      &c.fusion);
  ir::Scalar* first = args.scalar(a);
  ir::Scalar* second = args.scalar(b);
  std::vector<ir::Scalar*> shape = args.sizeList("shape");
  ir::Scalar* seed = args.optionalScalar("rng_seed");
  ir::Scalar* offset = args.optionalScalar("rng_offset");
  const DataType dtype = args.dtype("dtype", DataType::Float);
  TensorView* out = uniform ? ops::uniform(c.fusion, shape, first, second, dtype, seed, offset)
                            : ops::normal(c.fusion, shape, first, second, dtype, seed, offset);
  return Value::fusionVal(out);
}

Value like(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"rng_seed", false}, {"rng_offset", false}},
                      &c.fusion);
  TensorView* x = args.tensor("arg");
  ir::Scalar* seed = args.optionalScalar("rng_seed");
  ir::Scalar* offset = args.optionalScalar("rng_offset");
  TensorView* out =
      c.op == "rand_like" ? ops::randLike(x, seed, offset) : ops::randnLike(x, seed, offset);
  return Value::fusionVal(out);
}

Value sdpfaBwd(const OpCall& c) {
  const EvaluatedCall call = renameKeyword(c.call, "log_sumexp", "logsumexp");
  BoundArguments args(call,
                      {{"grad_output", true},
                       {"query", true},
                       {"key", true},
                       {"value", true},
                       {"output", true},
                       {"logsumexp", true},
                       {"dropout_p", false},
                       {"is_causal", false},
                       {"philox_seed", false},
                       {"philox_offset", false},
                       {"scale", false}},
                      &c.fusion);
  TensorView* gradOutput = args.tensor("grad_output");
  TensorView* q = args.tensor("query");
  TensorView* k = args.tensor("key");
  TensorView* v = args.tensor("value");
  TensorView* output = args.tensor("output");
  TensorView* logSumExp = args.tensor("logsumexp");
  ir::Scalar* dropout = args.optionalScalar("dropout_p");
  ir::Scalar* causal = args.optionalScalar("is_causal");
  TensorView* seed = args.optionalTensor("philox_seed");
  TensorView* offset = args.optionalTensor("philox_offset");
  ir::Scalar* scale = args.optionalScalar("scale");
  ops::SdpaBwdResult result =
      ops::sdpfaBwd(gradOutput, q, k, v, output, logSumExp, dropout, causal, seed, offset, scale);
  return Value::tuple({Value::fusionVal(result.gradQuery), Value::fusionVal(result.gradKey),
                       Value::fusionVal(result.gradValue)});
}

struct NamedOp {
  std::string_view name;
  OpHandler handler;
};

constexpr std::array<NamedOp, 5> kRandomOps = {{
    {"normal", distribution},
    {"rand_like", like},
    {"randn_like", like},
    {"sdpfa_bwd", sdpfaBwd},
    {"uniform", distribution},
}};

}  // namespace

OpHandler findRandomOp(std::string_view op) {
  for (const NamedOp& entry : kRandomOps) {
    if (entry.name == op) return entry.handler;
  }
  return nullptr;
}

}  // namespace fuserlab::frontend
