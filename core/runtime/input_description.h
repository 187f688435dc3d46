// Input description: binding a fusion's inputs for the compiler. The tensors
// may be metadata only (`Tensor::borrow(nullptr, ...)`: sizes and strides
// without data), since segmentation and heuristics need shapes, strides and
// pointer alignment but never values.
#pragma once

#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/runtime/argument.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::runtime {

//! Binds `args` to `fusion`'s inputs in `evaluator` (as bindInputs, with its
//! checks) and returns what schedulers see of each input: sizes, strides and
//! data alignment (256 for a metadata-only tensor at offset 0).
std::vector<scheduler::TensorInputInfo> describeInputs(const ir::Fusion& fusion,
                                                       const Arguments& args,
                                                       ir::ExpressionEvaluator& evaluator);

//! A metadata-only tensor: the shape and strides of `like` without data.
Tensor metadataOnly(ir::DataType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                    int64_t storageOffset = 0);

}  // namespace fuserlab::runtime
