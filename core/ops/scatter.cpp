#include "core/ops/scatter.h"

#include <string>

#include "core/ir/error.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::ExprAttrs;
using ir::ExprType;
using ir::Fusion;
using ir::IterDomain;
using ir::TensorView;

void checkIndexTensor(std::string_view op, const TensorView* index) {
  checkPresent(op, index, "the index");
  FL_CHECK(ir::isIntegral(index->dtype()), op, ": the index ", describeVal(index), " is ",
           ir::toString(index->dtype()), "; expected Int32 or Int");
}

void checkSameRank(std::string_view op, std::string_view role, const TensorView* tv,
                   const TensorView* x) {
  FL_CHECK(tv->rank() == x->rank(), op, ": ", role, " ", describeVal(tv), " has rank ", tv->rank(),
           " but ", describeVal(x), " has rank ", x->rank(), "; expected the same rank");
}

void checkSameDtype(std::string_view op, std::string_view role, const TensorView* tv,
                    const TensorView* x) {
  FL_CHECK(tv->dtype() == x->dtype(), op, ": ", role, " ", describeVal(tv), " is ",
           ir::toString(tv->dtype()), " but ", describeVal(x), " is ", ir::toString(x->dtype()),
           "; expected the same dtype (cast it)");
}

// Axis `axis` of `small` must not be longer than that of `large` where both
// extents are constants (the run-time check covers symbolic ones).
void checkNotLonger(std::string_view op, const TensorView* small, const TensorView* large,
                    size_t axis) {
  const auto s = constExtent(small->logicalNoReductions()[axis]);
  const auto l = constExtent(large->logicalNoReductions()[axis]);
  FL_CHECK(!s || !l || *s <= *l, op, ": axis ", axis, " of the index ", describeVal(small), " ",
           shapeToString(small), " has size ", *s, " but ", describeVal(large), " ",
           shapeToString(large), " only ", *l);
}

// Output axes shaped as `x`'s.
std::vector<IterDomain*> clonedAxes(const TensorView* x) {
  std::vector<IterDomain*> axes;
  for (const IterDomain* id : x->logicalNoReductions()) {
    axes.push_back(x->fusion()->cloneIterDomain(id));
  }
  return axes;
}

}  // namespace

TensorView* scatter(TensorView* x, TensorView* index, ir::Val* src, int64_t dim) {
  constexpr std::string_view kOp = "scatter";
  checkPresent(kOp, x, "the input");
  checkIndexTensor(kOp, index);
  checkPresent(kOp, src, "src");
  FL_CHECK(x->rank() > 0, kOp, ": ", describeVal(x),
           " is 0-dim; expected a tensor with an axis to scatter along");
  checkSameRank(kOp, "the index", index, x);
  const int64_t axis = normalizeAxis(kOp, x, dim);
  for (size_t i = 0; i < static_cast<size_t>(x->rank()); ++i) {
    if (static_cast<int64_t>(i) != axis) checkNotLonger(kOp, index, x, i);
  }
  if (const auto* source = src->as<TensorView>()) {
    checkSameRank(kOp, "src", source, x);
    checkSameDtype(kOp, "src", source, x);
    for (size_t i = 0; i < static_cast<size_t>(x->rank()); ++i) {
      checkNotLonger(kOp, index, source, i);
    }
  } else {
    FL_CHECK(src->dtype() != ir::DataType::Null, kOp, ": src ", describeVal(src),
             " has no dtype; expected a number");
  }
  Fusion* fusion = x->fusion();
  TensorView* out = fusion->newTensorView(clonedAxes(x), x->dtype());
  ExprAttrs attrs;
  attrs.dim = axis;
  fusion->newExpr(ExprType::Scatter, {x, index, src}, {out}, attrs);
  return out;
}

TensorView* indexPutAccumulate(TensorView* acc, TensorView* index, TensorView* value) {
  constexpr std::string_view kOp = "index_put_accumulate";
  checkPresent(kOp, acc, "the tensor accumulated into");
  checkIndexTensor(kOp, index);
  checkPresent(kOp, value, "the values");
  FL_CHECK(acc->rank() > 0, kOp, ": ", describeVal(acc),
           " is 0-dim; expected a tensor whose axis 0 the index addresses");
  FL_CHECK(index->rank() == 1, kOp, ": the index ", describeVal(index), " has rank ", index->rank(),
           "; expected a 1-D index (positions in axis 0)");
  checkSameRank(kOp, "the values", value, acc);
  checkSameDtype(kOp, "the values", value, acc);
  const auto& accAxes = acc->logicalNoReductions();
  const auto& valueAxes = value->logicalNoReductions();
  // value is [M, acc's axes 1..]: a size-1 axis broadcasts.
  for (size_t i = 0; i < valueAxes.size(); ++i) {
    const IterDomain* expected = i == 0 ? index->logicalNoReductions()[0] : accAxes[i];
    const auto v = constExtent(valueAxes[i]);
    const auto e = constExtent(expected);
    FL_CHECK(!v || !e || *v == *e || *v == 1, kOp, ": the values ", describeVal(value), " ",
             shapeToString(value), " have size ", *v, " on axis ", i, "; expected ", *e, " (",
             i == 0 ? "the index's length" : "that axis of the accumulator",
             "), as the values are [len(index), ", "accumulator axes 1..]");
  }
  Fusion* fusion = acc->fusion();
  TensorView* out = fusion->newTensorView(clonedAxes(acc), acc->dtype());
  fusion->newExpr(ExprType::IndexPutAccumulate, {acc, index, value}, {out});
  return out;
}

}  // namespace fuserlab::ops
