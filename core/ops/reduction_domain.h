// The domain of a reduction's output, shared by reductions and Welford: the
// input's logical axes (reductions dropped), cloned, with the reduced ones
// marked Reduction in place, as nvFuser keeps them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! Normalized, sorted reduced axes of `x`; out-of-range and duplicate axes
//! are UserErrors naming `op`.
std::vector<int64_t> reductionAxes(std::string_view op, const ir::TensorView* x,
                                   const std::vector<int64_t>& axes);

//! Fresh IterDomains for a reduction of `x` over sorted `axes`.
std::vector<ir::IterDomain*> reductionDomain(const ir::TensorView* x,
                                             const std::vector<int64_t>& axes);

//! Broadcast flags that re-insert the reduced axes (keepdim): one per axis
//! of the reduction's input, true where it was reduced.
std::vector<bool> keepDimFlags(int64_t rank, const std::vector<int64_t>& axes);

}  // namespace fuserlab::ops
