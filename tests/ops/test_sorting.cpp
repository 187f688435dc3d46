// argsort and topk: output shapes (topk's axis has extent k), dtypes (Int
// indices), options recorded as flags, and errors for a bad dim or k.
#include "core/ops/sorting.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

class SortingTest : public OpsFixture {};

TEST_F(SortingTest, ArgsortGivesIntIndicesOfTheInputShape) {
  TensorView* x = tensor({4, -1}, DataType::Half);
  TensorView* out = argsort(x, -1, /*descending=*/true, /*stable=*/false);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, -1}));
  EXPECT_EQ(out->dtype(), DataType::Int);
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Argsort);
  EXPECT_EQ(def->attrs().dim, 1);
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{true, false}));
}

TEST_F(SortingTest, ArgsortOfAZeroDimTensorTakesDimZeroOrMinusOne) {
  TensorView* x = tensor({});
  EXPECT_EQ(argsort(x, -1, false, false)->rank(), 0);
  expectUserError([&] { argsort(x, 1, false, false); }, {"argsort", "dim 1", "0-dim", "0 or -1"});
  expectUserError(
      [&] {
        argsort(tensor({3, 4}), -3, false, false);
      },
      {"argsort", "axis -3", "rank 2"});
}

TEST_F(SortingTest, TopkHasExtentKOnItsAxis) {
  TensorView* x = tensor({4, 9}, DataType::BFloat16);
  TopKResult result = topk(x, c(3), 1, /*largest=*/false, /*sorted=*/true);
  EXPECT_EQ(extents(result.values), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(extents(result.indices), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(result.values->dtype(), DataType::BFloat16);
  EXPECT_EQ(result.indices->dtype(), DataType::Int);
  const ir::Expr* def = result.values->definition();
  EXPECT_EQ(def, result.indices->definition());
  EXPECT_EQ(def->type(), ExprType::TopK);
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{false, true}));
}

TEST_F(SortingTest, TopkWithASymbolicK) {
  Scalar* k = fusion_.newScalar(DataType::Int);
  TopKResult result = topk(tensor({4, 9}), k, 0, true, false);
  EXPECT_EQ(result.values->logicalNoReductions()[0]->extent(), k);
  EXPECT_EQ(extents(result.values), (std::vector<int64_t>{-1, 9}));
}

TEST_F(SortingTest, TopkErrors) {
  TensorView* x = tensor({4, 9});
  expectUserError([&] { topk(x, c(10), 1, true, false); },
                  {"topk", "k is 10", "axis 1", "has 9 elements"});
  expectUserError([&] { topk(x, c(-1), 1, true, false); }, {"topk", "k is -1", "0 <= k"});
  expectUserError([&] { topk(x, fusion_.constDouble(2.0), 1, true, false); },
                  {"topk", "k", "integer scalar", "Double"});
  expectUserError([&] { topk(tensor({}), c(2), 0, true, false); },
                  {"topk", "k is 2", "0-dim", "k=1"});
}

}  // namespace
}  // namespace fuserlab::ops::test
