// A test-only stand-in for core/ops: builds tensors and Exprs with the IR's
// own API, so the IR tests depend on nothing above core/ir. Every output gets
// fresh IterDomains, as the real op builders give them.
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ir::testing {

class FusionBuilder {
 public:
  explicit FusionBuilder(Fusion& fusion) : fusion_(fusion) {}

  //! A fusion input of the given rank with symbolic extents (or the given
  //! constant sizes; 1 makes a broadcast axis).
  TensorView* input(int64_t rank, DataType dtype);
  TensorView* inputWithSizes(const std::vector<int64_t>& sizes, DataType dtype);
  //! A symbolic scalar input.
  Scalar* scalarInput(DataType dtype);

  TensorView* unary(UnaryOpType op, TensorView* x);
  TensorView* binary(BinaryOpType op, TensorView* a, Val* b);
  TensorView* cast(TensorView* x, DataType dtype);
  TensorView* sum(TensorView* x, const std::vector<int64_t>& axes);
  //! Inserts broadcast axes where `flags` is true.
  TensorView* broadcast(TensorView* x, const std::vector<bool>& flags);
  //! Expands broadcast axes to `extents` (nullptr keeps x's extent).
  TensorView* expand(TensorView* x, const std::vector<Scalar*>& extents);
  //! Merges every axis into one: root = x's axes, logical = their merge.
  TensorView* flatten(TensorView* x);

  Fusion& fusion() { return fusion_; }

 private:
  // Fresh IterDomains with x's extents, reduction axes dropped.
  std::vector<IterDomain*> sameShape(const TensorView* x);

  Fusion& fusion_;
};

}  // namespace fuserlab::ir::testing
