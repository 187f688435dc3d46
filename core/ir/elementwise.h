// Which exprs compute a new value from the elements at one position of their
// operands (unary, binary and ternary ops, casts). Passes and analyses that
// look through elementwise math share this one answer; each adds the copies
// (set, segment_set) it also looks through.
#pragma once

#include "core/ir/expr.h"

namespace fuserlab::ir {

//! Unary, Binary, Ternary or Cast.
inline bool isElementwiseMath(ExprType type) {
  return type == ExprType::Unary || type == ExprType::Binary || type == ExprType::Ternary ||
         type == ExprType::Cast;
}

}  // namespace fuserlab::ir
