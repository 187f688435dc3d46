// The reference executor's lookups built for nvFuser's select and
// embedding_fwd: select at constant, negative and symbolic indices (and a
// symbolic index out of range), embedding rows by index (index_select and
// reshape) and as the Embedding expr, renormalized to max_norm in the 2-norm
// and the 1-norm, and an index past the table.
#include <gtest/gtest.h>

#include "core/ops/embedding.h"
#include "core/ops/factory.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

std::vector<double> iotaValues(int n) {
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) out[i] = i;
  return out;
}

TEST_F(ReferenceExecutorTest, SelectAtConstantAndNegativeIndices) {
  TensorView* x = input({3, 4});
  fusion_.addOutput(ops::select(x, c(1), 0));
  fusion_.addOutput(ops::select(x, c(-1), 1));
  const std::vector<Tensor> out = run({make(DataType::Float, {3, 4}, iotaValues(12))});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, 7, 11}));
}

TEST_F(ReferenceExecutorTest, SelectAtASymbolicIndex) {
  TensorView* x = input({3, -1});
  Scalar* index = scalarInput(DataType::Int);
  fusion_.addOutput(ops::select(x, index, 1));
  const Tensor data = make(DataType::Float, {3, 4}, iotaValues(12));
  EXPECT_EQ(runValues({data, ir::ScalarValue(int64_t{1})}), (std::vector<double>{1, 5, 9}));
  // -2 counts from the end at run time: position 2.
  EXPECT_EQ(runValues({data, ir::ScalarValue(int64_t{-2})}), (std::vector<double>{2, 6, 10}));
  // Past the axis, the slice of one position is empty: refused at run time.
  for (int64_t bad : {4, -5}) {
    expectUserError(
        [&] {
          run({data, ir::ScalarValue(bad)});
        },
        {"slice: ", "has size 0 on axis 1", "evaluates to 1"});
  }
}

TEST_F(ReferenceExecutorTest, EmbeddingLooksUpRows) {
  TensorView* indices = input({2, 2}, DataType::Int);
  TensorView* weight = input({4, 3});
  fusion_.addOutput(ops::embeddingFwd(indices, weight, c(0), nullptr, nullptr, nullptr, nullptr));
  const std::vector<Tensor> out = run(
      {make(DataType::Int, {2, 2}, {3, 0, 0, 2}), make(DataType::Float, {4, 3}, iotaValues(12))});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 2, 3}));
  // padding_idx changes only the backward: row 0 is looked up as it is.
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 10, 11, 0, 1, 2, 0, 1, 2, 6, 7, 8}));
}

// Without max_norm embedding_fwd is an index_select and reshapes; it must
// give what the Embedding expr (kept for max_norm) gives with a max_norm no
// row reaches, element for element, on bf16 rows and Int32 indices of 3 axes
// with a broadcast one.
TEST_F(ReferenceExecutorTest, EmbeddingByIndexSelectEqualsTheEmbeddingExpr) {
  TensorView* indices = input({2, 1, -1}, DataType::Int32);
  TensorView* weight = input({5, -1}, DataType::BFloat16);
  TensorView* lookedUp =
      ops::embeddingFwd(indices, weight, c(4), nullptr, nullptr, nullptr, nullptr);
  ASSERT_NE(lookedUp->definition()->type(), ir::ExprType::Embedding);
  fusion_.addOutput(lookedUp);
  fusion_.addOutput(
      ops::embeddingFwd(indices, weight, nullptr, d(1e30), nullptr, nullptr, nullptr));
  std::vector<double> table;
  for (int i = 0; i < 5 * 6; ++i) table.push_back(0.37 * (i + 1) * (i % 2 == 0 ? 1 : -1));
  const std::vector<Tensor> out = run({make(DataType::Int32, {2, 1, 3}, {4, 0, 2, 2, 1, 4}),
                                       make(DataType::BFloat16, {5, 6}, table)});
  ASSERT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 1, 3, 6}));
  EXPECT_EQ(out[0].dtype(), DataType::BFloat16);
  EXPECT_EQ(out[1].sizes(), out[0].sizes());
  EXPECT_EQ(values(out[0]), values(out[1]));
  EXPECT_EQ(values(out[0])[6], values(make(DataType::BFloat16, {1}, {table[0]}))[0]);
}

TEST_F(ReferenceExecutorTest, EmbeddingRenormsRowsOverMaxNorm) {
  TensorView* indices = input({3}, DataType::Int);
  TensorView* weight = input({3, 2});
  fusion_.addOutput(ops::embeddingFwd(indices, weight, nullptr, d(1.0), nullptr, nullptr, nullptr));
  fusion_.addOutput(ops::embeddingFwd(indices, weight, nullptr, d(1.0), d(1.0), nullptr, nullptr));
  const std::vector<Tensor> out = run(
      {make(DataType::Int, {3}, {0, 1, 2}), make(DataType::Float, {3, 2}, {3, 4, 0.3, 0.4, 6, 8})});
  // 2-norms 5, 0.5 and 10: rows over 1 are scaled by 1 / (norm + 1e-7).
  const std::vector<double> l2 = values(out[0]);
  const std::vector<double> expectedL2 = {0.6, 0.8, 0.3, 0.4, 0.6, 0.8};
  // 1-norms 7, 0.7 and 14.
  const std::vector<double> l1 = values(out[1]);
  const std::vector<double> expectedL1 = {3.0 / 7, 4.0 / 7, 0.3, 0.4, 6.0 / 14, 8.0 / 14};
  for (size_t i = 0; i < expectedL2.size(); ++i) {
    EXPECT_NEAR(l2[i], expectedL2[i], 1e-6) << i;
    EXPECT_NEAR(l1[i], expectedL1[i], 1e-6) << i;
  }
  // The rows under max_norm are the weight's, exactly.
  EXPECT_EQ(l2[2], static_cast<double>(0.3f));
}

TEST_F(ReferenceExecutorTest, EmbeddingIndexPastTheTableIsAUserError) {
  TensorView* indices = input({2}, DataType::Int);
  TensorView* weight = input({4, 3});
  fusion_.addOutput(
      ops::embeddingFwd(indices, weight, nullptr, nullptr, nullptr, nullptr, nullptr));
  for (double bad : {4.0, -1.0}) {
    expectUserError(
        [&] {
          run({make(DataType::Int, {2}, {0, bad}), make(DataType::Float, {4, 3}, iotaValues(12))});
        },
        {"index_select: index " + std::to_string(static_cast<int>(bad)),
         "out of range for axis 0 of size 4"});
  }
}

}  // namespace
}  // namespace fuserlab::runtime::test
