#include "core/ops/normalization.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

using ir::BinaryOpType;

class NormalizationTest : public OpsFixture {};

TEST_F(NormalizationTest, WelfordUpcastsBf16AndHasThreeOutputs) {
  TensorView* x = tensor({4, 8}, DataType::BFloat16);
  WelfordResult w = welford(x, {1});
  EXPECT_EQ(w.avg->dtype(), DataType::Float);
  EXPECT_EQ(w.varSum->dtype(), DataType::Float);
  EXPECT_EQ(w.count->dtype(), DataType::Int);
  EXPECT_EQ(iterTypes(w.avg), (std::vector<IterType>{IterType::Iteration, IterType::Reduction}));
  EXPECT_EQ(extents(w.count), (std::vector<int64_t>{4}));
  const ir::Expr* def = w.avg->definition();
  EXPECT_EQ(def->type(), ExprType::Welford);
  EXPECT_EQ(def->outputs(), (std::vector<Val*>{w.avg, w.varSum, w.count}));
  EXPECT_EQ(def->attrs().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(def->input(0)->definition()->type(), ExprType::Cast);
}

TEST_F(NormalizationTest, WelfordOfDoubleStaysDouble) {
  WelfordResult w = welford(tensor({4, 8}, DataType::Double), {0});
  EXPECT_EQ(w.avg->dtype(), DataType::Double);
  EXPECT_EQ(w.avg->definition()->input(0)->definition(), nullptr);
}

TEST_F(NormalizationTest, VarDividesVarSumByNMinusCorrection) {
  TensorView* x = tensor({4, 8, 3}, DataType::Half);
  VarMeanResult r = varMean(x, {1, 2});
  EXPECT_EQ(r.var->dtype(), DataType::Float);
  EXPECT_EQ(r.mean->dtype(), DataType::Float);
  EXPECT_EQ(extents(r.var), (std::vector<int64_t>{4}));
  const ir::Expr* div = r.var->definition();
  ASSERT_EQ(div->type(), ExprType::Binary);
  EXPECT_EQ(div->attrs().binaryOp, BinaryOpType::Div);
  const ir::Expr* welfordExpr = r.mean->definition();
  EXPECT_EQ(welfordExpr->type(), ExprType::Welford);
  EXPECT_EQ(div->input(0), welfordExpr->output(1));
  ASSERT_TRUE(div->input(1)->isA<Scalar>());
  EXPECT_EQ(div->input(1)->as<Scalar>()->constInt(), 8 * 3 - 1);
}

TEST_F(NormalizationTest, CorrectionZeroAndFractional) {
  TensorView* v0 = var(tensor({4, 8}), {1}, 0.0);
  EXPECT_EQ(v0->definition()->input(1)->as<Scalar>()->constInt(), 8);
  TensorView* vHalf = var(tensor({4, 8}), {1}, 0.5);
  EXPECT_EQ(vHalf->dtype(), DataType::Float);
  const Scalar* n = vHalf->definition()->input(1)->as<Scalar>();
  ASSERT_NE(n, nullptr);
  ASSERT_NE(n->definition(), nullptr);  // 8 - 0.5 as a scalar expression
  EXPECT_EQ(n->definition()->attrs().binaryOp, BinaryOpType::Sub);
}

TEST_F(NormalizationTest, SymbolicExtentsGiveAScalarExpression) {
  TensorView* v = var(tensor({4, -1}), {1});
  const Scalar* n = v->definition()->input(1)->as<Scalar>();
  ASSERT_NE(n, nullptr);
  EXPECT_FALSE(n->isConst());
  ASSERT_NE(n->definition(), nullptr);
  EXPECT_EQ(n->definition()->attrs().binaryOp, BinaryOpType::Sub);
}

TEST_F(NormalizationTest, KeepDimBroadcastsVarAndMean) {
  VarMeanResult r = varMean(tensor({4, 8}), {1}, 1.0, /*keepDim=*/true);
  EXPECT_EQ(extents(r.var), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(extents(r.mean), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(iterTypes(r.mean), (std::vector<IterType>{IterType::Iteration, IterType::Broadcast}));
}

TEST_F(NormalizationTest, BadAxesNameTheOp) {
  TensorView* x = tensor({4, 8});
  expectUserError([&] { varMean(x, {2}); }, {"var_mean", "axis 2", "rank 2", x->name()});
  expectUserError([&] { var(x, {0, -2}); }, {"var", "twice"});
  expectUserError([&] { welford(x, {}); }, {"welford", "no axes", x->name()});
}

}  // namespace
}  // namespace fuserlab::ops::test
