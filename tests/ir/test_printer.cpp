#include <gtest/gtest.h>

#include "core/ir/fusion.h"
#include "core/ir/printer.h"
#include "tests/ir/fusion_builder.h"

namespace fuserlab::ir {
namespace {

using testing::FusionBuilder;

class PrinterTest : public ::testing::Test {
 protected:
  Fusion fusion_;
  FusionBuilder b_{fusion_};
};

TEST_F(PrinterTest, SmallFusionGolden) {
  TensorView* t0 = b_.input(2, DataType::BFloat16);
  Scalar* scale = b_.scalarInput(DataType::Double);
  TensorView* t1 = b_.cast(t0, DataType::Float);
  TensorView* t2 = b_.binary(BinaryOpType::Mul, t1, scale);
  TensorView* t3 = b_.sum(t2, {1});
  TensorView* t4 = b_.broadcast(t3, {false, true});
  TensorView* t5 = b_.binary(BinaryOpType::Sub, t2, t4);
  TensorView* t6 = b_.cast(t5, DataType::BFloat16);
  b_.unary(UnaryOpType::Exp, t1);  // dead: not printed
  t6->setStrideOrder({0, 1});
  fusion_.addOutput(t3);
  fusion_.addOutput(t6, t0);

  const char* expected = R"(Inputs:
  T0_g___bfloat[iS0{i0}, iS1{i1}], contiguity [True, True]
  d2 (Double)
Outputs:
  T3_g_float[iS6{i0}, rS7{i1}]
  T6_g___bfloat[iS12{i0}, iS13{i1}], allocation [iS13{i1}, iS12{i0}] (aliases T0)

%kernel {
T1_l_float[iS2{i0}, iS3{i1}]
   = cast(T0, dtype=Float)
T2_l_float[iS4{i0}, iS5{i1}]
   = mul(T1, d2)
T3_g_float[iS6{i0}, rS7{i1}]
   = sum(T2, dims=[1])
T4_l_float[iS8{i0}, bS9{1}]
   = broadcast(T3, is_broadcast_dim=[False, True])
T5_l_float[iS10{i0}, iS11{i1}]
   = sub(T2, T4)
T6_g___bfloat[iS12{i0}, iS13{i1}]
   = cast(T5, dtype=BFloat16)
}

Domains:
  T6_g___bfloat[iS12{i0}, iS13{i1}]
    logical: [iS12{i0}, iS13{i1}]
    allocation: [iS13{i1}, iS12{i0}]
    contiguity: [True, True]
)";
  EXPECT_EQ(printFusionIr(fusion_), expected);
  EXPECT_EQ(fusion_.toString(), expected);
}

TEST_F(PrinterTest, ReshapePrintsRootAndTransforms) {
  TensorView* t0 = b_.input(2, DataType::Float);
  TensorView* t1 = b_.flatten(t0);
  fusion_.addOutput(t1);
  EXPECT_EQ(printDomains(*t1),
            "  T1_g_float[iS4{i2}]\n"
            "    root: [iS2{i0}, iS3{i1}]\n"
            "    logical: [iS4{i2}]\n"
            "    Merge: iS2{i0}, iS3{i1} -> iS4{i2}\n"
            "    contiguity: [True]\n");
}

TEST_F(PrinterTest, ExpandedBroadcastShowsItsExpandedExtent) {
  TensorView* t0 = b_.inputWithSizes({1}, DataType::Float);
  Scalar* n = b_.scalarInput(DataType::Int);
  TensorView* t1 = b_.expand(t0, {n});
  fusion_.addOutput(t1);
  EXPECT_EQ(t1->definition()->toString(), "T1_g_float[bS1{1 ex i0}]\n   = expand(T0, i0)");
}

// Regression: a Merge whose output only feeds another Split (not any domain
// of the tensor) was missing from the printed transforms.
TEST_F(PrinterTest, PrintsEveryTransformOfAChain) {
  TensorView* tv = b_.inputWithSizes({12}, DataType::Float);
  tv->split(0, fusion_.constInt(2));
  tv->merge(0);
  tv->split(0, fusion_.constInt(3));
  tv->setAllocationAsLoop();
  EXPECT_EQ(printDomains(*tv),
            "  T0_g_float[iS0{12}]\n"
            "    logical: [iS0{12}]\n"
            "    Split: iS0{12} by factor 2 -> iS1{6}, iS2{2}\n"
            "    Merge: iS1{6}, iS2{2} -> iS3{12}\n"
            "    Split: iS3{12} by factor 3 -> iS4{4}, iS5{3}\n"
            "    allocation: [iS4{4}, iS5{3}]\n"
            "    contiguity: [True, True]\n"
            "    loop: [iS4{4}, iS5{3}]\n");
}

TEST_F(PrinterTest, DeviceParallelAxesPrintTheirType) {
  TensorView* tv = b_.inputWithSizes({8}, DataType::Float);
  tv->split(0, fusion_.constInt(4), /*innerSplit=*/false);
  tv->loop()[0]->parallelize(ParallelType::DIDx);
  EXPECT_EQ(tv->loop()[0]->toString(), "iDIDx1{4}");
  EXPECT_EQ(tv->loop()[1]->toString(), "iS2{2}");
}

}  // namespace
}  // namespace fuserlab::ir
