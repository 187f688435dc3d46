// The reference executor's meta ops, factories and indexing: broadcast and
// expand (stride-0 views), reshape, permute, squeeze, slice (with run-time
// normalization of bounds), pad (with cropping), cat, set, full, iota,
// index_select and take_along_axis, and their user errors.
#include <gtest/gtest.h>

#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/factory.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;

std::vector<double> iotaValues(int n) {
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) out[i] = i;
  return out;
}

TEST_F(ReferenceExecutorTest, BroadcastThenExpandReadsOneRow) {
  TensorView* row = input({3});
  TensorView* y = input({4, 3});
  TensorView* expanded = ops::expand(ops::broadcast(row, {true, false}), sizes({4, -1}));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, expanded, y));
  fusion_.addOutput(expanded);
  const std::vector<Tensor> out =
      run({make(DataType::Float, {3}, {1, 2, 3}), make(DataType::Float, {4, 3}, iotaValues(12))});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 3, 5, 4, 6, 8, 7, 9, 11, 10, 12, 14}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_TRUE(out[1].isContiguous());  // outputs are materialized
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

TEST_F(ReferenceExecutorTest, ExpandOfANonBroadcastAxisIsAUserError) {
  TensorView* x = input({-1});
  Scalar* n = scalarInput(DataType::Int);
  fusion_.addOutput(ops::expand(x, {n}));
  expectUserError(
      [&] {
        run({make(DataType::Float, {2}, {1, 2}), ir::ScalarValue(int64_t{5})});
      },
      {"expand", "size 2", "5"});
}

TEST_F(ReferenceExecutorTest, ReshapePermuteAndReshapeAgain) {
  TensorView* x = input({2, 3});
  TensorView* r = ops::reshape(x, sizes({3, -1}));
  TensorView* p = ops::permute(r, {1, 0});
  fusion_.addOutput(r);
  fusion_.addOutput(p);
  fusion_.addOutput(ops::reshape(p, sizes({6})));  // of a non-contiguous view
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 3}, iotaValues(6))});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(out[0]), iotaValues(6));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{0, 2, 4, 1, 3, 5}));
}

TEST_F(ReferenceExecutorTest, SqueezeChecksTheSizeAtRunTime) {
  TensorView* x = input({2, -1, 3});
  fusion_.addOutput(ops::squeeze(x, {1}));
  EXPECT_EQ(run({make(DataType::Float, {2, 1, 3}, iotaValues(6))}).at(0).sizes(),
            (std::vector<int64_t>{2, 3}));
  expectUserError(
      [&] {
        run({make(DataType::Float, {2, 2, 3}, iotaValues(12))});
      },
      {"squeeze", "axis 1", "size 2"});
}

TEST_F(ReferenceExecutorTest, SliceWithSteps) {
  TensorView* x = input({3, 8});
  fusion_.addOutput(ops::slice(x, {c(1), c(1)}, {c(3), c(-1)}, {c(1), c(3)}));
  const std::vector<Tensor> out = run({make(DataType::Float, {3, 8}, iotaValues(24))});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 12, 17, 20}));
}

TEST_F(ReferenceExecutorTest, SliceNormalizesBoundsAtRunTime) {
  // A Slice built by hand with raw bounds (-3, 100, step 2) and an output
  // extent the reference does not know: it normalizes them as Python does,
  // x[-3:100:2] of 8 elements = x[5:8:2].
  TensorView* x = input({8});
  ir::IterDomain* axis =
      fusion_.newIterDomain(fusion_.newScalar(DataType::Int), IterType::Iteration);
  TensorView* y = fusion_.newTensorView({axis}, DataType::Float);
  fusion_.newExpr(ir::ExprType::Slice, {x, c(-3), c(100), c(2)}, {y});
  fusion_.addOutput(y);
  EXPECT_EQ(runValues({make(DataType::Float, {8}, iotaValues(8))}), (std::vector<double>{5, 7}));
}

TEST_F(ReferenceExecutorTest, PadsAndCrops) {
  TensorView* x = input({2, 3});
  // Last axis (1, 2) with 9; first axis (-1, 1): crop the first row, add one.
  fusion_.addOutput(ops::pad(x, sizes({1, 2, -1, 1}), d(9.0)));
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 3}, iotaValues(6))});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 3, 4, 5, 9, 9,  //
                                                 9, 9, 9, 9, 9, 9}));
}

TEST_F(ReferenceExecutorTest, CatAlongBothAxes) {
  TensorView* a = input({2, 1});
  TensorView* b = input({2, 2});
  TensorView* e = input({1, 3});
  TensorView* wide = ops::cat({a, b}, 1);
  fusion_.addOutput(wide);
  fusion_.addOutput(ops::cat({wide, e}, 0));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {2, 1}, {1, 2}), make(DataType::Float, {2, 2}, {3, 4, 5, 6}),
           make(DataType::Float, {1, 3}, {7, 8, 9})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 3, 4, 2, 5, 6, 7, 8, 9}));
}

TEST_F(ReferenceExecutorTest, SetAndSegmentSetCopy) {
  TensorView* x = input({2, 2}, DataType::Half);
  fusion_.addOutput(ops::set(x));
  fusion_.addOutput(ops::segmentSet(ops::permute(x, {1, 0})));
  const Tensor in = make(DataType::Half, {2, 2}, {1, 2, 3, 4});
  const std::vector<Tensor> out = run({in});
  EXPECT_FALSE(out[0].sharesStorageWith(in));
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 3, 2, 4}));
}

TEST_F(ReferenceExecutorTest, FullAndIota) {
  Scalar* n = scalarInput(DataType::Int);
  fusion_.addOutput(ops::full(fusion_, {c(2), n}, d(1.5), DataType::BFloat16));
  fusion_.addOutput(ops::iota(fusion_, n, c(10), c(-3), DataType::Int));
  fusion_.addOutput(ops::iota(fusion_, n, d(0.5), d(0.25), DataType::Float));
  const std::vector<Tensor> out = run({ir::ScalarValue(int64_t{3})});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{1.5, 1.5, 1.5, 1.5, 1.5, 1.5}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{10, 7, 4}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{0.5, 0.75, 1.0}));
}

TEST_F(ReferenceExecutorTest, IndexSelectRows) {
  TensorView* x = input({3, 2});
  TensorView* index = input({4}, DataType::Int32);
  fusion_.addOutput(ops::indexSelect(x, index, 0));
  EXPECT_EQ(runValues({make(DataType::Float, {3, 2}, iotaValues(6)),
                       make(DataType::Int32, {4}, {2, 0, 2, 1})}),
            (std::vector<double>{4, 5, 0, 1, 4, 5, 2, 3}));
}

TEST_F(ReferenceExecutorTest, IndexSelectOutOfRangeNamesTheIndex) {
  TensorView* x = input({3, 2});
  TensorView* index = input({2}, DataType::Int);
  fusion_.addOutput(ops::indexSelect(x, index, 0));
  expectUserError(
      [&] {
        run({make(DataType::Float, {3, 2}, iotaValues(6)), make(DataType::Int, {2}, {1, 5})});
      },
      {"index_select", "index 5", "size 3"});
}

TEST_F(ReferenceExecutorTest, TakeAlongAxis) {
  TensorView* x = input({2, 3});
  TensorView* index = input({2, 2}, DataType::Int);
  fusion_.addOutput(ops::takeAlongAxis(x, index, 1));
  EXPECT_EQ(runValues({make(DataType::Float, {2, 3}, {10, 11, 12, 20, 21, 22}),
                       make(DataType::Int, {2, 2}, {2, 0, 1, 1})}),
            (std::vector<double>{12, 10, 21, 21}));
}

TEST_F(ReferenceExecutorTest, TakeAlongAxisOutOfRangeIsAUserError) {
  TensorView* x = input({2, 3});
  TensorView* index = input({2, 1}, DataType::Int);
  fusion_.addOutput(ops::takeAlongAxis(x, index, 1));
  expectUserError(
      [&] {
        run({make(DataType::Float, {2, 3}, iotaValues(6)), make(DataType::Int, {2, 1}, {0, -1})});
      },
      {"take_along_axis", "index -1"});
}

TEST_F(ReferenceExecutorTest, RotaryEmbeddingWithSymbolicExtents) {
  // resources/examples/rope.py at [1, 2, 3, 4]: x*cos + cat(-x2, x1)*sin with
  // the halves sliced from the innermost axis and 2-D tables broadcast in.
  TensorView* x = input({-1, -1, -1, -1}, DataType::BFloat16);
  TensorView* cosTable = input({-1, -1}, DataType::BFloat16);
  TensorView* sinTable = input({-1, -1}, DataType::BFloat16);
  TensorView* x1 = ops::slice(x, sizes({0, 0, 0, 0}), sizes({1, 2, 3, 2}), sizes({1, 1, 1, 1}));
  TensorView* x2 = ops::slice(x, sizes({0, 0, 0, 2}), sizes({1, 2, 3, 4}), sizes({1, 1, 1, 1}));
  Val* negX2 = ops::cast(ops::unaryOp(ir::UnaryOpType::Neg, ops::cast(x2, DataType::Float)),
                         DataType::BFloat16);
  TensorView* rotated = ops::cat({tv(negX2), x1}, 3);
  auto table = [&](TensorView* t) {
    return ops::cast(ops::broadcastInDim(t, sizes({1, 2, 3, 4}), {2, 3}), DataType::Float);
  };
  Val* y = ops::binaryOp(
      BinaryOpType::Add,
      ops::binaryOp(BinaryOpType::Mul, ops::cast(x, DataType::Float), table(cosTable)),
      ops::binaryOp(BinaryOpType::Mul, ops::cast(rotated, DataType::Float), table(sinTable)));
  fusion_.addOutput(ops::cast(y, DataType::BFloat16));
  std::vector<double> cosValues(12, 0.5);
  std::vector<double> sinValues(12, 2.0);
  const Tensor out = run({make(DataType::BFloat16, {1, 2, 3, 4}, iotaValues(24)),
                          make(DataType::BFloat16, {3, 4}, cosValues),
                          make(DataType::BFloat16, {3, 4}, sinValues)})
                         .at(0);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{1, 2, 3, 4}));
  // Row [20, 21, 22, 23]: [10 - 44, 10.5 - 46, 11 + 40, 11.5 + 42].
  EXPECT_EQ(out.item({0, 1, 2, 0}), -34);
  EXPECT_EQ(out.item({0, 1, 2, 1}), -35.5);
  EXPECT_EQ(out.item({0, 1, 2, 2}), 51);
  EXPECT_EQ(out.item({0, 1, 2, 3}), 53.5);
}

}  // namespace
}  // namespace fuserlab::runtime::test
