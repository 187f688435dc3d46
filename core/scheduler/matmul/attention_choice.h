// Which generated kernel an sdpfa_fwd segment gets (there is no cuDNN path):
// the tiled tensor-core kernel (core/codegen/attention_flash.h) where the
// operands and the device allow it, else the one-row kernel. The matmul
// scheduler reports the choice and why; the attention emitter follows it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/ir/data_type.h"

namespace fuserlab::scheduler {

//! Why the tiled kernel does not apply to q, k, v of these types and head
//! dimensions on a device of `computeCapability` (major * 10 + minor), or
//! nullopt: it takes one 16-bit type (bf16 or half; mma.sync, sm_80+) and
//! a head dimension, the same for v, that is a multiple of 16 from 16 to
//! 128.
std::optional<std::string> tiledAttentionRefusal(ir::DataType q, ir::DataType k, ir::DataType v,
                                                 int64_t depth, int64_t valueDepth,
                                                 int computeCapability);

}  // namespace fuserlab::scheduler
