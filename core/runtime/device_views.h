// Device views: meta ops evaluated as new sizes and strides over existing
// memory, for the GPU executor's kernel-free segments, and the layouts the
// executor gives the tensors it allocates. Works on any Tensor (device
// tensors are borrowed, so a view is only a new handle); never copies: a view
// that would need a copy is a UserError saying so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/expr.h"
#include "core/ir/tensor_view.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! Whether `type` is a meta op viewOf evaluates (broadcast, expand, permute,
//! squeeze, slice, reshape, set, segment_set).
bool isViewOp(ir::ExprType type);

//! The output of view op `expr` applied to `input`, over the same memory.
//! Scalars (slice bounds, extents) come from `evaluator`. A reshape whose
//! input strides allow no view is a UserError ("copy needed").
Tensor viewOf(const ir::Expr& expr, const Tensor& input, const ir::ExpressionEvaluator& evaluator);

//! Strides (in elements) of a new dense tensor of `sizes` laid out as `tv`'s
//! allocation domain asks: row-major without one, dense in allocation order
//! for a permutation; broadcast axes (expanded or not) get stride 0, as
//! nvFuser allocates them. An allocation that splits or merges axes has no
//! such strides: a UserError naming the tensor.
std::vector<int64_t> allocationStrides(const ir::TensorView& tv, const std::vector<int64_t>& sizes);

//! Why `tensor` does not have the layout `tv`'s allocation domain declares
//! (stride order, and contiguity of each axis marked contiguous); nullopt
//! when it does. Size-1 and stride-0 axes take any stride.
std::optional<std::string> layoutMismatch(const ir::TensorView& tv, const Tensor& tensor);

//! Why `tensor` has stride 0 along an axis of `tv` that is not a broadcast
//! and is declared contiguous (a reshape of an expanded input viewed by a
//! kernel-free segment), which binding a kernel's input refuses; nullopt if
//! it has none.
std::optional<std::string> strideZeroOnContiguousAxis(const ir::TensorView& tv,
                                                      const Tensor& tensor);

//! Whether `tensor` is dense in `tv`'s allocation order (what an allocated
//! intermediate is, and what segments reading one assume).
bool isDenseInAllocationOrder(const ir::TensorView& tv, const Tensor& tensor);

}  // namespace fuserlab::runtime
