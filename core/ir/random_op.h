// The operands of a Random expr (layout in expr.h): its distribution's two
// parameters, and the Philox seed and offset that, with an element's index,
// decide its value (random_numbers.h). Shared by the CPU reference and the
// code generator so both read a Random expr the same way.
#pragma once

#include "core/ir/expr.h"
#include "core/ir/val.h"

namespace fuserlab::ir {

//! The distribution's parameters: low and high (Uniform), mean and std
//! (Normal).
const Scalar* randomParameterA(const Expr& expr);
const Scalar* randomParameterB(const Expr& expr);
//! Philox's key and counter offset (Int scalars).
const Scalar* randomSeed(const Expr& expr);
const Scalar* randomOffset(const Expr& expr);

//! Whether the parameters are the constants 0 and 1: nvFuser's plain Uniform
//! and NormalStandard, which map a value of exactly 1 differently from
//! uniform(0, 1) (random_numbers.h).
bool isStandardRandom(const Expr& expr);

}  // namespace fuserlab::ir
