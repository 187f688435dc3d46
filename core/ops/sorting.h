// Sorting op builders: argsort and topk, along one axis. Indices are Int
// positions in that axis. A 0-dim input is one element: dim must be 0 or -1.
#pragma once

#include <cstdint>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! torch.argsort: the positions that sort `x` along `dim` (ascending, or
//! descending); NaN sorts above every number, as in torch.
ir::TensorView* argsort(ir::TensorView* x, int64_t dim, bool descending, bool stable);

struct TopKResult {
  ir::TensorView* values = nullptr;   //!< x's dtype
  ir::TensorView* indices = nullptr;  //!< Int
};

//! torch.topk: the `k` largest (or smallest) elements along `dim` and their
//! positions; axis dim of both results has extent k (an integer scalar, at
//! most that axis's extent).
TopKResult topk(ir::TensorView* x, ir::Scalar* k, int64_t dim, bool largest, bool sorted);

}  // namespace fuserlab::ops
