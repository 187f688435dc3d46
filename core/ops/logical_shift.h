// logical_right_shift (nvFuser's fd.ops.logical_right_shift), built from
// ops every backend runs: a clamped arithmetic right shift, a mask that
// clears the copied sign bits, and a where for the amounts out of range.
#pragma once

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! jax.lax.shift_right_logical, as nvFuser defines it: `x`'s bits (32 of an
//! Int32, 64 of an Int) shifted right by `shift` with zeros shifted in, so a
//! negative x gives a non-negative result; a shift outside [0, bits) gives 0.
//! Built from right_shift, a mask and a where, so every backend runs it.
ir::Val* logicalRightShift(ir::Val* x, ir::Val* shift);

}  // namespace fuserlab::ops
