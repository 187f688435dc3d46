#include "tests/ir/fusion_builder.h"

#include <algorithm>

namespace fuserlab::ir::testing {

std::vector<IterDomain*> FusionBuilder::sameShape(const TensorView* x) {
  std::vector<IterDomain*> ids;
  for (IterDomain* id : x->logicalNoReductions()) {
    ids.push_back(fusion_.cloneIterDomain(id));
  }
  return ids;
}

TensorView* FusionBuilder::input(int64_t rank, DataType dtype) {
  std::vector<IterDomain*> ids;
  for (int64_t i = 0; i < rank; ++i) {
    ids.push_back(fusion_.newIterDomain(fusion_.newScalar(DataType::Int), IterType::Iteration));
  }
  TensorView* tv = fusion_.newTensorView(ids, dtype);
  fusion_.addInput(tv);
  return tv;
}

TensorView* FusionBuilder::inputWithSizes(const std::vector<int64_t>& sizes, DataType dtype) {
  std::vector<IterDomain*> ids;
  for (int64_t size : sizes) {
    ids.push_back(fusion_.newIterDomain(fusion_.constInt(size),
                                        size == 1 ? IterType::Broadcast : IterType::Iteration));
  }
  TensorView* tv = fusion_.newTensorView(ids, dtype);
  fusion_.addInput(tv);
  return tv;
}

Scalar* FusionBuilder::scalarInput(DataType dtype) {
  Scalar* s = fusion_.newScalar(dtype);
  fusion_.addInput(s);
  return s;
}

TensorView* FusionBuilder::unary(UnaryOpType op, TensorView* x) {
  TensorView* y = fusion_.newTensorView(sameShape(x), x->dtype());
  ExprAttrs attrs;
  attrs.unaryOp = op;
  fusion_.newExpr(ExprType::Unary, {x}, {y}, attrs);
  return y;
}

TensorView* FusionBuilder::binary(BinaryOpType op, TensorView* a, Val* b) {
  std::vector<DataType> tensors{a->dtype()};
  std::vector<DataType> scalars;
  (b->isA<TensorView>() ? tensors : scalars).push_back(b->dtype());
  DataType dtype = isPredicate(op) ? DataType::Bool : promoteOperands(tensors, scalars);
  TensorView* y = fusion_.newTensorView(sameShape(a), dtype);
  ExprAttrs attrs;
  attrs.binaryOp = op;
  fusion_.newExpr(ExprType::Binary, {a, b}, {y}, attrs);
  return y;
}

TensorView* FusionBuilder::cast(TensorView* x, DataType dtype) {
  TensorView* y = fusion_.newTensorView(sameShape(x), dtype);
  fusion_.newExpr(ExprType::Cast, {x}, {y});
  return y;
}

TensorView* FusionBuilder::sum(TensorView* x, const std::vector<int64_t>& axes) {
  std::vector<IterDomain*> ids;
  const auto in = x->logicalNoReductions();
  for (size_t i = 0; i < in.size(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    ids.push_back(reduced ? fusion_.cloneIterDomain(in[i], IterType::Reduction)
                          : fusion_.cloneIterDomain(in[i]));
  }
  TensorView* y = fusion_.newTensorView(ids, x->dtype());
  ExprAttrs attrs;
  attrs.reductionOp = ReductionOpType::Sum;
  attrs.axes = axes;
  fusion_.newExpr(ExprType::Reduction, {x}, {y}, attrs);
  return y;
}

TensorView* FusionBuilder::broadcast(TensorView* x, const std::vector<bool>& flags) {
  std::vector<IterDomain*> ids;
  const auto in = x->logicalNoReductions();
  size_t next = 0;
  for (bool isBroadcast : flags) {
    ids.push_back(isBroadcast ? fusion_.newIterDomain(fusion_.constInt(1), IterType::Broadcast)
                              : fusion_.cloneIterDomain(in.at(next++)));
  }
  TensorView* y = fusion_.newTensorView(ids, x->dtype());
  ExprAttrs attrs;
  attrs.broadcastFlags = flags;
  fusion_.newExpr(ExprType::Broadcast, {x}, {y}, attrs);
  return y;
}

TensorView* FusionBuilder::expand(TensorView* x, const std::vector<Scalar*>& extents) {
  std::vector<IterDomain*> ids;
  std::vector<Val*> inputs{x};
  const auto in = x->logicalNoReductions();
  for (size_t i = 0; i < in.size(); ++i) {
    Scalar* extent = extents.at(i);
    inputs.push_back(extent ? extent : fusion_.constInt(-1));
    ids.push_back(extent ? fusion_.newIterDomain(in[i]->extent(), IterType::Broadcast, extent)
                         : fusion_.cloneIterDomain(in[i]));
  }
  TensorView* y = fusion_.newTensorView(ids, x->dtype());
  fusion_.newExpr(ExprType::Expand, inputs, {y});
  return y;
}

TensorView* FusionBuilder::flatten(TensorView* x) {
  TensorDomain domain;
  domain.root = sameShape(x);
  IterDomain* merged = domain.root.at(0);
  for (size_t i = 1; i < domain.root.size(); ++i) {
    merged = fusion_.merge(merged, domain.root[i]);
  }
  domain.logical = {merged};
  TensorView* y = fusion_.newTensorView(domain, x->dtype());
  fusion_.newExpr(ExprType::Reshape, {x, fusion_.constInt(-1)}, {y});
  return y;
}

}  // namespace fuserlab::ir::testing
