// Binding: matching the tensors a user passes to a fusion's inputs, and
// laying out its outputs, through allocation domains (seed 002).
//
// An input tensor matches the input's allocation domain:
//   - no allocation domain: the tensor has the logical shape;
//   - allocation a permutation of logical (stride_order): the tensor has the
//     logical shape and strides that follow the order, as PyTorch users pass
//     them (`as_strided`), and contiguity is checked in allocation order;
//   - allocation derived by Split/Merge and/or DID-parallel axes: the tensor
//     has the allocation shape, with DID axes of size 1 (the local shard).
// Binding checks rank, dtype, sizes against constant and already-bound
// extents, and strides against contiguity; binds symbolic extents in the
// evaluator (logical extents by playing Split/Merge backward); and returns
// the input as a logical view (materialized when no strides can express it,
// e.g. seed 002's split-then-merge allocation of arange(6)).
#pragma once

#include <string>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! A mismatch between input `input()` (the fusion input named `inputName()`)
//! and the argument given for it; what() is the message alone, so that a
//! caller that knows where the argument came from (an inputs block entry)
//! can point there.
class InputBindingError : public UserError {
 public:
  InputBindingError(const std::string& message, size_t input, std::string inputName)
      : UserError(message), input_(input), inputName_(std::move(inputName)) {}
  size_t input() const { return input_; }
  const std::string& inputName() const { return inputName_; }

 private:
  size_t input_;
  std::string inputName_;
};

//! Checks `args` against `fusion`'s inputs, binds symbolic extents and scalar
//! inputs in `evaluator`, and returns each input in its logical (local) view.
//! A mismatch is a UserError naming the input, the dimension, what was
//! expected and what was found.
Arguments bindInputs(const ir::Fusion& fusion, const Arguments& args,
                     ir::ExpressionEvaluator& evaluator);

//! Lays a logical-view result out as `tv`'s allocation domain asks: as is
//! without one; permuted strides over a logical-shaped tensor for a stride
//! order; the allocation shape (DID axes of size 1) otherwise.
Tensor layoutOutput(const ir::TensorView& tv, const Tensor& logical,
                    ir::ExpressionEvaluator& evaluator);

}  // namespace fuserlab::runtime
