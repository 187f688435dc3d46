// MarkAliasesPreparePass: bookending (nvFuser's MarkAliasesPrepare, seed 001).
// Meta ops (reshape, permute, broadcast, expand, squeeze, slice, set) that
// only re-view data are separated from the compute by a segment_set, so the
// segmenter puts them in kernel-free segments and the kernel reads and
// writes the tensors the compute actually needs:
//   - bookend=outputs: the meta ops between the last compute op and a fusion
//     output get a segment_set before them, and a fusion output that is a
//     meta-op chain of an input gets one after it even where compute reads
//     it too (the output is returned as a view, as nvFuser aliases it);
//   - bookend=inputs_and_outputs: also the meta-op chains applied directly to
//     fusion inputs get a segment_set after them, which keeps their shape (an
//     expanded broadcast stays expanded, so the kernel still sees the
//     contiguous inner axis it vectorizes over);
//   - bookend=none: nothing.
// Invariant: the pass never over-segments — no segment_set where all uses of
// a fusion input would be cut (a fork of pure meta chains), none where it
// would make a kernel read the same input through several tensors (a fork
// into meta ops, slices excepted), at most one per side of a straight line of
// meta ops, and none next to an existing segment_set.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class MarkAliasesPreparePass final : public Pass {
 public:
  std::string_view name() const override { return "mark_aliases_prepare"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
