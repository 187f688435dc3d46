// Library calls in the segmenter (seeds 001 and 003): a matmul or linear is
// one sealed group with the epilogue cuBLASLt fuses, the ops it cannot fuse
// go to a following kernel, an sdpfa_fwd is a segment of its own, and each
// matcher step is a "matmul_epilogue" decision with its reason.
#include <gtest/gtest.h>

#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using ir::DataType;
using scheduler::SchedulerType;
using testing_support::countScheduler;
using testing_support::shape;

class MatmulSegmentationTest : public testing_support::SegmenterFixture {
 protected:
  std::string allReasons(std::string_view kind) const {
    std::string out;
    for (const auto& d : decisions(kind)) {
      out += std::string(d.accepted ? "+ " : "- ") + d.reason + "\n";
    }
    return out;
  }
};

std::string linearGelu(bool tanh) {
  std::string s = R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16)
    T3 = fd.ops.linear(T0, T1, T2)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
)";
  if (tanh) {
    s += R"(    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.mul(T5, T4)
    T8 = fd.ops.mul(T6, 0.044715)
    T9 = fd.ops.add(T4, T8)
    T11 = fd.ops.mul(T9, 0.7978845608028654)
    T12 = fd.ops.tanh(T11)
    T16 = fd.ops.add(T12, 1.0)
    T14 = fd.ops.mul(T4, 0.5)
    T17 = fd.ops.mul(T14, T16)
)";
  } else {
    s += R"(    T6 = fd.ops.mul(T4, 0.7071067811865476)
    T7 = fd.ops.erf(T6)
    T9 = fd.ops.add(T7, 1.0)
    T11 = fd.ops.mul(T4, 0.5)
    T17 = fd.ops.mul(T11, T9)
)";
  }
  s += R"(    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)
with FusionDefinition() as fd:
    fusion_func(fd)
)";
  return s;
}

runtime::Arguments linearInputs() {
  return {shape(DataType::BFloat16, {2, 64, 128}), shape(DataType::BFloat16, {256, 128}),
          shape(DataType::BFloat16, {256})};
}

TEST_F(MatmulSegmentationTest, LinearBiasTanhGeluCastIsOneCuBlasLtSegment) {
  const SegmentedFusion segmented = segment(linearGelu(true), linearInputs());
  ASSERT_EQ(segmented.groups().size(), 1u) << segmented.toString();
  const SegmentedGroup& group = segmented.groups()[0];
  EXPECT_EQ(group.choice.type, SchedulerType::Matmul);
  const auto& params = std::get<scheduler::MatmulParams>(group.choice.params);
  EXPECT_EQ(params.epilogue, "GELU_BIAS");
  EXPECT_EQ(params.outputDtype, "BFloat16");
  EXPECT_EQ(segmented.kernelCount(), 1);
  const std::string reasons = allReasons("matmul_epilogue");
  EXPECT_NE(reasons.find("+ T3 = linear(T0, T1, T2): T4 = cast(T3): the widened result"),
            std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("runs as one cuBLASLt call with epilogue GELU_BIAS, writing " +
                         segmented.complete().outputs()[0].val->name() + " (BFloat16)"),
            std::string::npos)
      << reasons;
}

TEST_F(MatmulSegmentationTest, EpilogueUpcastIsNotPrivatizedAwayFromTheCall) {
  // A second, unrelated output keeps the whole fusion from being one
  // segment, so the merge path runs: the multi-use upcast inside the GELU
  // must stay one cast in the call (privatizing it would cut the epilogue).
  std::string script = linearGelu(true);
  const std::string marker = "    fd.add_output(T18)\n";
  script.replace(script.find(marker), marker.size(),
                 marker + "    T19 = fd.ops.exp(T2)\n    fd.add_output(T19)\n");
  const SegmentedFusion segmented = segment(script, linearInputs());
  ASSERT_EQ(countScheduler(segmented, SchedulerType::Matmul), 1) << segmented.toString();
  for (const SegmentedGroup& group : segmented.groups()) {
    if (group.choice.type != SchedulerType::Matmul) continue;
    EXPECT_EQ(std::get<scheduler::MatmulParams>(group.choice.params).epilogue, "GELU_BIAS")
        << segmented.toString();
  }
  EXPECT_TRUE(decisions("privatize").empty()) << allReasons("privatize");
}

TEST_F(MatmulSegmentationTest, ErfGeluRunsInAFollowingKernel) {
  const SegmentedFusion segmented = segment(linearGelu(false), linearInputs());
  ASSERT_EQ(segmented.groups().size(), 2u) << segmented.toString();
  EXPECT_EQ(segmented.groups()[0].choice.type, SchedulerType::Matmul);
  EXPECT_EQ(std::get<scheduler::MatmulParams>(segmented.groups()[0].choice.params).epilogue,
            "BIAS");
  EXPECT_EQ(segmented.groups()[0].exprs.size(), 1u);
  EXPECT_EQ(segmented.groups()[1].choice.type, SchedulerType::Pointwise) << segmented.toString();
  EXPECT_EQ(segmented.kernelCount(), 2);
  const std::string reasons = allReasons("matmul_epilogue");
  EXPECT_NE(reasons.find("- T3 = linear(T0, T1, T2): {T5, T6, T7, T8, T9}: erf-GELU"),
            std::string::npos)
      << reasons;
}

TEST_F(MatmulSegmentationTest, SdpaIsASegmentOfItsOwnAndViewsStayKernelFree) {
  const SegmentedFusion segmented =
      segment(R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T2 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2)
    T10 = fd.ops.permute(T6, dims=[0, 2, 1, 3])
    T11 = fd.ops.cast(T10, dtype=DataType.Float)
    fd.add_output(T6)
    fd.add_output(T11)
with FusionDefinition() as fd:
    fusion_func(fd)
)",
              {shape(DataType::BFloat16, {2, 4, 16, 8}), shape(DataType::BFloat16, {2, 4, 16, 8}),
               shape(DataType::BFloat16, {2, 4, 16, 8})});
  ASSERT_GE(segmented.groups().size(), 2u) << segmented.toString();
  int sdpaGroups = 0;
  for (const SegmentedGroup& group : segmented.groups()) {
    if (testing_support::countExprs(group, ir::ExprType::Sdpa) == 0) continue;
    ++sdpaGroups;
    EXPECT_EQ(group.choice.type, SchedulerType::Matmul);
    EXPECT_EQ(group.exprs.size(), 1u);
    EXPECT_EQ(std::get<scheduler::MatmulParams>(group.choice.params).backend, "attention_kernel");
  }
  EXPECT_EQ(sdpaGroups, 1);
  EXPECT_EQ(decisions("library_call").size(), 1u);
}

TEST_F(MatmulSegmentationTest, MatmulWithBiasMergesTheBroadcastAndAdd) {
  const SegmentedFusion segmented =
      segment(R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)
    T3 = fd.ops.matmul(T0, T1)
    T4 = fd.ops.broadcast_in_dim(T2, shape=T3.shape(), broadcast_dims=[1])
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.exp(T5)
    fd.add_output(T6)
with FusionDefinition() as fd:
    fusion_func(fd)
)",
              {shape(DataType::Half, {64, 32}), shape(DataType::Half, {32, 48}),
               shape(DataType::Half, {48})});
  ASSERT_EQ(segmented.groups().size(), 2u) << segmented.toString();
  EXPECT_EQ(segmented.groups()[0].choice.type, SchedulerType::Matmul);
  EXPECT_EQ(std::get<scheduler::MatmulParams>(segmented.groups()[0].choice.params).epilogue,
            "BIAS");
  // matmul, the bias's broadcast (and expand), and the add.
  EXPECT_EQ(testing_support::countExprs(segmented.groups()[0], ir::ExprType::Broadcast), 1);
  EXPECT_EQ(testing_support::countExprs(segmented.groups()[0], ir::ExprType::Binary), 1);
  EXPECT_EQ(testing_support::countExprs(segmented.groups()[1], ir::ExprType::Unary), 1);
  EXPECT_EQ(segmented.groups()[1].choice.type, SchedulerType::Pointwise);
}

}  // namespace
}  // namespace fuserlab::segmenter
