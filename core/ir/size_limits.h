// The largest tensor FuserLab compiles for: 2^48 elements. No GPU holds one
// that large, and below it every element and byte count the compiler makes
// (a grid's work, a workspace, a heuristic's bytes moved) stays far from
// int64's limit. The inputs block refuses larger inputs at their entry;
// checkTensorSizes refuses a fusion whose intermediate or output tensors
// would be larger (a broadcast_in_dim or expand to a constant shape).
#pragma once

#include <cstdint>

namespace fuserlab::ir {

class ExpressionEvaluator;
class Fusion;

inline constexpr int64_t kMaxTensorElements = int64_t{1} << 48;

//! Throws a UserError naming the first tensor of `fusion` whose logical
//! domain (reduction axes included: the elements it iterates over) holds
//! more than kMaxTensorElements elements at the sizes `evaluator` knows.
//! Axes whose extent the evaluator cannot tell are left out of the count.
void checkTensorSizes(const Fusion& fusion, const ExpressionEvaluator& evaluator);

}  // namespace fuserlab::ir
