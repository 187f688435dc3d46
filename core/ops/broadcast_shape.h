// Elementwise broadcasting: the dtype and shape of an elementwise op's result.
// Operands are tensors of one rank or scalars; a 0-dim tensor combines with
// any rank, as a scalar does. Per axis, broadcast axes give way to
// non-broadcast ones, constant extents must agree, and the output gets fresh
// IterDomains; when every operand is broadcast on an axis, the output axis is
// broadcast too (expanded if any operand's axis is).
#pragma once

#include <string_view>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! PyTorch's promotion over `operands`: tensors of rank > 0 promote as
//! tensors; scalars (and 0-dim tensors, when a ranked tensor is present)
//! promote as wrapped numbers.
ir::DataType promoteElementwise(const std::vector<ir::Val*>& operands);

//! One operand's axis at an aligned position, for broadcastAxis.
struct AlignedAxis {
  const ir::TensorView* tv;
  ir::IterDomain* id;
};

//! A fresh output axis for `axes` aligned at output position `axis`: the
//! first non-broadcast axis (one with a constant extent preferred), else a
//! broadcast one (an expanded one preferred). Disagreeing constant extents
//! are a UserError naming `op`, the axis, both tensors and both extents.
ir::IterDomain* broadcastAxis(std::string_view op, const std::vector<AlignedAxis>& axes,
                              int64_t axis);

//! Fresh output axes of an elementwise op; empty when no operand has rank > 0.
std::vector<ir::IterDomain*> broadcastDomain(std::string_view op,
                                             const std::vector<ir::Val*>& operands);

//! The output of an elementwise op: a TensorView over broadcastDomain if
//! any operand is a tensor, else a symbolic Scalar.
ir::Val* newElementwiseOutput(std::string_view op, const std::vector<ir::Val*>& operands,
                              ir::DataType dtype);

}  // namespace fuserlab::ops
