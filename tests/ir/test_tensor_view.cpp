#include <gtest/gtest.h>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/printer.h"
#include "tests/ir/fusion_builder.h"

namespace fuserlab::ir {
namespace {

using testing::FusionBuilder;

class TensorViewTest : public ::testing::Test {
 protected:
  std::vector<IterDomain*> logical(TensorView* tv, std::vector<int> order) {
    std::vector<IterDomain*> ids;
    for (int i : order) ids.push_back(tv->logical().at(i));
    return ids;
  }

  Fusion fusion_;
  FusionBuilder b_{fusion_};
};

TEST_F(TensorViewTest, NewTensorIsContiguousWithLoopEqualToLogical) {
  TensorView* tv = b_.inputWithSizes({4, 1, 8}, DataType::Float);
  EXPECT_FALSE(tv->domain().hasAllocation());
  EXPECT_FALSE(tv->domain().hasRoot());
  EXPECT_EQ(tv->loop(), tv->logical());
  EXPECT_EQ(tv->maybeAllocation(), tv->logical());
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{true, std::nullopt, true}));
  EXPECT_EQ(tv->rank(), 3);
}

TEST_F(TensorViewTest, StrideOrderRowMajorIsNoAllocation) {
  TensorView* tv = b_.input(3, DataType::Float);
  tv->setStrideOrder({2, 1, 0});
  EXPECT_FALSE(tv->domain().hasAllocation());
  EXPECT_TRUE(tv->strideOrder().empty());
}

TEST_F(TensorViewTest, StrideOrderColumnMajorReversesAllocation) {
  TensorView* tv = b_.input(2, DataType::Float);
  tv->setStrideOrder({0, 1});
  EXPECT_EQ(tv->domain().allocation, logical(tv, {1, 0}));
  EXPECT_EQ(tv->strideOrder(), (std::vector<int64_t>{0, 1}));
}

TEST_F(TensorViewTest, StrideOrderPermutesAllocation) {
  // Axis i has the strideOrder[i]-th smallest stride: axis 1 is outermost,
  // axis 2 innermost.
  TensorView* tv = b_.input(3, DataType::Float);
  tv->setStrideOrder({1, 2, 0});
  EXPECT_EQ(tv->domain().allocation, logical(tv, {1, 0, 2}));
  EXPECT_EQ(tv->strideOrder(), (std::vector<int64_t>{1, 2, 0}));

  TensorView* tv4 = b_.input(4, DataType::Float);
  tv4->setStrideOrder({3, 0, 2, 1});
  EXPECT_EQ(tv4->domain().allocation, logical(tv4, {0, 2, 3, 1}));
  EXPECT_EQ(tv4->strideOrder(), (std::vector<int64_t>{3, 0, 2, 1}));
}

TEST_F(TensorViewTest, StrideOrderRoundTripsForEveryPermutation) {
  TensorView* tv = b_.input(4, DataType::Float);
  std::vector<int64_t> order{0, 1, 2, 3};
  do {
    tv->setStrideOrder(order);
    if (order == std::vector<int64_t>{3, 2, 1, 0}) {
      EXPECT_TRUE(tv->strideOrder().empty());
    } else {
      EXPECT_EQ(tv->strideOrder(), order);
    }
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST_F(TensorViewTest, StrideOrderErrors) {
  TensorView* tv = b_.input(3, DataType::Float);
  EXPECT_THROW(tv->setStrideOrder({0, 1}), UserError);
  EXPECT_THROW(tv->setStrideOrder({0, 1, 3}), UserError);
  try {
    tv->setStrideOrder({0, 1, 1});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("1 appears twice"), std::string::npos) << e.message();
  }
}

// Regression: contiguity is per allocation axis, so a stride order that moves
// a broadcast axis must move its None with it.
TEST_F(TensorViewTest, StrideOrderMovesContiguityWithItsAxis) {
  TensorView* tv = b_.inputWithSizes({8, 1}, DataType::Float);
  tv->setContiguity({false, std::nullopt});
  tv->setStrideOrder({0, 1});
  EXPECT_EQ(tv->domain().allocation, logical(tv, {1, 0}));
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{std::nullopt, false}));
  // Contiguity given afterwards is in allocation order.
  tv->setContiguity({std::nullopt, true});
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{std::nullopt, true}));
  EXPECT_THROW(tv->setContiguity({true, std::nullopt}), UserError);
}

TEST_F(TensorViewTest, ContiguityValidation) {
  TensorView* tv = b_.inputWithSizes({4, 1, 8}, DataType::Float);
  try {
    tv->setContiguity({true, true});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(),
              "tensor T0 has 3 allocation axes but 2 contiguity flags were "
              "given");
  }
  try {
    tv->setContiguity({std::nullopt, std::nullopt, true});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("contiguity of axis 0 is None"), std::string::npos) << e.message();
  }
  // A flag on a broadcast axis is normalized to None, as nvFuser ignores it.
  tv->setContiguity({false, true, true});
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{false, std::nullopt, true}));
  tv->setContiguity({});
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{true, std::nullopt, true}));
}

TEST_F(TensorViewTest, SplitAndMergeTransformTheLoop) {
  TensorView* tv = b_.input(2, DataType::Float);
  IterDomain* i0 = tv->logical()[0];
  IterDomain* i1 = tv->logical()[1];
  tv->split(1, fusion_.constInt(4));
  ASSERT_EQ(tv->loop().size(), 3u);
  EXPECT_EQ(tv->loop()[0], i0);
  EXPECT_EQ(tv->loop()[1]->definition()->inputs()[0], i1);
  EXPECT_TRUE(tv->loop()[2]->extent()->isConstInt(4));
  EXPECT_EQ(tv->loop()[1]->extent()->definition()->toString(), "i2\n   = ceilDiv(i1, 4)");
  tv->merge(0);
  ASSERT_EQ(tv->loop().size(), 2u);
  EXPECT_EQ(tv->loop()[0]->definition()->inputs()[0], i0);
  tv->reorderLoop({1, 0});
  EXPECT_TRUE(tv->loop()[0]->extent()->isConstInt(4));
  // The logical domain is untouched.
  EXPECT_EQ(tv->logical(), (std::vector<IterDomain*>{i0, i1}));
  EXPECT_THROW(tv->split(2, fusion_.constInt(2)), UserError);
  EXPECT_THROW(tv->merge(1), UserError);
  EXPECT_THROW(tv->reorderLoop({0, 0}), UserError);
  EXPECT_THROW(tv->reorderLoop({0}), UserError);
}

TEST_F(TensorViewTest, OuterSplitPutsTheFactorOutside) {
  TensorView* tv = b_.inputWithSizes({12}, DataType::Float);
  tv->split(0, fusion_.constInt(4), /*innerSplit=*/false);
  EXPECT_TRUE(tv->loop()[0]->extent()->isConstInt(4));
  EXPECT_TRUE(tv->loop()[1]->extent()->isConstInt(3));
}

TEST_F(TensorViewTest, SetAllocationAsLoop) {
  TensorView* tv = b_.input(2, DataType::Float);
  tv->split(0, fusion_.constInt(2));
  tv->reorderLoop({1, 0, 2});
  tv->setAllocationAsLoop();
  EXPECT_EQ(tv->domain().allocation, tv->loop());
  EXPECT_EQ(tv->contiguity(), (std::vector<std::optional<bool>>{true, true, true}));
  // Not a permutation of logical: no stride order.
  EXPECT_TRUE(tv->strideOrder().empty());
}

// Seed 002's arange(6) example: logical [i0{6}]; i1{2}, i2{3} = split(i0);
// i3{6} = merge(i2, i1); allocation [i3], so the storage of arange(6) is
// [0, 3, 1, 4, 2, 5] while the logical view stays [0, 1, 2, 3, 4, 5].
TEST_F(TensorViewTest, Seed002SplitMergeAllocation) {
  TensorView* tv = b_.inputWithSizes({6}, DataType::Float);
  IterDomain* i0 = tv->logical()[0];
  tv->split(0, fusion_.constInt(2), /*innerSplit=*/false);
  IterDomain* outer = tv->loop()[0];
  IterDomain* inner = tv->loop()[1];
  EXPECT_TRUE(outer->extent()->isConstInt(2));
  EXPECT_TRUE(inner->extent()->isConstInt(3));
  tv->reorderLoop({1, 0});
  tv->merge(0);
  tv->setAllocationAsLoop();
  ASSERT_EQ(tv->domain().allocation.size(), 1u);
  IterDomain* merged = tv->domain().allocation[0];
  EXPECT_TRUE(merged->extent()->isConstInt(6));
  ASSERT_NE(merged->definition(), nullptr);
  EXPECT_EQ(merged->definition()->kind(), TransformKind::Merge);
  EXPECT_EQ(merged->definition()->inputs(), (std::vector<IterDomain*>{inner, outer}));
  EXPECT_EQ(outer->definition()->inputs(), std::vector<IterDomain*>{i0});
  EXPECT_EQ(tv->logical(), std::vector<IterDomain*>{i0});
  EXPECT_EQ(tv->contiguity(), std::vector<std::optional<bool>>{true});
  EXPECT_EQ(printDomains(*tv),
            "  T0_g_float[iS0{6}]\n"
            "    logical: [iS0{6}]\n"
            "    Split: iS0{6} by factor 2 (outer) -> iS1{2}, iS2{3}\n"
            "    Merge: iS2{3}, iS1{2} -> iS3{6}\n"
            "    allocation: [iS3{6}]\n"
            "    contiguity: [True]\n"
            "    loop: [iS3{6}]\n");
}

TEST_F(TensorViewTest, ToStringMarksGlobalsReductionsAndCpuScalars) {
  TensorView* t0 = b_.input(2, DataType::BFloat16);
  TensorView* t1 = b_.sum(t0, {1});
  EXPECT_EQ(t0->toString(), "T0_g___bfloat[iS0{i0}, iS1{i1}]");
  EXPECT_EQ(t1->toString(), "T1_l___bfloat[iS2{i0}, rS3{i1}]");
  EXPECT_EQ(t1->rank(), 1);
  EXPECT_EQ(t1->logicalNoReductions().size(), 1u);
  fusion_.addOutput(t1);
  EXPECT_EQ(t1->toString(), "T1_g___bfloat[iS2{i0}, rS3{i1}]");
  TensorView* cpu = b_.input(0, DataType::Double);
  cpu->setCpuScalar(true);
  EXPECT_EQ(cpu->toString(), "T2_g_double[] (cpu)");
}

}  // namespace
}  // namespace fuserlab::ir
