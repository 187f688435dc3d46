// FinalizeMultideviceDomainsPass (seeds 002, 004): the last multi-device
// pass. Checks that a fusion's tensors all have a mesh or none do (a mix is a
// UserError naming the tensors without one), that every DIDx axis has the
// extent of its tensor's mesh, and gives each sharded tensor an allocation
// domain equal to its loop domain, DID split included: the tensor is
// allocated, and bound, as its local shard (DIDx axis of size 1).
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class FinalizeMultideviceDomainsPass final : public Pass {
 public:
  std::string_view name() const override { return "finalize_multidevice_domains"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
