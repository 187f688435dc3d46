// The attention emitter: an sdpfa_fwd segment as a generated kernel. For
// bf16 or half q, k, v with a head dimension of 16 to 128 (a multiple of
// 16) on sm_80+, the tiled tensor-core kernel (attention_flash.h). Else the
// one-row kernel, simple and exact rather than fast: one thread block per
// (batch, head, query row) computes the row's scores q.k * scale (the
// causal mask keeps keys j <= i, torch's top-left alignment), their
// softmax and the weighted sum of v, all in float, and the row's
// log-sum-exp; its scores live in shared memory, S floats per block.
// Dropout is not supported (dropout_p must be 0).
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of `segment`, whose one tensor expr is an sdpfa_fwd. Scalars
//! (dropout_p, is_causal, scale) are read from info.evaluator and written
//! into the source. UserError for dropout_p != 0 or more keys than shared
//! memory holds.
GeneratedKernel emitAttentionKernel(const ir::Fusion& segment,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view kernelName);

}  // namespace fuserlab::codegen
