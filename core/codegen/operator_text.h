// Operator text: the CUDA expression for one unary or binary op on operands
// already converted to the op's compute dtype (Float, Double or Int), with
// the dtype of its result, following the CPU reference's semantics (integer
// math goes through double, predicates give Bool). Used by the expression
// emitter for tensor and scalar exprs alike.
#pragma once

#include <string>
#include <utility>

#include "core/ir/data_type.h"
#include "core/ir/expr.h"

namespace fuserlab::codegen {

//! {expression, result dtype} of `op` applied to `x` in `compute`.
std::pair<std::string, ir::DataType> unaryOp(ir::UnaryOpType op, ir::DataType compute,
                                             const std::string& x);

//! {expression, result dtype} of `op` applied to `a` and `b` in `compute`.
std::pair<std::string, ir::DataType> binaryOp(ir::BinaryOpType op, ir::DataType compute,
                                              const std::string& a, const std::string& b);

}  // namespace fuserlab::codegen
