// Tensor-creating and indexing op builders: full, iota, index_select and
// take_along_axis (gather).
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! A tensor of `shape` filled with `fillValue`, cast to `dtype`.
ir::TensorView* full(ir::Fusion& fusion, const std::vector<ir::Scalar*>& shape,
                     ir::Scalar* fillValue, ir::DataType dtype);

//! [start, start + step, ...] of `length` elements; start/step may be null
//! (0 and 1).
ir::TensorView* iota(ir::Fusion& fusion, ir::Scalar* length, ir::Scalar* start,
                     ir::Scalar* step, ir::DataType dtype);

//! torch.index_select: `index` is a 1-D Int32/Int tensor; output axis `dim`
//! has the index's extent.
ir::TensorView* indexSelect(ir::TensorView* x, ir::TensorView* index,
                            int64_t dim);

//! torch.take_along_dim: `index` has x's rank; its shape is the output's.
ir::TensorView* takeAlongAxis(ir::TensorView* x, ir::TensorView* index,
                              int64_t dim);

}  // namespace fuserlab::ops
