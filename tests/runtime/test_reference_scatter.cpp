// The reference executor's scatter and index_put_accumulate: hand-computed
// results (src tensors and scalars, an index shorter than the input, a
// repeated index, negative indices for index_put), the single rounding of a
// Half sum, and the user errors for an index out of range.
#include <gtest/gtest.h>

#include "core/ops/scatter.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

std::vector<double> iotaValues(int n) {
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) out[i] = i;
  return out;
}

TEST_F(ReferenceExecutorTest, ScatterAlongAxisZero) {
  TensorView* x = input({3, 4});
  TensorView* index = input({1, 4}, DataType::Int);
  TensorView* src = input({1, 4});
  fusion_.addOutput(ops::scatter(x, index, src, 0));
  // Column j's row index[0][j] takes src[0][j].
  EXPECT_EQ(runValues({make(DataType::Float, {3, 4}, iotaValues(12)),
                       make(DataType::Int, {1, 4}, {2, 0, 1, 2}),
                       make(DataType::Float, {1, 4}, {100, 101, 102, 103})}),
            (std::vector<double>{0, 101, 2, 3, 4, 5, 102, 7, 100, 9, 10, 103}));
}

TEST_F(ReferenceExecutorTest, ScatterWithAShortIndexAndARepeatedPosition) {
  TensorView* x = input({3, 4});
  TensorView* index = input({2, 2}, DataType::Int32);
  TensorView* src = input({2, 3});
  fusion_.addOutput(ops::scatter(x, index, src, 1));
  // src is read at the index's positions only; row 1 writes position 1
  // twice, and the later write (50) stays. Row 2 is left as it was.
  EXPECT_EQ(runValues({make(DataType::Float, {3, 4}, iotaValues(12)),
                       make(DataType::Int32, {2, 2}, {3, 0, 1, 1}),
                       make(DataType::Float, {2, 3}, {10, 20, 30, 40, 50, 60})}),
            (std::vector<double>{20, 1, 2, 10, 4, 50, 6, 7, 8, 9, 10, 11}));
}

TEST_F(ReferenceExecutorTest, ScatterOfAScalarIsCastToTheInputDtype) {
  TensorView* x = input({3, 3}, DataType::Int);
  TensorView* index = input({3, 1}, DataType::Int);
  fusion_.addOutput(ops::scatter(x, index, d(-1.75), 1));
  const std::vector<Tensor> out =
      run({make(DataType::Int, {3, 3}, iotaValues(9)), make(DataType::Int, {3, 1}, {0, 2, 1})});
  EXPECT_EQ(out[0].dtype(), DataType::Int);
  EXPECT_EQ(values(out[0]), (std::vector<double>{-1, 1, 2, 3, 4, -1, 6, -1, 8}));
}

TEST_F(ReferenceExecutorTest, ScatterIndexOutOfRangeIsAUserError) {
  TensorView* x = input({3, 4});
  TensorView* index = input({1, 2}, DataType::Int);
  fusion_.addOutput(ops::scatter(x, index, d(0.0), 1));
  for (double bad : {4.0, -1.0}) {
    expectUserError(
        [&] {
          run({make(DataType::Float, {3, 4}, iotaValues(12)),
               make(DataType::Int, {1, 2}, {0, bad})});
        },
        {"scatter: index " + std::to_string(static_cast<int>(bad)),
         "out of range for axis 1 of size 4"});
  }
}

TEST_F(ReferenceExecutorTest, IndexPutAccumulateAddsRowsAtTheirIndices) {
  TensorView* acc = input({4, 2});
  TensorView* index = input({-1}, DataType::Int);
  TensorView* value = input({-1, 2});
  fusion_.addOutput(ops::indexPutAccumulate(acc, index, value));
  // Row 2 gets 1 and 100, row 0 gets 10, row -1 (row 3) gets 1000.
  EXPECT_EQ(runValues({make(DataType::Float, {4, 2}, iotaValues(8)),
                       make(DataType::Int, {4}, {2, 0, 2, -1}),
                       make(DataType::Float, {4, 2}, {1, 1, 10, 10, 100, 100, 1000, 1000})}),
            (std::vector<double>{10, 11, 2, 3, 105, 106, 1006, 1007}));
}

TEST_F(ReferenceExecutorTest, IndexPutAccumulateRoundsAHalfSumOnce) {
  TensorView* acc = input({1}, DataType::Half);
  TensorView* index = input({3}, DataType::Int);
  TensorView* value = input({3}, DataType::Half);
  fusion_.addOutput(ops::indexPutAccumulate(acc, index, value));
  // 2048 + 1 + 1 + 1 = 2051 in float, then Half (spacing 2 here): a tie
  // rounded to even, 2052. Adding in Half would stay at 2048.
  EXPECT_EQ(runValues({make(DataType::Half, {1}, {2048}), make(DataType::Int, {3}, {0, 0, 0}),
                       make(DataType::Half, {3}, {1, 1, 1})}),
            (std::vector<double>{2052}));
}

TEST_F(ReferenceExecutorTest, IndexPutAccumulateIndexOutOfRangeIsAUserError) {
  TensorView* acc = input({4, 2});
  TensorView* index = input({1}, DataType::Int);
  TensorView* value = input({1, 2});
  fusion_.addOutput(ops::indexPutAccumulate(acc, index, value));
  for (double bad : {4.0, -5.0}) {
    expectUserError(
        [&] {
          run({make(DataType::Float, {4, 2}, iotaValues(8)), make(DataType::Int, {1}, {bad}),
               make(DataType::Float, {1, 2}, {1, 1})});
        },
        {"index_put_accumulate: index " + std::to_string(static_cast<int>(bad)),
         "out of range for axis 0 of size 4"});
  }
}

}  // namespace
}  // namespace fuserlab::runtime::test
