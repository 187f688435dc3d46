// The pieces of the CPU reference executor shared between its source files
// (internal; users include reference_executor.h).
//
// ReferenceContext holds the tensors computed so far, one slot per Val of the
// fusion (indexed by Val::id, so nothing iterates a pointer-keyed container),
// and the evaluator that gives scalars their values. Each op family has one
// entry point that reads its operands from the context and stores its
// outputs there.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/ir/compute_dtype.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime::reference {

class ReferenceContext {
 public:
  ReferenceContext(const ir::Fusion& fusion, ir::ExpressionEvaluator& evaluator);

  ir::ExpressionEvaluator& evaluator() { return evaluator_; }

  //! The tensor computed (or passed) for `val`; an internal error if missing.
  const Tensor& tensor(const ir::Val* val) const;
  //! Records `val`'s tensor after checking its dtype and rank against the IR,
  //! and its sizes against the extents the evaluator knows (except in
  //! sharded fusions, whose tensors are local shards of the global extents).
  void setTensor(const ir::Val* val, Tensor tensor);

  //! A scalar operand's value; a UserError naming `what` if it is unknown.
  ir::ScalarValue scalar(const ir::Val* val, std::string_view what) const;
  int64_t intValue(const ir::Val* val, std::string_view what) const;
  double doubleValue(const ir::Val* val, std::string_view what) const;

  //! `tv`'s shape (logical axes without reductions; expanded extents for
  //! expanded broadcasts) from the evaluator.
  std::vector<int64_t> shapeOf(const ir::TensorView* tv) const;

 private:
  ir::ExpressionEvaluator& evaluator_;
  std::vector<Tensor> tensors_;
  bool checkExtents_ = true;
};

//! Unary, Binary, Ternary and Cast with a tensor output.
void evaluateElementwise(const ir::Expr& expr, ReferenceContext& context);
//! Reduction and Welford.
void evaluateReduction(const ir::Expr& expr, ReferenceContext& context);
//! Broadcast, Expand, Reshape, Permute, Squeeze, Slice, Pad, Cat, Set,
//! SegmentSet, Full and Iota.
void evaluateMetaOp(const ir::Expr& expr, ReferenceContext& context);
//! IndexSelect, Gather and Embedding.
void evaluateIndexing(const ir::Expr& expr, ReferenceContext& context);
//! Scatter and IndexPutAccumulate.
void evaluateScatter(const ir::Expr& expr, ReferenceContext& context);
//! Argsort and TopK.
void evaluateSorting(const ir::Expr& expr, ReferenceContext& context);
//! Scan (cumsum, cumprod, cummin, cummax).
void evaluateScan(const ir::Expr& expr, ReferenceContext& context);
//! Matmul and Linear.
void evaluateMatmul(const ir::Expr& expr, ReferenceContext& context);
//! Sdpa (flash-attention forward).
void evaluateSdpa(const ir::Expr& expr, ReferenceContext& context);
//! SdpaBwd (attention backward from the forward's logsumexp).
void evaluateSdpaBwd(const ir::Expr& expr, ReferenceContext& context);
//! Random (uniform and normal from Philox; core/ir/random_numbers.h).
void evaluateRandom(const ir::Expr& expr, ReferenceContext& context);

//! A 0-dim tensor holding `value` in `dtype` (rounded as castElement does).
Tensor scalarTensor(const ir::ScalarValue& value, ir::DataType dtype);

//! The storage dtype ops compute in (ir/compute_dtype.h).
using ir::computeDtype;

}  // namespace fuserlab::runtime::reference
