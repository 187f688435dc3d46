// PropagateShardingsPass (seed 004): gives every tensor of a multi-device
// fusion a mesh and a sharding, from the shardings the user put on inputs.
//   - Forward: in topological order, an output without a mesh takes its
//     inputs' mesh; its sharding comes from the most-sharded tensor input
//     (the first input whose DIDx axis maps to the output, see
//     multidevice/axis_mapping.h), reshape included (the sharded axis kept,
//     split, or outermost in a merge). A linear whose input and weight are
//     both sharded on the contraction axis gets a Reduction axis for it,
//     sharded: its output is a partial sum.
//   - Backward: a fusion input that is unsharded, feeding a pointwise op
//     whose output is sharded, takes the output's sharding (seed 004's
//     ResidualAdd: the unsharded residual is sharded like its partner rather
//     than the sharded operand being gathered).
// Does nothing in a fusion without meshes. Each sharded tensor is recorded.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class PropagateShardingsPass final : public Pass {
 public:
  std::string_view name() const override { return "propagate_shardings"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
