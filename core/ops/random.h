// Random op builders: uniform, normal, rand_like and randn_like. Each makes a
// Random expr whose values are a function of (seed, offset, element index)
// alone (core/ir/random_numbers.h), so the CPU reference and a GPU kernel
// compute the same tensor, and recomputing an element gives the same value.
//
// nvFuser draws the seed and offset of an op given none from PyTorch's
// generator at run time. FuserLab has no generator state: such an op takes
// seed 0 and, as offset, the number of random ops created before it in the
// fusion, so every run of a script gives the same numbers and two unseeded
// ops in one fusion give different ones.
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! fd.ops.uniform(minval, maxval, shape, rng_seed=, rng_offset=, dtype=):
//! values in [low, high) of a floating `dtype`. `seed` and `offset` are Int
//! scalars given together, or both null (see above).
ir::TensorView* uniform(ir::Fusion& fusion, const std::vector<ir::Scalar*>& shape, ir::Scalar* low,
                        ir::Scalar* high, ir::DataType dtype, ir::Scalar* seed = nullptr,
                        ir::Scalar* offset = nullptr);

//! fd.ops.normal(mean, std, shape, rng_seed=, rng_offset=, dtype=).
ir::TensorView* normal(ir::Fusion& fusion, const std::vector<ir::Scalar*>& shape, ir::Scalar* mean,
                       ir::Scalar* stddev, ir::DataType dtype, ir::Scalar* seed = nullptr,
                       ir::Scalar* offset = nullptr);

//! fd.ops.rand_like(x, rng_seed=, rng_offset=): uniform [0, 1) values of x's
//! floating dtype and shape (an expanded axis becomes a full one: each of its
//! elements is drawn).
ir::TensorView* randLike(ir::TensorView* x, ir::Scalar* seed = nullptr,
                         ir::Scalar* offset = nullptr);

//! fd.ops.randn_like(x, rng_seed=, rng_offset=): standard normal values.
ir::TensorView* randnLike(ir::TensorView* x, ir::Scalar* seed = nullptr,
                          ir::Scalar* offset = nullptr);

}  // namespace fuserlab::ops
