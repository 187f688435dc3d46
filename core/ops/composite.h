// Composite op builders whose semantics are a library call: matmul, linear
// and scaled dot-product attention. Their outputs have the dtype of the
// operands (accumulation is in Float).
#pragma once

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! torch.matmul: 1-D, 2-D and batched (leading axes broadcast) operands of
//! the same floating dtype.
ir::TensorView* matmul(ir::TensorView* a, ir::TensorView* b);

//! torch.nn.functional.linear: a [..., K], weight [N, K] (or [K]),
//! bias [N] or null. Output [..., N].
ir::TensorView* linear(ir::TensorView* a, ir::TensorView* weight, ir::TensorView* bias = nullptr);

struct SdpaResult {
  ir::TensorView* output;        //!< [N, H, L, Ev]
  ir::TensorView* logSumExp;     //!< [N, H, L], Float
  ir::TensorView* philoxSeed;    //!< 0-dim Int (cpu)
  ir::TensorView* philoxOffset;  //!< 0-dim Int (cpu)
};

//! Flash-attention forward on q [N, H, L, E], k [N, H, S, E], v [N, H, S, Ev]
//! (Half or BFloat16). `dropoutP` and `isCausal` are scalars (null = 0 and
//! false); `scale` null means 1/sqrt(E).
SdpaResult sdpfaFwd(ir::TensorView* q, ir::TensorView* k, ir::TensorView* v, ir::Scalar* dropoutP,
                    ir::Scalar* isCausal, ir::Scalar* scale);

struct SdpaBwdResult {
  ir::TensorView* gradQuery;  //!< like the query
  ir::TensorView* gradKey;    //!< like the key
  ir::TensorView* gradValue;  //!< like the value
};

//! Flash-attention backward (nvFuser's sdpfa_bwd): the gradients of q, k and
//! v from the output gradient, the forward's inputs, its output and its
//! logsumexp [N, H, L] (Float). `dropoutP`, `isCausal` and `scale` as in
//! sdpfaFwd; `philoxSeed` and `philoxOffset` are the forward's 0-dim outputs
//! (or null: no dropout state).
SdpaBwdResult sdpfaBwd(ir::TensorView* gradOutput, ir::TensorView* q, ir::TensorView* k,
                       ir::TensorView* v, ir::TensorView* output, ir::TensorView* logSumExp,
                       ir::Scalar* dropoutP, ir::Scalar* isCausal, ir::TensorView* philoxSeed,
                       ir::TensorView* philoxOffset, ir::Scalar* scale);

}  // namespace fuserlab::ops
