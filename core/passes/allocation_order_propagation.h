// AllocationOrderPropagationPass: nvFuser's AllocationDomainPass. An output
// without a layout of its own gets the allocation (stride) order of the
// input it is computed from, so a channels-last input gives a channels-last
// output and the kernel reads and writes both along the same innermost axes
// (vectorized, coalesced) instead of transposing through memory.
//
// The reference input is, among the tensor inputs the output depends on, the
// one with the most non-broadcast allocation axes (a full tensor beats a
// broadcast bias); candidates with as many axes must agree on the order, or
// nothing is propagated. Axes are matched through the ops that keep them
// (elementwise, cast, set, broadcast, expand, squeeze, permute, reductions,
// whole-axis slices, pads and cats); the output's matched axes take the
// reference's innermost order, unmatched ones stay outer.
//
// Left alone: outputs with an allocation domain (add_output(stride_order=)
// or the stride_order op), outputs that alias an input, outputs that are
// views (their layout is the view's), fusion inputs used as outputs.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class AllocationOrderPropagationPass final : public Pass {
 public:
  std::string_view name() const override { return "allocation_order_propagation"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
