#include "core/ops/arith.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

using ir::BinaryOpType;
using ir::ReductionOpType;
using ir::UnaryOpType;

class ArithTest : public OpsFixture {};

TEST_F(ArithTest, AddGivesFreshAxesOfTheSameShape) {
  TensorView* a = tensor({4, 8});
  TensorView* b = tensor({4, 8});
  TensorView* out = asTensor(binaryOp(BinaryOpType::Add, a, b));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_NE(out->logical()[0], a->logical()[0]);
  EXPECT_NE(out->logical()[0], b->logical()[0]);
  const ir::Expr* def = out->definition();
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->type(), ExprType::Binary);
  EXPECT_EQ(def->attrs().binaryOp, BinaryOpType::Add);
  EXPECT_EQ(def->inputs(), (std::vector<Val*>{a, b}));
}

TEST_F(ArithTest, BroadcastAxesTakeTheOtherOperandsExtent) {
  TensorView* out = asTensor(binaryOp(BinaryOpType::Mul, tensor({4, 1}), tensor({1, 8})));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
}

TEST_F(ArithTest, AllBroadcastAxisStaysBroadcastAndKeepsExpansion) {
  TensorView* x = tensor({4, 1});
  // x2's axis 1 is a broadcast expanded to 6.
  ir::IterDomain* expanded = fusion_.newIterDomain(c(1), IterType::Broadcast, c(6));
  TensorView* x2 = fusion_.newTensorView(
      {fusion_.newIterDomain(c(4), IterType::Iteration), expanded}, DataType::Float);
  TensorView* out = asTensor(binaryOp(BinaryOpType::Add, x, x2));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Iteration, IterType::Broadcast}));
  EXPECT_TRUE(out->logical()[1]->hasExpandedExtent());
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 6}));
}

TEST_F(ArithTest, ConstantExtentPreferredOverSymbolic) {
  TensorView* out = asTensor(binaryOp(BinaryOpType::Add, tensor({-1, 8}), tensor({4, 8})));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 8}));
}

TEST_F(ArithTest, ExtentMismatchNamesOpAxisTensorsAndExtents) {
  TensorView* a = tensor({4, 16});
  TensorView* b = tensor({4, 32});
  expectUserError([&] { binaryOp(BinaryOpType::Add, a, b); },
                  {"add", "axis 1", "16", "32", a->name(), b->name()});
}

TEST_F(ArithTest, RankMismatchSuggestsBroadcastInDim) {
  TensorView* a = tensor({4, 8});
  TensorView* b = tensor({2, 4, 8});
  expectUserError([&] { binaryOp(BinaryOpType::Add, a, b); },
                  {"add: T0 has rank 2 but T1 has rank 3", "broadcast_in_dim"});
}

TEST_F(ArithTest, ZeroDimTensorCombinesWithAnyRank) {
  TensorView* scalarTensor = tensor({}, DataType::Double);
  TensorView* out =
      asTensor(binaryOp(BinaryOpType::Mul, tensor({3, 5}, DataType::Half), scalarTensor));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(out->dtype(), DataType::Half);
}

TEST_F(ArithTest, Bf16WithBf16StaysBf16) {
  Val* out =
      binaryOp(BinaryOpType::Add, tensor({4}, DataType::BFloat16), tensor({4}, DataType::BFloat16));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(out->definition()->type(), ExprType::Binary);  // no casts inserted
}

TEST_F(ArithTest, Bf16WithHalfPromotesToFloat) {
  Val* out =
      binaryOp(BinaryOpType::Add, tensor({4}, DataType::BFloat16), tensor({4}, DataType::Half));
  EXPECT_EQ(out->dtype(), DataType::Float);
}

TEST_F(ArithTest, IntTensorWithFloatScalarPromotesToFloat) {
  Val* out = binaryOp(BinaryOpType::Mul, tensor({4}, DataType::Int32), fusion_.constDouble(1.5));
  EXPECT_EQ(out->dtype(), DataType::Float);
}

TEST_F(ArithTest, IntScalarDoesNotWidenInt32Tensor) {
  Val* out = binaryOp(BinaryOpType::Add, tensor({4}, DataType::Int32), c(100));
  EXPECT_EQ(out->dtype(), DataType::Int32);
}

TEST_F(ArithTest, IntegerDivStaysInteger) {
  Val* out = binaryOp(BinaryOpType::Div, tensor({4}, DataType::Int), tensor({4}, DataType::Int));
  EXPECT_EQ(out->dtype(), DataType::Int);
}

TEST_F(ArithTest, TruedivCastsIntegersToFloat) {
  TensorView* a = tensor({4}, DataType::Int);
  TensorView* out = asTensor(truediv(a, c(2)));
  EXPECT_EQ(out->dtype(), DataType::Float);
  const ir::Expr* div = out->definition();
  EXPECT_EQ(div->attrs().binaryOp, BinaryOpType::Div);
  EXPECT_EQ(div->input(0)->definition()->type(), ExprType::Cast);
  EXPECT_EQ(div->input(0)->definition()->input(0), a);
  EXPECT_EQ(div->input(1)->dtype(), DataType::Float);
}

TEST_F(ArithTest, FloatMathOfIntGivesFloat) {
  EXPECT_EQ(unaryOp(UnaryOpType::Exp, tensor({4}, DataType::Int))->dtype(), DataType::Float);
  EXPECT_EQ(unaryOp(UnaryOpType::Rsqrt, tensor({4}, DataType::Bool))->dtype(), DataType::Float);
  EXPECT_EQ(unaryOp(UnaryOpType::Tanh, tensor({4}, DataType::Half))->dtype(), DataType::Half);
  EXPECT_EQ(unaryOp(UnaryOpType::Abs, tensor({4}, DataType::Int32))->dtype(), DataType::Int32);
}

TEST_F(ArithTest, PredicatesGiveBool) {
  EXPECT_EQ(binaryOp(BinaryOpType::Eq, tensor({4}), tensor({4}))->dtype(), DataType::Bool);
  EXPECT_EQ(binaryOp(BinaryOpType::Lt, tensor({4}, DataType::Int), c(3))->dtype(), DataType::Bool);
  EXPECT_EQ(unaryOp(UnaryOpType::IsNan, tensor({4}))->dtype(), DataType::Bool);
}

TEST_F(ArithTest, BitwiseOnFloatIsAnError) {
  TensorView* f = tensor({4});
  TensorView* i = tensor({4}, DataType::Int);
  expectUserError([&] { binaryOp(BinaryOpType::BitwiseAnd, i, f); },
                  {"bitwise_and", f->name(), "Float", "integer"});
  expectUserError([&] { unaryOp(UnaryOpType::BitwiseNot, f); }, {"bitwise_not", f->name()});
  EXPECT_EQ(binaryOp(BinaryOpType::BitwiseXor, i, i)->dtype(), DataType::Int);
}

TEST_F(ArithTest, NegOfBoolIsAnError) {
  TensorView* b = tensor({4}, DataType::Bool);
  expectUserError([&] { unaryOp(UnaryOpType::Neg, b); }, {"neg", b->name(), "Bool"});
}

TEST_F(ArithTest, ScalarOperandsGiveScalarsAndConstantsFold) {
  Val* folded = binaryOp(BinaryOpType::Add, c(2), c(3));
  ASSERT_TRUE(folded->isA<Scalar>());
  EXPECT_EQ(folded->as<Scalar>()->constInt(), 5);
  EXPECT_EQ(binaryOp(BinaryOpType::Div, c(7), c(2))->as<Scalar>()->constInt(), 3);

  Scalar* s = fusion_.newScalar(DataType::Double);
  Val* symbolic = binaryOp(BinaryOpType::Mul, s, c(2));
  ASSERT_TRUE(symbolic->isA<Scalar>());
  EXPECT_FALSE(symbolic->as<Scalar>()->isConst());
  EXPECT_EQ(symbolic->dtype(), DataType::Double);
  EXPECT_EQ(symbolic->definition()->type(), ExprType::Binary);
}

TEST_F(ArithTest, WhereNeedsBoolConditionAndPromotesValues) {
  TensorView* cond = tensor({4}, DataType::Bool);
  Val* out = where(cond, tensor({4}, DataType::BFloat16), c(0));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(where(cond, fusion_.constDouble(1.0), fusion_.constDouble(0.0))->dtype(),
            DataType::Float);
  TensorView* notBool = tensor({4});
  expectUserError([&] { where(notBool, c(1), c(0)); }, {"where", notBool->name(), "Float", "Bool"});
}

TEST_F(ArithTest, ClampPromotesWithScalarBoundsAndRejectsTensorBounds) {
  Val* out =
      clamp(tensor({4}, DataType::Int32), fusion_.constDouble(0.5), fusion_.constDouble(1.5));
  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_EQ(out->definition()->attrs().ternaryOp, TernaryOpType::Clamp);
  TensorView* bound = tensor({4});
  expectUserError([&] { clamp(tensor({4}), bound, c(1)); },
                  {"clamp", "min", bound->name(), "tensor"});
}

TEST_F(ArithTest, AddcmulAndLerpOperandLayout) {
  TensorView* a = tensor({4});
  TensorView* b = tensor({4});
  TensorView* d = tensor({4});
  Scalar* value = fusion_.constDouble(0.5);
  Val* out = addcmul(a, b, d, value);
  EXPECT_EQ(out->definition()->attrs().ternaryOp, TernaryOpType::Addcmul);
  EXPECT_EQ(out->definition()->inputs(), (std::vector<Val*>{a, b, d, value}));
  EXPECT_EQ(lerp(tensor({4}, DataType::Int), tensor({4}, DataType::Int), fusion_.constDouble(0.3))
                ->dtype(),
            DataType::Float);
}

TEST_F(ArithTest, CastCreatesCastExprOrReturnsInput) {
  TensorView* x = tensor({2, 3}, DataType::BFloat16);
  EXPECT_EQ(cast(x, DataType::BFloat16), x);
  TensorView* out = asTensor(cast(x, DataType::Float));
  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_EQ(out->definition()->type(), ExprType::Cast);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 3}));
  Val* folded = cast(fusion_.constDouble(2.7), DataType::Int);
  EXPECT_EQ(folded->as<Scalar>()->constInt(), 2);
  expectUserError([&] { cast(x, DataType::Null); }, {"cast", x->name(), "Null"});
}

TEST_F(ArithTest, SumKeepsReducedAxisAsReduction) {
  TensorView* x = tensor({4, 8});
  TensorView* out = sum(x, {1});
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Iteration, IterType::Reduction}));
  EXPECT_EQ(out->rank(), 1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4}));
  EXPECT_EQ(out->definition()->type(), ExprType::Reduction);
  EXPECT_EQ(out->definition()->attrs().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(out->dtype(), DataType::Float);
}

TEST_F(ArithTest, NegativeAxesAreNormalizedAndSorted) {
  TensorView* out = reduction(ReductionOpType::Max, tensor({2, 3, 4}), {-1, 0});
  EXPECT_EQ(out->definition()->attrs().axes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(iterTypes(out),
            (std::vector<IterType>{IterType::Reduction, IterType::Iteration, IterType::Reduction}));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{3}));
}

TEST_F(ArithTest, KeepDimBroadcastsReducedAxesBack) {
  TensorView* out = sum(tensor({4, 8, 2}), {1}, /*keepDim=*/true);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 1, 2}));
  EXPECT_EQ(iterTypes(out),
            (std::vector<IterType>{IterType::Iteration, IterType::Broadcast, IterType::Iteration}));
  EXPECT_EQ(out->definition()->type(), ExprType::Broadcast);
  EXPECT_EQ(out->definition()->input(0)->definition()->type(), ExprType::Reduction);
}

TEST_F(ArithTest, SumOfBoolAndInt32GivesIntButMaxKeepsDtype) {
  EXPECT_EQ(sum(tensor({4}, DataType::Bool), {0})->dtype(), DataType::Int);
  EXPECT_EQ(sum(tensor({4}, DataType::Int32), {0})->dtype(), DataType::Int);
  EXPECT_EQ(reduction(ReductionOpType::Max, tensor({4}, DataType::Int32), {0})->dtype(),
            DataType::Int32);
  EXPECT_EQ(sum(tensor({4}, DataType::BFloat16), {0})->dtype(), DataType::BFloat16);
}

TEST_F(ArithTest, SumWithDtypeCastsTheInputFirst) {
  TensorView* x = tensor({4, 8}, DataType::BFloat16);
  TensorView* out = sum(x, {0}, false, DataType::Float);
  EXPECT_EQ(out->dtype(), DataType::Float);
  const Val* reduced = out->definition()->input(0);
  EXPECT_EQ(reduced->definition()->type(), ExprType::Cast);
}

TEST_F(ArithTest, ReducingABroadcastAxisIsAllowed) {
  TensorView* out = sum(tensor({4, 1}), {1});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4}));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Iteration, IterType::Reduction}));
}

TEST_F(ArithTest, EmptyAxesIsASetCopy) {
  TensorView* x = tensor({4, 8});
  TensorView* out = sum(x, {});
  EXPECT_NE(out, x);
  EXPECT_EQ(out->definition()->type(), ExprType::Set);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 8}));
}

TEST_F(ArithTest, BadReductionAxesNameOpAxisAndRank) {
  TensorView* x = tensor({4, 8});
  expectUserError([&] { sum(x, {2}); }, {"sum", "axis 2", "rank 2", x->name()});
  expectUserError([&] { reduction(ReductionOpType::Min, x, {-3}); }, {"min", "axis -3", "rank 2"});
  expectUserError([&] { sum(x, {1, -1}); }, {"sum", "axis 1", "twice", "rank 2"});
}

}  // namespace
}  // namespace fuserlab::ops::test
