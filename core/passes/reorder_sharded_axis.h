// ReorderShardedAxisPass (seed 004): a collective moves whole shards, so the
// tensors a resharding set reads and writes get their DIDx axis outermost in
// the loop domain (which finalize_multidevice_domains makes the allocation):
// each device's shard is then one contiguous block, as NCCL's allgather and
// reduce-scatter expect. Compute tensors keep their order.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class ReorderShardedAxisPass final : public Pass {
 public:
  std::string_view name() const override { return "reorder_sharded_axis"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
