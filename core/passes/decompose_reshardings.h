// DecomposeReshardingsPass (seed 004): separates communication from compute.
// After sharding propagation an expr may read an input sharded differently
// from what its output's sharding needs (a gathered operand, a partial sum,
// a replicated tensor feeding a sharded op). For each such input a `set` is
// inserted that carries the input into the needed sharding, so every compute
// expr reads and writes tensors sharded alike and every change of sharding is
// a set of its own, classified as a communication (multidevice/
// communication.h). Partial fusion outputs get a set to the replicated value.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class DecomposeReshardingsPass final : public Pass {
 public:
  std::string_view name() const override { return "decompose_reshardings"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
