// Sharding inputs: turning the whole (unsharded) tensors a repro's inputs
// block describes into what one device of a multi-device fusion binds: for
// each input sharded after the passes, that device's slice of the sharded
// axis, laid out in the input's allocation domain (DIDx axis of size 1,
// seed 002). Inputs already in their allocation shape, and unsharded ones,
// pass through unchanged.
#pragma once

#include <cstdint>

#include "core/ir/fusion.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! `global` with every sharded input of `fusion` (after the passes) replaced
//! by device `device`'s shard in allocation layout. A device outside an
//! input's mesh, or an axis the mesh does not divide, is a UserError.
Arguments shardInputs(const ir::Fusion& fusion, const Arguments& global, int64_t device);

}  // namespace fuserlab::runtime
