#include <gtest/gtest.h>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "tests/ir/fusion_builder.h"

namespace fuserlab::ir {
namespace {

using testing::FusionBuilder;

class FusionTest : public ::testing::Test {
 protected:
  Fusion fusion_;
  FusionBuilder b_{fusion_};
};

TEST_F(FusionTest, NamesComeFromPerKindCounters) {
  TensorView* t0 = b_.input(2, DataType::Float);  // extents i0, i1
  Scalar* s = b_.scalarInput(DataType::Double);
  TensorView* t1 = b_.unary(UnaryOpType::Exp, t0);
  Scalar* flag = fusion_.newScalar(DataType::Bool);
  EXPECT_EQ(t0->name(), "T0");
  EXPECT_EQ(t1->name(), "T1");
  EXPECT_EQ(t0->logical()[1]->extent()->name(), "i1");
  EXPECT_EQ(s->name(), "d2");
  EXPECT_EQ(flag->name(), "b3");
  EXPECT_EQ(fusion_.constInt(7)->name(), "7");
  EXPECT_EQ(fusion_.constDouble(0.5)->name(), "0.5");
  EXPECT_EQ(fusion_.constDouble(2)->name(), "2.0");
  // ids are positions in creation order, across kinds.
  EXPECT_EQ(t0->id(), 2);
  EXPECT_EQ(s->id(), 3);
  EXPECT_EQ(fusion_.vals()[t1->id()].get(), t1);
}

TEST_F(FusionTest, TracksDefinitionsAndUses) {
  TensorView* t0 = b_.input(1, DataType::Float);
  TensorView* t1 = b_.binary(BinaryOpType::Mul, t0, t0);
  TensorView* t2 = b_.unary(UnaryOpType::Neg, t1);
  TensorView* t3 = b_.binary(BinaryOpType::Add, t1, t2);
  EXPECT_EQ(t0->definition(), nullptr);
  Expr* mul = t1->definition();
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->type(), ExprType::Binary);
  EXPECT_EQ(mul->toString(), "T1_l_float[iS1{i0}]\n   = mul(T0, T0)");
  // A Val read twice by one Expr lists it once.
  EXPECT_EQ(t0->uses(), std::vector<Expr*>{mul});
  EXPECT_EQ(t1->uses(), (std::vector<Expr*>{t2->definition(), t3->definition()}));
  EXPECT_TRUE(t3->uses().empty());
  EXPECT_TRUE(t0->isFusionInput());
  EXPECT_FALSE(t3->isFusionOutput());
  fusion_.addOutput(t3);
  EXPECT_TRUE(t3->isFusionOutput());
  EXPECT_EQ(fusion_.outputVals(), std::vector<Val*>{t3});
  EXPECT_EQ(fusion_.tensorInputs(), std::vector<TensorView*>{t0});
}

TEST_F(FusionTest, ExprsForOutputsDropsDeadExprs) {
  TensorView* t0 = b_.input(1, DataType::Float);
  TensorView* live1 = b_.unary(UnaryOpType::Exp, t0);
  TensorView* dead = b_.unary(UnaryOpType::Log, t0);
  b_.unary(UnaryOpType::Sin, dead);  // dead too
  TensorView* live2 = b_.binary(BinaryOpType::Add, live1, t0);
  fusion_.addOutput(live2);
  EXPECT_EQ(fusion_.exprs().size(), 4u);
  EXPECT_EQ(fusion_.exprsForOutputs(),
            (std::vector<Expr*>{live1->definition(), live2->definition()}));
}

TEST_F(FusionTest, ExprsForOutputsKeepsCreationOrderAcrossOutputs) {
  TensorView* t0 = b_.input(1, DataType::Float);
  TensorView* t1 = b_.unary(UnaryOpType::Exp, t0);
  TensorView* t2 = b_.unary(UnaryOpType::Log, t1);
  fusion_.addOutput(t2);
  fusion_.addOutput(t1);
  EXPECT_EQ(fusion_.exprsForOutputs(), (std::vector<Expr*>{t1->definition(), t2->definition()}));
}

TEST_F(FusionTest, ComputedValueCannotBeAnInput) {
  TensorView* t0 = b_.input(1, DataType::Float);
  TensorView* t1 = b_.unary(UnaryOpType::Exp, t0);
  try {
    fusion_.addInput(t1);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(), "T1 is computed in the fusion and cannot be an input");
  }
  EXPECT_THROW(fusion_.addInput(t0), UserError);  // already an input
  EXPECT_EQ(fusion_.inputs().size(), 1u);
}

TEST_F(FusionTest, AliasOutputMustAliasAnInputOfItsDtype) {
  TensorView* t0 = b_.input(1, DataType::Float);
  TensorView* t1 = b_.unary(UnaryOpType::Exp, t0);
  TensorView* half = b_.cast(t0, DataType::Half);
  EXPECT_THROW(fusion_.addOutput(t1, t1), UserError);  // not an input
  try {
    fusion_.addOutput(half, t0);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(), "output T2 (Half) cannot alias input T0 of dtype Float");
  }
  // With the script's own names where they differ from the IR's (the
  // differential tester's seed 394242 named only T12 and T6).
  half->setScriptName("T10");
  t0->setScriptName("T5");
  try {
    fusion_.addOutput(half, t0);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(),
              "output T2 ('T10' in the script) (Half) cannot alias input T0 ('T5' in the script) "
              "of dtype Float");
  }
  EXPECT_TRUE(fusion_.outputs().empty());
  fusion_.addOutput(t1, t0);
  ASSERT_EQ(fusion_.outputs().size(), 1u);
  EXPECT_EQ(fusion_.outputs()[0].val, t1);
  EXPECT_EQ(fusion_.outputs()[0].aliasOf, t0);
}

TEST_F(FusionTest, ScalarBinaryFoldsIntegerConstants) {
  Scalar* three = fusion_.constInt(3);
  Scalar* four = fusion_.constInt(4);
  Scalar* product = fusion_.scalarBinary(BinaryOpType::Mul, three, four);
  EXPECT_TRUE(product->isConstInt(12));
  EXPECT_EQ(product->definition(), nullptr);
  EXPECT_TRUE(fusion_.scalarBinary(BinaryOpType::CeilDiv, fusion_.constInt(7), fusion_.constInt(2))
                  ->isConstInt(4));
  EXPECT_TRUE(fusion_.scalarBinary(BinaryOpType::Sub, three, four)->isConstInt(-1));
  EXPECT_TRUE(fusion_.scalarBinary(BinaryOpType::Maximum, three, four)->isConstInt(4));
  EXPECT_TRUE(fusion_.exprs().empty());
}

TEST_F(FusionTest, ScalarBinaryFoldsIdentities) {
  Scalar* x = fusion_.newScalar(DataType::Int);
  Scalar* one = fusion_.constInt(1);
  Scalar* zero = fusion_.constInt(0);
  EXPECT_EQ(fusion_.scalarBinary(BinaryOpType::Mul, x, one), x);
  EXPECT_EQ(fusion_.scalarBinary(BinaryOpType::Mul, one, x), x);
  EXPECT_EQ(fusion_.scalarBinary(BinaryOpType::Add, x, zero), x);
  EXPECT_EQ(fusion_.scalarBinary(BinaryOpType::Sub, x, zero), x);
  EXPECT_EQ(fusion_.scalarBinary(BinaryOpType::CeilDiv, x, one), x);
  EXPECT_TRUE(fusion_.exprs().empty());
}

TEST_F(FusionTest, ScalarBinaryBuildsExprsWhenItCannotFold) {
  Scalar* x = fusion_.newScalar(DataType::Int);
  Scalar* two = fusion_.constInt(2);
  Scalar* y = fusion_.scalarBinary(BinaryOpType::CeilDiv, x, two);
  ASSERT_NE(y->definition(), nullptr);
  EXPECT_EQ(y->dtype(), DataType::Int);
  EXPECT_EQ(y->definition()->toString(), "i1\n   = ceilDiv(i0, 2)");
  // Division by zero is left for run time, not folded.
  Scalar* byZero = fusion_.scalarBinary(BinaryOpType::Div, two, fusion_.constInt(0));
  EXPECT_FALSE(byZero->isConst());
  // Doubles are not folded; Int with Double gives Double.
  Scalar* mixed = fusion_.scalarBinary(BinaryOpType::Mul, two, fusion_.constDouble(1.0));
  EXPECT_FALSE(mixed->isConst());
  EXPECT_EQ(mixed->dtype(), DataType::Double);
  // x * 1.0 is not x: the result has another dtype.
  EXPECT_NE(fusion_.scalarBinary(BinaryOpType::Mul, x, fusion_.constDouble(1)), x);
  Scalar* less = fusion_.scalarBinary(BinaryOpType::Lt, x, two);
  EXPECT_EQ(less->dtype(), DataType::Bool);
  EXPECT_EQ(less->name()[0], 'b');
}

TEST_F(FusionTest, SplitAndMergeRecordTheirTransforms) {
  IterDomain* id = fusion_.newIterDomain(fusion_.constInt(6), IterType::Iteration);
  auto [outer, inner] = fusion_.split(id, fusion_.constInt(2));
  EXPECT_TRUE(outer->extent()->isConstInt(3));
  EXPECT_TRUE(inner->extent()->isConstInt(2));
  ASSERT_NE(outer->definition(), nullptr);
  EXPECT_EQ(outer->definition(), inner->definition());
  EXPECT_EQ(id->uses(), std::vector<IterDomainTransform*>{outer->definition()});
  IterDomain* merged = fusion_.merge(inner, outer);
  EXPECT_TRUE(merged->extent()->isConstInt(6));
  EXPECT_EQ(merged->definition()->kind(), TransformKind::Merge);
  EXPECT_EQ(merged->definition()->inputs(), (std::vector<IterDomain*>{inner, outer}));
  EXPECT_EQ(fusion_.transforms().size(), 2u);

  auto [o2, i2] = fusion_.split(fusion_.newIterDomain(fusion_.constInt(10), IterType::Iteration),
                                fusion_.constInt(4), /*innerSplit=*/false);
  EXPECT_TRUE(o2->extent()->isConstInt(4));
  EXPECT_TRUE(i2->extent()->isConstInt(3));
}

TEST_F(FusionTest, ExpandedBroadcastCannotBeSplit) {
  IterDomain* expanded = fusion_.newIterDomain(fusion_.constInt(1), IterType::Broadcast,
                                               fusion_.newScalar(DataType::Int));
  EXPECT_THROW(fusion_.split(expanded, fusion_.constInt(2)), UserError);
}

}  // namespace
}  // namespace fuserlab::ir

namespace fuserlab::ir {
namespace {

TEST(FusionFoldingTest, OverflowingConstantArithmeticIsNotFolded) {
  Fusion fusion;
  Scalar* big = fusion.constInt(int64_t{1} << 32);
  Scalar* product = fusion.scalarBinary(BinaryOpType::Mul, big, big);
  EXPECT_FALSE(product->isConst());
  EXPECT_NE(product->definition(), nullptr);
  Scalar* ceil =
      fusion.scalarBinary(BinaryOpType::CeilDiv, fusion.constInt(-7), fusion.constInt(2));
  EXPECT_EQ(ceil->constInt(), -3);  // ceil(-3.5)
}

TEST(FusionFoldingTest, ConstantsDoNotConsumeSymbolicNames) {
  Fusion fusion;
  fusion.constInt(3);
  fusion.constDouble(0.5);
  EXPECT_EQ(fusion.newScalar(DataType::Int)->name(), "i0");
}

}  // namespace
}  // namespace fuserlab::ir

namespace fuserlab::ir {
namespace {

// A rewrite that inserts a producer after its consumer was created (as
// privatization does) must still print and execute producers first.
TEST(FusionMutationTest, RewritesStayTopological) {
  Fusion fusion;
  auto* i0 = fusion.newIterDomain(fusion.newScalar(DataType::Int), IterType::Iteration);
  TensorView* in = fusion.newTensorView({i0}, DataType::BFloat16);
  fusion.addInput(in);
  auto makeLike = [&](DataType dtype) {
    return fusion.newTensorView({fusion.cloneIterDomain(i0)}, dtype);
  };
  TensorView* wide = makeLike(DataType::Float);
  Expr* cast = fusion.newExpr(ExprType::Cast, {in}, {wide});
  TensorView* out = makeLike(DataType::Float);
  ExprAttrs neg;
  neg.unaryOp = UnaryOpType::Neg;
  Expr* use = fusion.newExpr(ExprType::Unary, {wide}, {out}, neg);
  fusion.addOutput(out);

  // Give the use its own copy of the cast, created last.
  TensorView* privateWide = makeLike(DataType::Float);
  Expr* clone = fusion.newExpr(ExprType::Cast, {in}, {privateWide});
  fusion.replaceExprInput(use, wide, privateWide);
  EXPECT_TRUE(wide->uses().empty());
  EXPECT_EQ(privateWide->uses(), std::vector<Expr*>{use});
  EXPECT_EQ(fusion.exprsForOutputs(), (std::vector<Expr*>{clone, use}));

  fusion.removeExpr(cast);
  EXPECT_EQ(fusion.exprs().size(), 2u);
  EXPECT_EQ(use->id(), 0);
  EXPECT_EQ(wide->definition(), nullptr);
  EXPECT_EQ(in->uses(), std::vector<Expr*>{clone});

  TensorView* other = makeLike(DataType::Float);
  fusion.newExpr(ExprType::Set, {privateWide}, {other});
  fusion.replaceAllUsesWith(out, other);
  EXPECT_EQ(fusion.outputVals(), std::vector<Val*>{other});
}

}  // namespace
}  // namespace fuserlab::ir
