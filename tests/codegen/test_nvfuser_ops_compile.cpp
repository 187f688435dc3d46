// The GPU side of the ops added for real nvFuser scripts (issue 41):
// signbit is a pointwise kernel NVRTC compiles; select (a slice of one
// position and a squeeze) is a view taken without a kernel, or computed in
// one; topk is a sort kernel of its own between two kernels, all three
// compile.
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

void expectCompiles(const GeneratedKernel& kernel) {
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << kernel.source;
  }
}

TEST(NvfuserOpsCompileTest, SignbitOfHalfAndDoubleCompiles) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Double)
    T2 = fd.ops.signbit(T0)
    T3 = fd.ops.signbit(T1)
    T4 = fd.ops.logical_and(T2, T3)
    fd.add_output(T4)
)"),
                                                "64x256:f16,64x256:f64");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "__float_as_int(")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "__double_as_longlong(")) << kernel.source;
  expectCompiles(kernel);
}

TEST(NvfuserOpsCompileTest, SelectOfAnInputIsAViewBeforeTheKernel) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    T2 = fd.ops.select(T0, S1, dim=1)
    T3 = fd.ops.select(T0, -1, dim=2)
    T4 = fd.ops.add(T2, T3)
    fd.add_output(T4)
)"),
                                                // [4, 6] + [4, 6]: 4x6x8 gave [4, 8] + [4, 6],
                                                // which the reference refuses (issue 43 item 3).
                                                "4x6x6:bf16,-2");
  std::vector<scheduler::SchedulerType> schedulers;
  for (const auto& group : compiled.compiled.segmented->groups()) {
    schedulers.push_back(group.choice.type);
  }
  using scheduler::SchedulerType;
  // Each select (slice + squeeze) is a view of the input, taken without a
  // kernel; the add is the one kernel.
  EXPECT_EQ(schedulers,
            (std::vector<SchedulerType>{SchedulerType::ExprEval, SchedulerType::ExprEval,
                                        SchedulerType::Pointwise}))
      << compiled.compiled.segmented->toString();
  expectCompiles(onlyKernel(compiled));
}

TEST(NvfuserOpsCompileTest, SelectOfAComputedTensorCompiles) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    T2 = fd.ops.select(T1, 3, dim=0)
    T3 = fd.ops.mul(T2, T2)
    fd.add_output(T3)
)"),
                                                "16x32:f32");
  ASSERT_FALSE(compiled.kernels.empty());
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
    expectCompiles(*segment.kernel);
  }
}

TEST(NvfuserOpsCompileTest, TopkIsASortKernelBetweenTheKernelsAroundIt) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    T2, T3 = fd.ops.topk(T1, 4, dim=1)
    T4 = fd.ops.mul(T2, 2.0)
    fd.add_output(T4)
    fd.add_output(T3)
)"),
                                                "8x32:f32");
  const auto& groups = compiled.compiled.segmented->groups();
  ASSERT_EQ(groups.size(), 3u);
  ASSERT_EQ(compiled.kernels.size(), 3u) << "each segment launches a kernel, the topk's a sort";
  int sorts = 0;
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
    sorts += segment.kernel->source.find("pointwise (sort)") != std::string::npos ? 1 : 0;
    expectCompiles(*segment.kernel);
  }
  EXPECT_EQ(sorts, 1);
}

}  // namespace
}  // namespace fuserlab::codegen
