// Axis mapping: which logical axis of an expr's output corresponds to a
// logical axis of one of its inputs (and back), per expr type. Sharding
// propagation and resharding detection both ask it: a sharding moves along
// the mapped axes, and an input is resharded when its sharded axis does not
// map to the output's.
//
// Covered: pointwise ops (unary, binary, ternary, cast, set, segment_set),
// reductions (the reduced axis maps to the output's Reduction axis), broadcast,
// squeeze, permute, linear (the contraction axis maps to a Reduction axis of
// the output, if it has one: a partial result), and reshape with constant
// extents where the axis is kept, or is the outermost axis of a split or of a
// merge. Anything else maps to nothing (the sharding stops there).
#pragma once

#include "core/ir/expr.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::multidevice {

//! The output's logical IterDomain that `inputAxis` (a logical axis of input
//! `inputIndex` of `expr`) maps to; null if none. For linear's contraction
//! axis: the output's trailing Reduction axis, or null without one.
ir::IterDomain* mapToConsumer(const ir::Expr* expr, size_t inputIndex,
                              const ir::IterDomain* inputAxis);

//! The logical axis of input `inputIndex` that `outputAxis` (a logical axis of
//! `expr`'s first output) maps to; null if none. Inverse of mapToConsumer.
ir::IterDomain* mapToProducer(const ir::Expr* expr, size_t inputIndex,
                              const ir::IterDomain* outputAxis);

}  // namespace fuserlab::multidevice
