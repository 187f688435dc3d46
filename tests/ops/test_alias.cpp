#include "core/ops/alias.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

using ir::BinaryOpType;

class AliasTest : public OpsFixture {
 protected:
  //! The inputs of `tv`'s definition after the tensor, as constants.
  static std::vector<int64_t> scalarInputs(const TensorView* tv, size_t skip = 1) {
    std::vector<int64_t> out;
    const auto& inputs = tv->definition()->inputs();
    for (size_t i = skip; i < inputs.size(); ++i) {
      out.push_back(inputs[i]->as<Scalar>()->constInt().value_or(-999));
    }
    return out;
  }
};

TEST_F(AliasTest, BroadcastInsertsSizeOneAxes) {
  TensorView* out = broadcast(tensor({4, 8}), {true, false, true, false});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{1, 4, 1, 8}));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Broadcast, IterType::Iteration,
                                                   IterType::Broadcast, IterType::Iteration}));
  EXPECT_EQ(out->definition()->attrs().broadcastFlags,
            (std::vector<bool>{true, false, true, false}));
}

TEST_F(AliasTest, BroadcastFlagCountMustMatchRank) {
  TensorView* x = tensor({4, 8});
  expectUserError(
      [&] {
        broadcast(x, {true, false});
      },
      {"broadcast", "1 False", x->name(), "rank 2"});
}

TEST_F(AliasTest, BroadcastInDimExpandsNewAxesToTheShape) {
  TensorView* x = tensor({3});
  TensorView* out = broadcastInDim(x, sizes({2, 3}), {1});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Broadcast, IterType::Iteration}));
  EXPECT_TRUE(out->logical()[0]->hasExpandedExtent());
  EXPECT_EQ(out->definition()->type(), ExprType::Expand);
  EXPECT_EQ(out->definition()->input(0)->definition()->type(), ExprType::Broadcast);
}

TEST_F(AliasTest, BroadcastInDimExpandsSizeOneInputAxes) {
  TensorView* out = broadcastInDim(tensor({1, 4}), sizes({6, 4}), {0, 1});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(out->logical()[0]->expandedExtent()->constInt(), 6);
  EXPECT_EQ(out->logical()[0]->extent()->constInt(), 1);
  // Only an Expand: no axis was added.
  EXPECT_EQ(out->definition()->type(), ExprType::Expand);
  EXPECT_EQ(out->definition()->input(0)->definition(), nullptr);
}

TEST_F(AliasTest, BroadcastInDimWithoutExpansionIsOnlyABroadcast) {
  TensorView* out = broadcastInDim(tensor({4}), sizes({1, 4}), {1});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{1, 4}));
  EXPECT_FALSE(out->logical()[0]->hasExpandedExtent());
  EXPECT_EQ(out->definition()->type(), ExprType::Broadcast);
}

TEST_F(AliasTest, BroadcastInDimErrors) {
  TensorView* x = tensor({4, 8});
  expectUserError(
      [&] {
        broadcastInDim(x, sizes({2, 4, 8}), {2, 1});
      },
      {"broadcast_in_dim", "strictly increasing", "[2, 1]"});
  expectUserError(
      [&] {
        broadcastInDim(x, sizes({4, 16}), {0, 1});
      },
      {"broadcast_in_dim", "axis 1 of T0", "8", "16"});
  expectUserError(
      [&] {
        broadcastInDim(x, sizes({4, 8}), {0});
      },
      {"broadcast_in_dim", "rank 2", "broadcast_dims [0]"});
}

TEST_F(AliasTest, ExpandSetsExpandedExtentsAndKeepsMinusOne) {
  TensorView* x = tensor({1, 4});
  TensorView* out = expand(x, sizes({8, -1}));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(out->logical()[0]->expandedExtent()->constInt(), 8);
  EXPECT_TRUE(out->logical()[0]->isBroadcast());
  EXPECT_EQ(out->definition()->input(0), x);
  EXPECT_EQ(scalarInputs(out), (std::vector<int64_t>{8, -1}));
}

TEST_F(AliasTest, ExpandOfANonBroadcastAxisIsAnError) {
  TensorView* x = tensor({2, 4});
  expectUserError(
      [&] {
        expand(x, sizes({2, 8}));
      },
      {"expand", "axis 1", x->name(), "extent 4", "8"});
}

TEST_F(AliasTest, ReshapeInfersMinusOneAndHasARootDomain) {
  TensorView* x = tensor({4, 6});
  TensorView* out = reshape(x, sizes({2, -1, 3}));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 4, 3}));
  ASSERT_TRUE(out->domain().hasRoot());
  EXPECT_EQ(out->domain().root.size(), 2u);
  EXPECT_NE(out->domain().root[0], x->logical()[0]);
  EXPECT_EQ(out->definition()->type(), ExprType::Reshape);
  EXPECT_EQ(scalarInputs(out), (std::vector<int64_t>{2, -1, 3}));
}

TEST_F(AliasTest, ReshapeSizeOneBecomesBroadcast) {
  TensorView* out = reshape(tensor({4, 6}), sizes({24, 1}));
  EXPECT_EQ(iterTypes(out), (std::vector<IterType>{IterType::Iteration, IterType::Broadcast}));
}

TEST_F(AliasTest, ReshapeOfSymbolicExtentInfersAScalarExpression) {
  TensorView* out = reshape(tensor({-1, 6}), sizes({3, -1}));
  EXPECT_EQ(out->logical()[0]->extent()->constInt(), 3);
  const Scalar* extent = out->logical()[1]->extent();
  EXPECT_FALSE(extent->isConst());
  ASSERT_NE(extent->definition(), nullptr);
  EXPECT_EQ(extent->definition()->attrs().binaryOp, BinaryOpType::Div);
}

TEST_F(AliasTest, ReshapeElementCountMismatchIsAnError) {
  TensorView* x = tensor({4, 6});
  expectUserError(
      [&] {
        reshape(x, sizes({5, 5}));
      },
      {"reshape of T0 [4, 6] (24 elements) to [5, 5] (25 elements)"});
  expectUserError(
      [&] {
        reshape(x, sizes({5, -1}));
      },
      {"reshape of T0 [4, 6]", "5", "does not divide 24"});
  expectUserError([&] { reshape(x, sizes({-1, -1})); }, {"reshape", "both -1"});
}

TEST_F(AliasTest, PermuteReordersAxes) {
  TensorView* x = tensor({2, 3, 4});
  TensorView* out = permute(x, {2, 0, -2});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(out->definition()->attrs().axes, (std::vector<int64_t>{2, 0, 1}));
  expectUserError([&] { permute(x, {0, 0, 1}); }, {"permute", "axis 0", "twice"});
  expectUserError([&] { permute(x, {1, 0}); }, {"permute", "rank 3", "[1, 0]"});
}

TEST_F(AliasTest, SqueezeRemovesSizeOneAxes) {
  TensorView* out = squeeze(tensor({4, 1, 5, -1}), {1, -1});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(out->definition()->attrs().axes, (std::vector<int64_t>{1, 3}));
  TensorView* x = tensor({4, 1});
  expectUserError([&] { squeeze(x, {0}); }, {"squeeze", "axis 0", x->name(), "extent 4"});
}

TEST_F(AliasTest, SliceNormalizesNegativeAndClampsBounds) {
  TensorView* x = tensor({10, 10, 10, 10});
  Scalar* none = nullptr;
  TensorView* out =
      slice(x, {c(-3), c(-20), c(5), c(0)}, {none, c(100), c(2), c(10)}, {c(1), c(1), c(1), c(3)});
  EXPECT_EQ(extents(out), (std::vector<int64_t>{3, 10, 0, 4}));
  EXPECT_EQ(scalarInputs(out), (std::vector<int64_t>{7, 10, 1, 0, 10, 1, 5, 5, 1, 0, 10, 3}));
}

TEST_F(AliasTest, SliceOfSymbolicExtentWithNegativeStart) {
  TensorView* out = slice(tensor({-1}), {c(-2)}, {nullptr}, {});
  const Scalar* start = out->definition()->input(1)->as<Scalar>();
  ASSERT_NE(start->definition(), nullptr);
  EXPECT_EQ(start->definition()->attrs().binaryOp, BinaryOpType::Add);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{-1}));
}

TEST_F(AliasTest, SliceErrors) {
  TensorView* x = tensor({10});
  expectUserError([&] { slice(x, {c(0)}, {c(5)}, {c(0)}); },
                  {"slice", "step of axis 0", x->name(), "positive"});
  expectUserError(
      [&] {
        slice(x, {c(0), c(0)}, {c(5), c(5)}, {});
      },
      {"slice", "rank 1", "2 start(s)"});
}

TEST_F(AliasTest, PadTranslatesTorchOrderToAxisOrder) {
  TensorView* x = tensor({2, 3, 4});
  TensorView* out = pad(x, sizes({1, 2, 3, 4}));
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 10, 7}));
  const auto& inputs = out->definition()->inputs();
  ASSERT_EQ(inputs.size(), 2u + 6u);
  EXPECT_EQ(inputs[1]->as<Scalar>()->constDouble(), 0.0);  // default value
  EXPECT_EQ(scalarInputs(out, 2), (std::vector<int64_t>{0, 0, 3, 4, 1, 2}));
}

TEST_F(AliasTest, PadErrors) {
  TensorView* x = tensor({2, 3});
  expectUserError([&] { pad(x, sizes({1, 2, 3})); }, {"pad", "3 pad widths", x->name(), "even"});
  expectUserError([&] { pad(x, sizes({-2, -2})); }, {"pad", "axis 1", x->name(), "-1"});
}

TEST_F(AliasTest, CatSumsTheCatAxisAndPromotes) {
  TensorView* a = tensor({2, 3}, DataType::BFloat16);
  TensorView* b = tensor({4, 3}, DataType::Float);
  TensorView* out = cat({a, b}, 0);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_EQ(out->definition()->attrs().dim, 0);
  EXPECT_EQ(out->definition()->input(0)->definition()->type(), ExprType::Cast);
  EXPECT_EQ(out->definition()->input(1), b);
}

TEST_F(AliasTest, CatErrors) {
  TensorView* a = tensor({2, 3});
  TensorView* b = tensor({2, 5});
  expectUserError([&] { cat({a, b}, 0); }, {"cat", "axis 1", "3", "5", a->name(), b->name()});
  expectUserError([&] { cat({a, tensor({2})}, 0); }, {"cat", "rank"});
  expectUserError([&] { cat({a, b}, 2); }, {"cat", "axis 2", "rank 2"});
}

TEST_F(AliasTest, SetSegmentSetAndStrideOrder) {
  TensorView* x = tensor({2, 3, 4});
  EXPECT_EQ(set(x)->definition()->type(), ExprType::Set);
  EXPECT_EQ(segmentSet(x)->definition()->type(), ExprType::SegmentSet);
  TensorView* ordered = strideOrder(x, {0, 2, 1});
  EXPECT_EQ(ordered->definition()->type(), ExprType::Set);
  EXPECT_EQ(ordered->strideOrder(), (std::vector<int64_t>{0, 2, 1}));
  ASSERT_TRUE(ordered->domain().hasAllocation());
  EXPECT_EQ(ordered->domain().allocation[0], ordered->logical()[1]);
  expectUserError([&] { strideOrder(x, {0, 0, 1}); }, {"stride_order", x->name(), "permutation"});
}

}  // namespace
}  // namespace fuserlab::ops::test
