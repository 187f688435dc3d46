// scatter and index_put_accumulate: the result is shaped and typed as the
// tensor written into; operand ranks, dtypes and constant extents are
// checked with messages naming the op.
#include "core/ops/scatter.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

class ScatterTest : public OpsFixture {};

TEST_F(ScatterTest, ScatterOfATensorKeepsTheInputShape) {
  TensorView* x = tensor({4, 6}, DataType::BFloat16);
  TensorView* index = tensor({2, 6}, DataType::Int32);
  TensorView* src = tensor({3, 6}, DataType::BFloat16);
  TensorView* out = scatter(x, index, src, -2);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Scatter);
  EXPECT_EQ(def->attrs().dim, 0);
  EXPECT_EQ(def->inputs(), (std::vector<Val*>{x, index, src}));
}

TEST_F(ScatterTest, ScatterOfAScalar) {
  TensorView* x = tensor({4, -1});
  TensorView* index = tensor({4, 2}, DataType::Int);
  Scalar* value = fusion_.constDouble(1.5);
  TensorView* out = scatter(x, index, value, 1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, -1}));
  EXPECT_EQ(out->definition()->input(2), value);
}

TEST_F(ScatterTest, ScatterErrors) {
  TensorView* x = tensor({4, 6});
  TensorView* index = tensor({2, 6}, DataType::Int);
  expectUserError(
      [&] {
        scatter(x, tensor({2, 6}), tensor({2, 6}), 0);
      },
      {"scatter", "the index", "Float", "Int"});
  expectUserError(
      [&] {
        scatter(x, tensor({2}, DataType::Int), tensor({2, 6}), 0);
      },
      {"scatter", "rank 1", "rank 2"});
  expectUserError(
      [&] {
        scatter(x, index, tensor({2, 6}, DataType::Half), 0);
      },
      {"scatter", "src", "Half", "Float", "same dtype"});
  expectUserError(
      [&] {
        scatter(x, index, tensor({1, 6}), 0);
      },
      {"scatter", "axis 0 of the index", "size 2", "only 1"});
  expectUserError(
      [&] {
        scatter(x, tensor({2, 8}, DataType::Int), tensor({2, 8}), 0);
      },
      {"scatter", "axis 1 of the index", "size 8", "only 6"});
  expectUserError([&] { scatter(x, index, tensor({2, 6}), 2); }, {"scatter", "axis 2", "rank 2"});
}

TEST_F(ScatterTest, IndexPutAccumulateKeepsTheAccumulatorShape) {
  TensorView* acc = tensor({10, 8}, DataType::Half);
  TensorView* index = tensor({-1}, DataType::Int);
  TensorView* value = tensor({-1, 8}, DataType::Half);
  TensorView* out = indexPutAccumulate(acc, index, value);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{10, 8}));
  EXPECT_EQ(out->dtype(), DataType::Half);
  EXPECT_EQ(out->definition()->type(), ExprType::IndexPutAccumulate);
  EXPECT_EQ(out->definition()->inputs(), (std::vector<Val*>{acc, index, value}));
}

TEST_F(ScatterTest, IndexPutAccumulateErrors) {
  TensorView* acc = tensor({10, 8});
  TensorView* index = tensor({3}, DataType::Int);
  expectUserError(
      [&] {
        indexPutAccumulate(acc, index, tensor({3, 8}, DataType::Double));
      },
      {"index_put_accumulate", "the values", "Double", "Float"});
  expectUserError(
      [&] {
        indexPutAccumulate(acc, index, tensor({3, 5}));
      },
      {"index_put_accumulate", "size 5 on axis 1", "expected 8"});
  expectUserError(
      [&] {
        indexPutAccumulate(acc, index, tensor({4, 8}));
      },
      {"index_put_accumulate", "size 4 on axis 0", "expected 3", "the index's length"});
  expectUserError(
      [&] {
        indexPutAccumulate(acc, tensor({3}), tensor({3, 8}));
      },
      {"index_put_accumulate", "the index", "Float"});
  expectUserError([&] { indexPutAccumulate(acc, index, tensor({3})); },
                  {"index_put_accumulate", "rank 1", "rank 2"});
}

}  // namespace
}  // namespace fuserlab::ops::test
