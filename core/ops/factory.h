// Tensor-creating and indexing op builders: full, iota, index_select,
// select (a slice and a squeeze), take_along_axis (gather) and triu (a mask
// from iotas).
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! A tensor of `shape` filled with `fillValue`, cast to `dtype`.
ir::TensorView* full(ir::Fusion& fusion, const std::vector<ir::Scalar*>& shape,
                     ir::Scalar* fillValue, ir::DataType dtype);

//! [start, start + step, ...] of `length` elements; start/step may be null
//! (0 and 1).
ir::TensorView* iota(ir::Fusion& fusion, ir::Scalar* length, ir::Scalar* start, ir::Scalar* step,
                     ir::DataType dtype);

//! torch.index_select: `index` is a 1-D Int32/Int tensor; output axis `dim`
//! has the index's extent. A 0-dim index is one position: axis `dim` of the
//! output is a broadcast axis of size 1.
ir::TensorView* indexSelect(ir::TensorView* x, ir::TensorView* index, int64_t dim);

//! torch.select: `x` at the integer scalar `index` of axis `dim`, that axis
//! removed. A negative index counts from the end, as in torch. Built as
//! torch builds it, a view: a slice [index, index + 1) of that axis and a
//! squeeze, which the GPU runs without a kernel (or inside one). A constant
//! index out of range is an error here; a symbolic one leaves a slice of no
//! elements where one is declared, an error when the fusion runs.
ir::TensorView* select(ir::TensorView* x, ir::Scalar* index, int64_t dim);

//! torch.take_along_dim: `index` has x's rank; its shape is the output's.
ir::TensorView* takeAlongAxis(ir::TensorView* x, ir::TensorView* index, int64_t dim);

//! torch.triu: `x` (2 or more axes) where column - row >= `diagonal` over
//! its last two axes, 0 (false) elsewhere; x's dtype. Built as nvFuser
//! builds it, from ops every scheduler has: an iota per axis, their
//! difference compared with the diagonal, a where.
ir::TensorView* triu(ir::TensorView* x, ir::Scalar* diagonal);

}  // namespace fuserlab::ops
