// Local fusion: what one device computes of a segment of a multi-device
// fusion, as an ordinary single-device Fusion that the CPU reference and the
// GPU executor run unchanged. Every sharded axis gets its shard's extent
// (the global extent over the mesh size), which also makes a partial
// tensor's sharded reduction run over the device's block only (its partial
// sum); meshes, DID splits and the allocation domains that carry them go.
// Symbolic extents stay symbolic: binding the device's local tensors gives
// them local values.
//
// Devices of one mesh compute the same local fusion (only their data
// differs), so a segment is localized once per run, not per device.
#pragma once

#include <memory>

#include "core/ir/fusion.h"

namespace fuserlab::multidevice {

//! A deep copy of `fusion` with every sharded axis of constant extent made
//! local and all sharding dropped. An axis its mesh does not divide is a
//! UserError naming the tensor and axis.
std::unique_ptr<ir::Fusion> localFusion(const ir::Fusion& fusion);

//! True if a tensor of `fusion` has a device mesh.
bool isMultiDevice(const ir::Fusion& fusion);

}  // namespace fuserlab::multidevice
