// Input description: binding a fusion's inputs for the compiler. The tensors
// may be metadata only (`Tensor::borrow(nullptr, ...)`: sizes and strides
// without data), since segmentation and heuristics need shapes, strides and
// pointer alignment but never values.
#pragma once

#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! Binds `args` to `fusion`'s inputs in `evaluator` (as bindInputs, with its
//! checks) and returns what schedulers see of each input: sizes, strides and
//! data alignment (256 for a metadata-only tensor at offset 0).
std::vector<scheduler::TensorInputInfo> describeInputs(const ir::Fusion& fusion,
                                                       const Arguments& args,
                                                       ir::ExpressionEvaluator& evaluator);

}  // namespace fuserlab::runtime
