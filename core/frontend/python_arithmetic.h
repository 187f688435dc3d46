// Python's arithmetic on the literals of a script (`1/1600`, `-4`, `2**10`,
// `128 * 2`), with Python's results - true division gives a float, floor
// division and modulo round toward negative infinity - on 64-bit ints: a
// result that does not fit is a UserError, never undefined behaviour.
// Internal to the frontend.
#pragma once

#include "core/frontend/script_ast.h"
#include "core/frontend/script_value.h"

namespace fuserlab::frontend {

//! Python's truth value of a literal; fusion values and handles have none
//! (a UserError at `location`).
bool truthValue(const Value& value, const SourceLocation& location);

//! `-x`, `+x`, `~x`, `not x` on a literal.
Value applyUnary(UnaryOpKind op, const Value& operand, const SourceLocation& location);

//! Arithmetic and comparisons on literals (numbers; == and != on strings
//! and None). `and` and `or` are the caller's, as they short-circuit.
Value applyBinary(BinaryOpKind op, const Value& lhs, const Value& rhs,
                  const SourceLocation& location);

//! Python's float(x) for a string: "inf", "-inf", "nan", "1e-5", ...
Value parseFloatString(const std::string& text, const SourceLocation& location);

//! Python's int(x) of a float: truncates; NaN, infinity and values out of
//! the int64 range are UserErrors.
int64_t truncateToInt(double value, const SourceLocation& location);

}  // namespace fuserlab::frontend
