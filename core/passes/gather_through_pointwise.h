// GatherThroughPointwisePass: take_along_axis of an elementwise expression
// is the expression of the gathered operands,
//   take_along_axis(f(a, b), index, dim) -> f(take_along_axis(a, index, dim), b')
// where an operand that varies along `dim` is gathered (through its own
// elementwise producers in turn, down to fusion inputs or other ops), and
// one broadcast along `dim` (b, a row's statistic) is the same at every
// index: b' is b before it was expanded along the row. The full tensor f
// was computed only to pick one element a row from it; after the rewrite
// only the picked elements are. Cross-entropy's log-softmax picked at the
// label (x - logsumexp(x) at label[r]) then needs no pass over x but the
// statistics' (issue 45 item 3). Only where the gather is the expression's
// only use, so the full tensor is no longer computed.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class GatherThroughPointwisePass final : public Pass {
 public:
  std::string_view name() const override { return "gather_through_pointwise"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
