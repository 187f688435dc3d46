// allocation_order_propagation: outputs without a layout take the stride
// order of the input they are computed from (IR in, IR out), as nvFuser's
// AllocationDomainPass.
#include <gtest/gtest.h>

#include "core/passes/allocation_order_propagation.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using ir::TensorView;

class AllocationOrderPropagationTest : public PassFixture {
 protected:
  PassRecord propagate() { return run(AllocationOrderPropagationPass()); }

  std::vector<int64_t> outputStrideOrder(size_t index) const {
    return fusion_->outputs().at(index).val->as<TensorView>()->strideOrder();
  }

  void expectUnchanged() {
    const std::string before = ir();
    const PassRecord record = propagate();
    EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
    EXPECT_EQ(ir(), before);
  }
};

// An NCHW tensor stored channels-last (stride order [3, 0, 2, 1]): the
// pointwise result is stored channels-last too.
TEST_F(AllocationOrderPropagationTest, ChannelsLastInputGivesChannelsLastOutput) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
T1 = fd.ops.relu(T0)
S2 = fd.define_scalar(2.00000, dtype=DataType.Double)
T3 = fd.ops.mul(T1, S2)
fd.add_output(T3)
)");
  const PassRecord record = propagate();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "set the stride order of output T2 to [3, 0, 2, 1], the layout of "
            "input T0 (stride order [3, 0, 2, 1]) it is computed from");
  EXPECT_EQ(outputStrideOrder(0), (std::vector<int64_t>{3, 0, 2, 1}));
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}, iS3{i3}], allocation [iS0{i0}, iS2{i2}, iS3{i3}, iS1{i1}], contiguity [True, True, True, True]
Outputs:
  T2_g_float[iS8{i0}, iS9{i1}, iS10{i2}, iS11{i3}], allocation [iS8{i0}, iS10{i2}, iS11{i3}, iS9{i1}]

%kernel {
T1_l_float[iS4{i0}, iS5{i1}, iS6{i2}, iS7{i3}]
   = relu(T0)
T2_g_float[iS8{i0}, iS9{i1}, iS10{i2}, iS11{i3}]
   = mul(T1, 2.0)
}

Domains:
  T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}, iS3{i3}]
    logical: [iS0{i0}, iS1{i1}, iS2{i2}, iS3{i3}]
    allocation: [iS0{i0}, iS2{i2}, iS3{i3}, iS1{i1}]
    contiguity: [True, True, True, True]
  T2_g_float[iS8{i0}, iS9{i1}, iS10{i2}, iS11{i3}]
    logical: [iS8{i0}, iS9{i1}, iS10{i2}, iS11{i3}]
    allocation: [iS8{i0}, iS10{i2}, iS11{i3}, iS9{i1}]
    contiguity: [True, True, True, True]
)IR");
}

// The full-size input decides, not the broadcast per-channel bias.
TEST_F(AllocationOrderPropagationTest, FullTensorWinsOverBroadcastBias) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.broadcast(T1, is_broadcast_dim=[True, False, True, True])
T3 = fd.ops.add(T0, T2)
fd.add_output(T3)
)");
  EXPECT_EQ(propagate().rewrites.size(), 1u);
  EXPECT_EQ(outputStrideOrder(0), (std::vector<int64_t>{3, 0, 2, 1}));
}

// Through a permute the matched axes keep their place in memory: out =
// relu(permute(in)) is stored like `in`.
TEST_F(AllocationOrderPropagationTest, FollowsAxesThroughPermute) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)");
  const PassRecord record = propagate();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(outputStrideOrder(0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(record.rewrites[0],
            "set the stride order of output T2 to [0, 1], the layout of input "
            "T0 (stride order row-major) it is computed from");
}

// Two inputs of the same size laid out differently: no unambiguous
// reference, so the output keeps the default layout.
TEST_F(AllocationOrderPropagationTest, AmbiguousReferencesPropagateNothing) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.add(T0, T1)
fd.add_output(T2)
)");
  expectUnchanged();
}

// Outputs given a layout (add_output(stride_order=), the stride_order op),
// outputs that alias an input and outputs that are views are left alone.
TEST_F(AllocationOrderPropagationTest, OutputsWithALayoutAreLeftAlone) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
T1 = fd.ops.relu(T0)
T2 = fd.ops.neg(T0)
T3 = fd.ops.stride_order(T2, stride_order=[0, 1, 2, 3])
T4 = fd.ops.permute(T0, dims=[0, 2, 3, 1])
T5 = fd.ops.exp(T0)
fd.add_output(T1, stride_order=[3, 2, 0, 1])
fd.add_output(T3)
fd.add_output(T4)
fd.add_output(T5, alias_input=T0)
)");
  expectUnchanged();
  EXPECT_EQ(outputStrideOrder(0), (std::vector<int64_t>{3, 2, 0, 1}));
}

// A reduction's kept axes follow the input; its reduced axes stay in place.
TEST_F(AllocationOrderPropagationTest, ReductionOutputKeepsReducedAxesInPlace) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 2, 1])
T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
)");
  const PassRecord record = propagate();
  ASSERT_EQ(record.rewrites.size(), 1u);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}], allocation [iS1{i1}, iS2{i2}, iS0{i0}], contiguity [True, True, True]
Outputs:
  T1_g_float[iS3{i0}, rS4{i1}, iS5{i2}], allocation [iS5{i2}, rS4{i1}, iS3{i0}]

%kernel {
T1_g_float[iS3{i0}, rS4{i1}, iS5{i2}]
   = sum(T0, dims=[1])
}

Domains:
  T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}]
    logical: [iS0{i0}, iS1{i1}, iS2{i2}]
    allocation: [iS1{i1}, iS2{i2}, iS0{i0}]
    contiguity: [True, True, True]
  T1_g_float[iS3{i0}, rS4{i1}, iS5{i2}]
    logical: [iS3{i0}, rS4{i1}, iS5{i2}]
    allocation: [iS5{i2}, rS4{i1}, iS3{i0}]
    contiguity: [True, None, True]
)IR");
}

}  // namespace
}  // namespace fuserlab::passes::test
