// Elementwise and reduction op builders. Each builder checks its operands
// (FL_CHECK with what was expected and what was found), infers the result's
// dtype with nvFuser's promotion rules and its shape by broadcasting, creates
// the output TensorView (or Scalar when every operand is a scalar) and the
// Expr, and returns the output.
//
// Shape rules: elementwise operands must have equal rank (nvFuser does not
// broadcast implicitly by rank); per axis, extents must agree unless one side
// is a broadcast axis, in which case the other side's axis is used. When both
// are broadcast, an expanded one wins. The output axis takes the first
// non-broadcast operand's extent, a constant one preferred; symbolic extents
// that cannot be proven equal are checked at bind time. A 0-dim tensor
// combines with any rank, as a scalar does.
#pragma once

#include <optional>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

using ir::BinaryOpType;
using ir::DataType;
using ir::ReductionOpType;
using ir::Scalar;
using ir::TensorView;
using ir::TernaryOpType;
using ir::UnaryOpType;
using ir::Val;

//! Math unary ops on integer or bool inputs promote to Float (nvFuser's
//! int-to-float rule for exp, log, sqrt, sin, tanh, sigmoid, erf, ...);
//! abs/neg/sign/floor/ceil/round/trunc/relu keep the dtype; predicates (isnan,
//! logical_not, ...) give Bool; bitwise_not needs an integer or bool operand.
Val* unaryOp(UnaryOpType op, Val* x);

//! Arithmetic promotes its operands; div of two integers truncates (C
//! semantics); comparisons and logical ops give Bool; bitwise ops need integer
//! or bool operands, shifts integer ones; atan2 of integers promotes to Float;
//! pow follows torch (int ** int stays int). Constant scalars fold.
Val* binaryOp(BinaryOpType op, Val* a, Val* b);

//! torch.true_divide: integer operands are cast to Float first.
Val* truediv(Val* a, Val* b);

//! where(cond, a, b): cond must be Bool; a and b promote. lerp(start, end,
//! weight); clamp(x, min, max) with scalar bounds; addcmul(a, b, c, value).
Val* where(Val* condition, Val* a, Val* b);
Val* lerp(Val* start, Val* end, Val* weight);
Val* clamp(Val* x, Val* min, Val* max);
Val* addcmul(Val* a, Val* b, Val* c, Val* value);

//! Cast to `dtype`; returns `x` itself when it already has that dtype.
Val* cast(Val* x, DataType dtype);

//! Reduces `axes` (negative counts from the end; duplicates are an error).
//! The output keeps the reduced axes as Reduction IterDomains in its logical
//! domain; with keepDim a Broadcast re-inserts size-1 axes. `dtype` (Null =
//! keep; Sum/Prod of Bool/Int32 promote to Int, as torch.sum does) casts the
//! input first. Reducing no axes is a Set (a copy), as in nvFuser.
TensorView* reduction(ReductionOpType op, TensorView* x, const std::vector<int64_t>& axes,
                      bool keepDim = false, DataType dtype = DataType::Null);
TensorView* sum(TensorView* x, const std::vector<int64_t>& axes, bool keepDim = false,
                DataType dtype = DataType::Null);

}  // namespace fuserlab::ops
