// Argument: one value passed to or returned from a fusion: a Tensor for a
// TensorView, a ScalarValue for a Scalar input.
#pragma once

#include <variant>
#include <vector>

#include "core/ir/val.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

using Argument = std::variant<Tensor, ir::ScalarValue>;
using Arguments = std::vector<Argument>;

}  // namespace fuserlab::runtime
