// The op builders that write a tensor's elements at positions an index
// tensor gives: torch.scatter and nvFuser's index_put_accumulate. Each result
// is a new tensor (out of place), shaped and typed as the tensor written into.
#pragma once

#include <cstdint>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! torch.scatter(x, dim, index, src): a copy of `x` where, for every
//! position p of `index`, y[p with axis dim replaced by index[p]] = src[p].
//! `index` is an integer tensor of x's rank; `src` a tensor of x's rank and
//! dtype (at least index's extents) or a scalar. Along the other axes index
//! may be shorter than x, as torch allows.
ir::TensorView* scatter(ir::TensorView* x, ir::TensorView* index, ir::Val* src, int64_t dim);

//! index_put(acc, [index], value, accumulate=True) restricted as nvFuser has
//! it: `index` is a 1-D integer tensor of M positions in axis 0 of `acc`;
//! `value` is [M, acc's other axes] of acc's dtype (size-1 axes broadcast);
//! y = acc, then y[index[i]] += value[i].
ir::TensorView* indexPutAccumulate(ir::TensorView* acc, ir::TensorView* index,
                                   ir::TensorView* value);

}  // namespace fuserlab::ops
