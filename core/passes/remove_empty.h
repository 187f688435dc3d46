// RemoveEmptyPass: nvFuser's RemoveEmptyPass. A tensor with a constant zero
// extent has no elements, so nothing needs to compute it: its definition is
// replaced by a `full`, and whatever fed only that definition becomes dead
// and is removed. Ops that read an empty tensor but produce elements get
// their defined result:
//   - a reduction over an empty axis: full of the reduction's init value
//     (sum 0, prod 1, max -inf, min +inf);
//   - a welford over an empty axis: average NaN, var_sum 0, count 0;
//   - a cat: the empty inputs are dropped (a set if one input is left);
//   - a pad of an empty tensor: full of the pad value;
//   - a matmul/linear (no bias) with an empty contraction axis: zeros.
// Invariant: the fusion's outputs keep their order, shapes and dtypes.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class RemoveEmptyPass final : public Pass {
 public:
  std::string_view name() const override { return "remove_empty"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
