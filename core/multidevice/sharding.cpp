#include "core/multidevice/sharding.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/iter_domain.h"

namespace fuserlab::multidevice {

void shardOuter(ir::TensorView* tv, int64_t loopAxis, ir::ParallelType type) {
  FL_CHECK(tv->hasDeviceMesh(), "cannot shard ", tv->name(),
           ": it has no device mesh (set_device_mesh first)");
  FL_CHECK(ir::isDeviceParallel(type), "shardOuter: ", ir::toString(type),
           " is not a device parallel type");
  FL_CHECK(deviceLoopAxis(tv, type) == nullptr, tv->name(), " is already sharded on ",
           ir::toString(type));
  const int64_t rank = static_cast<int64_t>(tv->loop().size());
  if (loopAxis < 0) loopAxis += rank;
  tv->split(loopAxis, tv->fusion()->constInt(tv->deviceMesh().size()),
            /*innerSplit=*/false);
  tv->loop()[static_cast<size_t>(loopAxis)]->parallelize(type);
}

ir::IterDomain* deviceLoopAxis(const ir::TensorView* tv, ir::ParallelType type) {
  ir::IterDomain* found = nullptr;
  for (ir::IterDomain* id : tv->loop()) {
    if (id->parallelType() != type) continue;
    FL_CHECK(found == nullptr, tv->name(), " has two loop axes parallelized ", ir::toString(type),
             ": ", found->toString(), " and ", id->toString());
    found = id;
  }
  return found;
}

ir::IterDomain* shardedLogicalId(const ir::TensorView* tv) {
  ir::IterDomain* id = deviceLoopAxis(tv);
  if (id == nullptr) return nullptr;
  const auto& logical = tv->logical();
  while (std::find(logical.begin(), logical.end(), id) == logical.end()) {
    ir::IterDomainTransform* t = id->definition();
    FL_CHECK(t != nullptr, tv->name(), ": its DIDx axis ", id->toString(),
             " does not derive from a logical axis");
    FL_CHECK(t->kind() == ir::TransformKind::Split, tv->name(),
             ": its DIDx axis comes from a merge (", t->toString(),
             "); only splits of one logical axis are supported");
    id = t->inputs()[0];
  }
  return id;
}

bool isSharded(const ir::TensorView* tv) { return deviceLoopAxis(tv) != nullptr; }

bool isPartial(const ir::TensorView* tv) {
  ir::IterDomain* id = shardedLogicalId(tv);
  return id != nullptr && id->isReduction();
}

int64_t shardedAxis(const ir::TensorView* tv) {
  ir::IterDomain* id = shardedLogicalId(tv);
  if (id == nullptr || id->isReduction()) return -1;
  const std::vector<ir::IterDomain*>& axes = tv->logicalNoReductions();
  return std::find(axes.begin(), axes.end(), id) - axes.begin();
}

int64_t shardExtent(int64_t extent, int64_t meshSize, const std::string& what) {
  FL_CHECK(meshSize > 0 && extent % meshSize == 0, what, ": extent ", extent,
           " is not divisible by the ", meshSize,
           " devices of the mesh; only even shards are supported");
  return extent / meshSize;
}

std::vector<int64_t> localShape(const ir::TensorView& tv, const ir::ExpressionEvaluator& evaluator,
                                int64_t device) {
  const std::vector<ir::IterDomain*>& axes = tv.logicalNoReductions();
  std::vector<int64_t> shape;
  shape.reserve(axes.size());
  for (ir::IterDomain* id : axes) shape.push_back(evaluator.evaluateExtent(id));
  const int64_t axis = shardedAxis(&tv);
  if (axis < 0) return shape;
  FL_CHECK(tv.deviceMesh().has(device), "device ", device, " is not in ", tv.name(), "'s ",
           tv.deviceMesh().toString());
  const size_t a = static_cast<size_t>(axis);
  shape[a] =
      shardExtent(shape[a], tv.deviceMesh().size(), tv.name() + " axis " + std::to_string(axis));
  return shape;
}

std::string describeSharding(const ir::TensorView* tv) {
  if (!tv->hasDeviceMesh()) return "no mesh";
  const std::string mesh = tv->deviceMesh().toString();
  ir::IterDomain* id = shardedLogicalId(tv);
  if (id == nullptr) return "replicated on " + mesh;
  if (id->isReduction()) return "partial over " + mesh + " on " + id->toString();
  return "sharded on axis " + std::to_string(shardedAxis(tv)) + " (" + id->toString() + ") over " +
         mesh;
}

}  // namespace fuserlab::multidevice
