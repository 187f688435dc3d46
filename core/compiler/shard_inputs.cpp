#include "core/compiler/shard_inputs.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::runtime {
namespace {

// The logical position (without reductions) each allocation axis of `tv`
// covers; -1 for the DIDx axis. The sharded axis's inner split output covers
// the sharded logical axis.
std::vector<int64_t> allocationPositions(const ir::TensorView& tv) {
  const std::vector<ir::IterDomain*>& logical = tv.logicalNoReductions();
  ir::IterDomain* sharded = multidevice::shardedLogicalId(&tv);
  std::vector<int64_t> positions;
  for (ir::IterDomain* id : tv.maybeAllocation()) {
    if (id->isDeviceDim()) {
      positions.push_back(-1);
      continue;
    }
    ir::IterDomain* source = id;
    while (std::find(logical.begin(), logical.end(), source) == logical.end()) {
      ir::IterDomainTransform* t = source->definition();
      FL_CHECK(t != nullptr && t->kind() == ir::TransformKind::Split && t->inputs()[0] == sharded,
               "input ", tv.name(), ": its allocation axis ", id->toString(),
               " is not a logical axis or the local part of the sharded one");
      source = t->inputs()[0];
    }
    positions.push_back(std::find(logical.begin(), logical.end(), source) - logical.begin());
  }
  return positions;
}

Tensor shardOne(const ir::TensorView& tv, const Tensor& global, int64_t device) {
  const int64_t axis = multidevice::shardedAxis(&tv);
  FL_CHECK(tv.deviceMesh().has(device), "device ", device, " is not in ", tv.name(), "'s ",
           tv.deviceMesh().toString());
  const size_t a = static_cast<size_t>(axis);
  std::vector<int64_t> sizes = global.sizes();
  const int64_t shard = multidevice::shardExtent(
      sizes[a], tv.deviceMesh().size(), "input " + tv.name() + " axis " + std::to_string(axis));
  sizes[a] = shard;
  const int64_t index = tv.deviceMesh().indexOf(device);
  Tensor local = global.asStrided(sizes, global.strides(),
                                  global.storageOffset() + index * shard * global.strides()[a]);
  std::vector<int64_t> allocSizes, allocStrides;
  for (int64_t p : allocationPositions(tv)) {
    allocSizes.push_back(p < 0 ? 1 : sizes[static_cast<size_t>(p)]);
    allocStrides.push_back(p < 0 ? 0 : local.strides()[static_cast<size_t>(p)]);
  }
  if (!global.isCpu() || global.isMetadataOnly()) {
    // No data to copy here (a description of a device tensor): a dense
    // allocation-shaped view of the same storage, within its bounds.
    return global.asStrided(allocSizes, Tensor::contiguousStrides(allocSizes),
                            global.storageOffset());
  }
  return local.asStrided(allocSizes, allocStrides, local.storageOffset()).contiguous();
}

}  // namespace

Arguments shardInputs(const ir::Fusion& fusion, const Arguments& global, int64_t device) {
  Arguments out = global;
  const auto& inputs = fusion.inputs();
  for (size_t i = 0; i < inputs.size() && i < out.size(); ++i) {
    const auto* tv = inputs[i]->as<ir::TensorView>();
    auto* tensor = std::get_if<Tensor>(&out[i]);
    if (tv == nullptr || tensor == nullptr || multidevice::shardedAxis(tv) < 0) {
      continue;
    }
    // Already in allocation shape (a local shard): leave it.
    if (tensor->dim() != tv->rank()) continue;
    *tensor = shardOne(*tv, *tensor, device);
  }
  return out;
}

}  // namespace fuserlab::runtime
