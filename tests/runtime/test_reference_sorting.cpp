// The reference executor's argsort and topk: hand-sorted lines along either
// axis, NaN above every number, stable order among equal values, integer and
// Half inputs, a symbolic k (0 included), and k past the axis as a user
// error.
#include <gtest/gtest.h>

#include <limits>

#include "core/ops/sorting.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_F(ReferenceExecutorTest, ArgsortAscendingAndDescendingWithNaN) {
  TensorView* x = input({2, 4});
  fusion_.addOutput(ops::argsort(x, 1, /*descending=*/false, /*stable=*/true));
  fusion_.addOutput(ops::argsort(x, -1, /*descending=*/true, /*stable=*/false));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {2, 4}, {3, 1, kNan, 1, -0.5, 2, -kInf, 7})});
  EXPECT_EQ(out[0].dtype(), DataType::Int);
  // Row 0: 1 (at 1), 1 (at 3), 3, NaN; equal values keep their order.
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 3, 0, 2, 2, 0, 1, 3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{2, 0, 1, 3, 3, 1, 0, 2}));
}

TEST_F(ReferenceExecutorTest, ArgsortAlongTheOuterAxisOfIntegers) {
  TensorView* x = input({3, 2}, DataType::Int32);
  fusion_.addOutput(ops::argsort(x, 0, false, false));
  EXPECT_EQ(runValues({make(DataType::Int32, {3, 2}, {5, -2, 0, 9, 5, 1})}),
            (std::vector<double>{1, 0, 0, 2, 2, 1}));
}

TEST_F(ReferenceExecutorTest, TopkLargestAndSmallest) {
  TensorView* x = input({2, 5});
  ops::TopKResult largest = ops::topk(x, c(3), -1, /*largest=*/true, true);
  ops::TopKResult smallest = ops::topk(x, c(2), 1, /*largest=*/false, false);
  fusion_.addOutput(largest.values);
  fusion_.addOutput(largest.indices);
  fusion_.addOutput(smallest.values);
  fusion_.addOutput(smallest.indices);
  const std::vector<Tensor> out =
      run({make(DataType::Float, {2, 5}, {1, 9, 3, 9, 4, 0, -1, 7, 2, 7})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 9, 4, 7, 7, 2}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 3, 4, 2, 4, 3}));
  EXPECT_EQ(out[1].dtype(), DataType::Int);
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 3, -1, 0}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{0, 2, 1, 0}));
}

TEST_F(ReferenceExecutorTest, TopkAlongAxisZeroKeepsHalfValuesExactly) {
  TensorView* x = input({2, 3}, DataType::Half);
  ops::TopKResult top = ops::topk(x, c(1), 0, true, true);
  fusion_.addOutput(top.values);
  fusion_.addOutput(top.indices);
  const std::vector<Tensor> out =
      run({make(DataType::Half, {2, 3}, {2.5, -1.25, 3.75, 0.5, 6.0, -7.0})});
  EXPECT_EQ(out[0].dtype(), DataType::Half);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{2.5, 6.0, 3.75}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 0}));
}

TEST_F(ReferenceExecutorTest, TopkOfASymbolicK) {
  TensorView* x = input({2, 5});
  Scalar* k = scalarInput(DataType::Int);
  fusion_.addOutput(ops::topk(x, k, 1, true, true).indices);
  const Tensor data = make(DataType::Float, {2, 5}, {1, 9, 3, 9, 4, 0, -1, 7, 2, 7});
  EXPECT_EQ(run({data, ir::ScalarValue(int64_t{0})}).at(0).sizes(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(values(run({data, ir::ScalarValue(int64_t{2})}).at(0)),
            (std::vector<double>{1, 3, 2, 4}));
  expectUserError(
      [&] {
        run({data, ir::ScalarValue(int64_t{6})});
      },
      {"topk: k is 6 but axis 1 has 5 elements"});
}

}  // namespace
}  // namespace fuserlab::runtime::test
