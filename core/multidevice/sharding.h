// Sharding: how a TensorView is spread over its DeviceMesh. A sharding is an
// outer split of a loop axis by the mesh size, the outer IterDomain
// parallelized DIDx: logical [i0{E}] -> loop [iDIDx{d}, iS{E/d}], and device
// k of the mesh holds the k-th contiguous block of E/d elements of that axis.
// A sharded Reduction axis means the tensor is a partial result: each device
// holds its block's contribution and the sum over devices is the value.
//
// Invariant these helpers check: at most one loop axis of a tensor is DIDx,
// it derives from exactly one logical axis through outer splits, and the
// split divides that axis evenly (uneven shards are refused).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::multidevice {

//! Shards `tv` on loop axis `loopAxis` over its mesh (which must be set):
//! outer split by the mesh size, the outer axis parallelized `type`.
void shardOuter(ir::TensorView* tv, int64_t loopAxis,
                ir::ParallelType type = ir::ParallelType::DIDx);

//! The loop axis parallelized `type`, or null.
ir::IterDomain* deviceLoopAxis(const ir::TensorView* tv,
                               ir::ParallelType type = ir::ParallelType::DIDx);

//! The logical IterDomain the DIDx loop axis derives from (a Reduction axis
//! for a partial tensor), or null if `tv` is not sharded.
ir::IterDomain* shardedLogicalId(const ir::TensorView* tv);

//! True if a loop axis of `tv` is DIDx (a partial tensor counts).
bool isSharded(const ir::TensorView* tv);
//! True if the sharded axis is a Reduction axis: each device holds a partial
//! sum of the value.
bool isPartial(const ir::TensorView* tv);
//! The sharded axis as a position in logicalNoReductions (the shape the
//! tensor has), or -1 when `tv` is unsharded or partial.
int64_t shardedAxis(const ir::TensorView* tv);

//! Extent of one shard of an axis of `extent` over `meshSize` devices; a
//! UserError naming `what` when the devices do not divide the axis.
int64_t shardExtent(int64_t extent, int64_t meshSize, const std::string& what);

//! The shape the device `device` holds of `tv` (its logicalNoReductions
//! shape, the sharded axis divided by the mesh size), extents evaluated by
//! `evaluator`. A device outside the mesh is a UserError.
std::vector<int64_t> localShape(const ir::TensorView& tv, const ir::ExpressionEvaluator& evaluator,
                                int64_t device);

//! "sharded on axis 1 (iS3{i1}) over mesh{0 1}", "partial over mesh{0 1} on
//! rS5{i2}", "replicated on mesh{0 1}", "no mesh": for reports and errors.
std::string describeSharding(const ir::TensorView* tv);

}  // namespace fuserlab::multidevice
