// Scan op builders: cumsum, cumprod, cummin and cummax along one axis
// (nvFuser's fd.ops.cumsum/cumprod/cummin/cummax, its scan(x, dim, op,
// init)). A scan's output has its input's dtype and shape, as nvFuser makes
// it (torch promotes an integer cumsum to Int64; nvFuser keeps Int32 and its
// value wraps the same way). A scan runs in a segment of its own, as a scan
// kernel (core/scheduler/pointwise/scan_segment.h, core/codegen/scan_emitter.h).
#pragma once

#include <cstdint>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! y[..., i, ...] = op(y[..., i-1, ...], x[..., i, ...]) along `dim` (negative
//! counts from the end; a 0-dim x takes 0 or -1), starting from `init` (a
//! scalar; nullptr: the op's identity). `op` is Add, Mul, Minimum or Maximum;
//! Minimum and Maximum propagate NaN as torch.cummin/cummax do.
ir::TensorView* scan(ir::TensorView* x, int64_t dim, ir::BinaryOpType op, ir::Val* init = nullptr);

}  // namespace fuserlab::ops
