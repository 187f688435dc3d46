#include "core/multidevice/local_fusion.h"

#include <unordered_set>

#include "core/ir/cloner.h"
#include "core/ir/error.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::multidevice {

bool isMultiDevice(const ir::Fusion& fusion) {
  for (const auto& val : fusion.vals()) {
    const auto* tv = val->as<ir::TensorView>();
    if (tv != nullptr && tv->hasDeviceMesh()) return true;
  }
  return false;
}

std::unique_ptr<ir::Fusion> localFusion(const ir::Fusion& fusion) {
  std::unique_ptr<ir::Fusion> local = ir::cloneFusion(fusion);
  std::vector<ir::TensorView*> tensors;
  for (const auto& val : local->vals()) {
    if (auto* tv = val->as<ir::TensorView>()) tensors.push_back(tv);
  }
  // Axes may be shared between tensors (an op's output reusing its input's
  // IterDomain): each is localized once.
  std::unordered_set<const ir::IterDomain*> done;
  for (ir::TensorView* tv : tensors) {
    ir::IterDomain* id = shardedLogicalId(tv);
    if (id == nullptr || done.count(id)) continue;
    done.insert(id);
    const ir::Scalar* extent = id->extent();
    const auto constant = extent->constInt();
    if (!constant) continue;  // symbolic: bound from the local tensor
    const int64_t devices = tv->deviceMesh().size();
    const int64_t shard =
        shardExtent(*constant, devices, tv->name() + "'s sharded axis " + id->toString());
    local->setExtent(id, local->constInt(shard));
  }
  for (ir::TensorView* tv : tensors) local->dropDeviceSharding(tv);
  return local;
}

}  // namespace fuserlab::multidevice
