#include "core/passes/finalize_multidevice_domains.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::passes {
namespace {

// The tensors the outputs need: inputs, outputs and every live expr's.
std::vector<ir::TensorView*> liveTensors(const ir::Fusion& fusion) {
  std::vector<ir::TensorView*> out;
  auto add = [&](ir::Val* val) {
    auto* tv = val->as<ir::TensorView>();
    if (tv != nullptr && std::find(out.begin(), out.end(), tv) == out.end()) {
      out.push_back(tv);
    }
  };
  for (ir::Val* in : fusion.inputs()) add(in);
  for (ir::Expr* expr : fusion.exprsForOutputs()) {
    for (ir::Val* in : expr->inputs()) add(in);
    for (ir::Val* o : expr->outputs()) add(o);
  }
  for (ir::Val* o : fusion.outputVals()) add(o);
  return out;
}

}  // namespace

std::string_view FinalizeMultideviceDomainsPass::description() const {
  return "checks that all tensors have a mesh or none, and sets sharded "
         "tensors' allocation domains to their loop domains with the DID "
         "split, so they are allocated and bound as local shards";
}

void FinalizeMultideviceDomainsPass::run(ir::Fusion& fusion, const PassOptions&,
                                         PassRecord& record) const {
  const std::vector<ir::TensorView*> tensors = liveTensors(fusion);
  std::string withMesh, withoutMesh;
  for (ir::TensorView* tv : tensors) {
    std::string& list = tv->hasDeviceMesh() ? withMesh : withoutMesh;
    if (!list.empty()) list += ", ";
    list += tv->name();
    for (ir::IterDomain* id : tv->loop()) {
      if (!id->isDeviceDim()) continue;
      FL_CHECK(tv->hasDeviceMesh(), tv->name(), " has the device axis ", id->toString(),
               " but no device mesh; set_device_mesh it");
      auto extent = id->extent()->constInt();
      FL_CHECK(!extent || *extent == tv->deviceMesh().size(), tv->name(), ": its device axis ",
               id->toString(), " has extent ", *extent, " but its ", tv->deviceMesh().toString(),
               " has ", tv->deviceMesh().size(), " devices");
    }
  }
  if (withMesh.empty()) return;
  FL_CHECK(withoutMesh.empty(),
           "a multi-device fusion needs a device mesh on every tensor, or on "
           "none; ",
           withMesh, " have one but ", withoutMesh, " do not (propagation could not reach them)");
  for (ir::TensorView* tv : tensors) {
    if (!multidevice::isSharded(tv)) continue;
    const auto& d = tv->domain();
    if (d.allocation == d.loop) continue;
    FL_CHECK(!d.hasAllocation(), tv->name(),
             " has both a stride order or allocation domain and a sharding; "
             "FuserLab supports one or the other");
    tv->setAllocationAsLoop();
    std::string axes;
    for (ir::IterDomain* id : tv->loop()) {
      axes += (axes.empty() ? "" : ", ") + id->toString();
    }
    record.rewrites.push_back(tv->name() + ": allocation [" + axes + "] (" +
                              multidevice::describeSharding(tv) + ")");
  }
}

}  // namespace fuserlab::passes
