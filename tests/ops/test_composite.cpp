#include "core/ops/composite.h"

#include <cmath>

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

class CompositeTest : public OpsFixture {};

TEST_F(CompositeTest, MatmulTwoByTwo) {
  TensorView* a = tensor({4, 8}, DataType::BFloat16);
  TensorView* b = tensor({8, 3}, DataType::BFloat16);
  TensorView* out = matmul(a, b);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(out->definition()->type(), ExprType::Matmul);
  EXPECT_EQ(out->definition()->inputs(), (std::vector<Val*>{a, b}));
}

TEST_F(CompositeTest, MatmulOneDimensionalOperands) {
  EXPECT_EQ(matmul(tensor({8}), tensor({8}))->rank(), 0);
  EXPECT_EQ(extents(matmul(tensor({4, 8}), tensor({8}))), (std::vector<int64_t>{4}));
  EXPECT_EQ(extents(matmul(tensor({8}), tensor({8, 3}))), (std::vector<int64_t>{3}));
  EXPECT_EQ(extents(matmul(tensor({8}), tensor({6, 8, 3}))), (std::vector<int64_t>{6, 3}));
}

TEST_F(CompositeTest, MatmulBroadcastsBatchAxes) {
  EXPECT_EQ(extents(matmul(tensor({2, 1, 4, 8}), tensor({5, 8, 3}))),
            (std::vector<int64_t>{2, 5, 4, 3}));
  EXPECT_EQ(extents(matmul(tensor({7, 4, 8}), tensor({8, 3}))), (std::vector<int64_t>{7, 4, 3}));
}

TEST_F(CompositeTest, MatmulErrors) {
  TensorView* a = tensor({4, 8});
  TensorView* b = tensor({7, 3});
  expectUserError([&] { matmul(a, b); }, {"matmul", a->name(), b->name(), "contraction", "8 vs 7"});
  TensorView* half = tensor({8, 3}, DataType::Half);
  expectUserError([&] { matmul(a, half); }, {"matmul", "Float", "Half", half->name()});
  TensorView* ints = tensor({4, 8}, DataType::Int);
  expectUserError(
      [&] {
        matmul(ints, tensor({8, 3}, DataType::Int));
      },
      {"matmul", ints->name(), "floating-point"});
  expectUserError(
      [&] {
        matmul(tensor({2, 4, 8}), tensor({3, 8, 3}));
      },
      {"matmul", "axis 0", "2", "3"});
}

TEST_F(CompositeTest, LinearMapsLastAxisToOutFeatures) {
  TensorView* a = tensor({2, 5, 8}, DataType::Half);
  TensorView* w = tensor({16, 8}, DataType::Half);
  TensorView* bias = tensor({16}, DataType::Half);
  TensorView* out = linear(a, w, bias);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 5, 16}));
  EXPECT_EQ(out->dtype(), DataType::Half);
  EXPECT_EQ(out->definition()->type(), ExprType::Linear);
  EXPECT_EQ(out->definition()->inputs(), (std::vector<Val*>{a, w, bias}));
  EXPECT_EQ(linear(a, w)->definition()->inputs().size(), 2u);
  EXPECT_EQ(extents(linear(a, tensor({8}, DataType::Half))), (std::vector<int64_t>{2, 5}));
}

TEST_F(CompositeTest, LinearErrors) {
  TensorView* a = tensor({2, 8});
  TensorView* w = tensor({16, 4});
  expectUserError([&] { linear(a, w); }, {"linear", w->name(), "contraction", "8 vs 4"});
  TensorView* bias = tensor({15});
  expectUserError([&] { linear(a, tensor({16, 8}), bias); }, {"linear", bias->name(), "16 vs 15"});
}

TEST_F(CompositeTest, SdpaShapesDtypesAndDefaults) {
  TensorView* q = tensor({2, 4, 16, 64}, DataType::BFloat16);
  TensorView* k = tensor({2, 4, 32, 64}, DataType::BFloat16);
  TensorView* v = tensor({2, 4, 32, 48}, DataType::BFloat16);
  SdpaResult r = sdpfaFwd(q, k, v, nullptr, nullptr, nullptr);
  EXPECT_EQ(extents(r.output), (std::vector<int64_t>{2, 4, 16, 48}));
  EXPECT_EQ(r.output->dtype(), DataType::BFloat16);
  EXPECT_EQ(extents(r.logSumExp), (std::vector<int64_t>{2, 4, 16}));
  EXPECT_EQ(r.logSumExp->dtype(), DataType::Float);
  for (TensorView* philox : {r.philoxSeed, r.philoxOffset}) {
    EXPECT_EQ(philox->rank(), 0);
    EXPECT_EQ(philox->dtype(), DataType::Int);
    EXPECT_TRUE(philox->isCpuScalar());
  }
  const ir::Expr* def = r.output->definition();
  EXPECT_EQ(def->type(), ExprType::Sdpa);
  ASSERT_EQ(def->inputs().size(), 6u);
  EXPECT_EQ(def->input(3)->as<Scalar>()->constDouble(), 0.0);
  EXPECT_EQ(def->input(4)->as<Scalar>()->constInt(), 0);
  EXPECT_EQ(def->input(4)->dtype(), DataType::Bool);
  EXPECT_TRUE(std::isnan(*def->input(5)->as<Scalar>()->constDouble()));
  EXPECT_EQ(def->input(5)->dtype(), DataType::Double);
  EXPECT_EQ(def->outputs(),
            (std::vector<Val*>{r.output, r.logSumExp, r.philoxSeed, r.philoxOffset}));
}

TEST_F(CompositeTest, SdpaErrors) {
  TensorView* q = tensor({2, 4, 16, 64}, DataType::Float);
  TensorView* k = tensor({2, 4, 32, 64}, DataType::Half);
  TensorView* v = tensor({2, 4, 32, 64}, DataType::Half);
  expectUserError([&] { sdpfaFwd(q, k, v, nullptr, nullptr, nullptr); },
                  {"sdpfa_fwd", q->name(), "Float", "Half or BFloat16"});
  TensorView* q3 = tensor({2, 16, 64}, DataType::Half);
  expectUserError([&] { sdpfaFwd(q3, k, v, nullptr, nullptr, nullptr); },
                  {"sdpfa_fwd", q3->name(), "rank 3", "[N, H, L, E]"});
  TensorView* qe = tensor({2, 4, 16, 32}, DataType::Half);
  expectUserError([&] { sdpfaFwd(qe, k, v, nullptr, nullptr, nullptr); },
                  {"sdpfa_fwd", "head size", "32 vs 64"});
  expectUserError(
      [&] {
        sdpfaFwd(tensor({2, 4, 16, 64}, DataType::Half), k, v, nullptr, c(1), nullptr);
      },
      {"sdpfa_fwd", "is_causal", "Bool"});
}

}  // namespace
}  // namespace fuserlab::ops::test
