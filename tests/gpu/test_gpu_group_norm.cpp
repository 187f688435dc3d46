// GroupNorm + SiLU as one inner persistent kernel (refine_reshaped_reductions,
// issue 45, item 2) against the CPU reference on random non-zero inputs:
// the suite's odd size (groups of 10 channels of 63 x 63), groups of one
// channel in a batch of one, rows of one pixel, fp16 and bf16, the
// statistics among the outputs; each launched as one kernel, twice.
#include "core/compiler/compile_options.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

std::string groupNormBody(int64_t n, int64_t c, int64_t h, int64_t w, int64_t g,
                          const std::string& dtype) {
  const std::string nchw = std::to_string(n) + ", " + std::to_string(c) + ", " + std::to_string(h) +
                           ", " + std::to_string(w);
  const std::string grouped =
      std::to_string(n) + ", " + std::to_string(g) + ", " + std::to_string(c / g * h * w);
  return "T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], "
         "dtype=DataType." +
         dtype +
         ", is_cpu=False)\n"
         "T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType." +
         dtype +
         ", is_cpu=False)\n"
         "T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType." +
         dtype +
         ", is_cpu=False)\n"
         "T3 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "T4 = fd.ops.reshape(T3, new_shape=[" +
         grouped +
         "])\n"
         "T5, T6 = fd.ops.var_mean(T4, dims=[2], correction=0, keepdim=True)\n"
         "T7 = fd.ops.rsqrt(fd.ops.add(T5, 1e-05))\n"
         "T8 = fd.ops.mul(fd.ops.sub(T4, T6), T7)\n"
         "T9 = fd.ops.reshape(T8, new_shape=[" +
         nchw +
         "])\n"
         "T10 = fd.ops.broadcast_in_dim(T1, shape=[" +
         nchw +
         "], broadcast_dims=[1])\n"
         "T11 = fd.ops.broadcast_in_dim(T2, shape=[" +
         nchw +
         "], broadcast_dims=[1])\n"
         "T12 = fd.ops.add(fd.ops.mul(T9, fd.ops.cast(T10, dtype=DataType.Float)), "
         "fd.ops.cast(T11, dtype=DataType.Float))\n"
         "T13 = fd.ops.silu(T12)\n"
         "fd.add_output(fd.ops.cast(T13, dtype=DataType." +
         dtype +
         "))\n"
         "fd.add_output(T6)\n"
         "fd.add_output(T7)\n";
}

class GpuGroupNormTest : public GpuTest {};

TEST_F(GpuGroupNormTest, GroupNormAndSiluInOneKernelMatchTheReference) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  struct Case {
    int64_t n, c, h, w, g;
    const char* dtype;
  };
  for (const Case& k : {Case{8, 320, 63, 63, 32, "Half"}, Case{2, 12, 5, 7, 4, "BFloat16"},
                        Case{1, 64, 16, 16, 64, "Half"}, Case{3, 6, 1, 9, 3, "BFloat16"},
                        Case{4, 128, 32, 32, 32, "BFloat16"}}) {
    SCOPED_TRACE(std::to_string(k.n) + "x" + std::to_string(k.c) + "x" + std::to_string(k.h) + "x" +
                 std::to_string(k.w) + " groups " + std::to_string(k.g) + " " + k.dtype);
    define(groupNormBody(k.n, k.c, k.h, k.w, k.g, k.dtype));
    useOptions(on);
    const DataType dtype = std::string(k.dtype) == "Half" ? DataType::Half : DataType::BFloat16;
    const runtime::Arguments inputs = {random(dtype, {k.n, k.c, k.h, k.w}), random(dtype, {k.c}),
                                       random(dtype, {k.c})};
    for (int launch = 0; launch < 2; ++launch) {
      const runtime::GpuRunStats stats = runAndCheck(inputs);
      ASSERT_FALSE(unavailable()) << unavailableReason();
      EXPECT_EQ(stats.kernelLaunches, 1) << "statistics and normalization in one kernel";
      EXPECT_TRUE(stats.copies.empty());
    }
  }
}

// One executor, new sizes under the same input signature: where G divides C
// the refinement holds ([N, 4, C/4, H, W]); at 6 channels it does not, the
// cached compile's views no longer fit, and the fusion is compiled again (no
// rewrite there: two kernels), matching the reference each time.
TEST_F(GpuGroupNormTest, NewSizesWhereTheRefinementNoLongerHoldsCompileAgain) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[T0.size(0), 4, -1])
T2, T3 = fd.ops.var_mean(T1, dims=[2], correction=0, keepdim=True)
T4 = fd.ops.mul(fd.ops.sub(T1, T3), fd.ops.rsqrt(fd.ops.add(T2, 1e-05)))
T5 = fd.ops.reshape(T4, new_shape=[T0.size(0), T0.size(1), T0.size(2), T0.size(3)])
fd.add_output(T5)
)");
  useOptions(on);
  EXPECT_EQ(runAndCheck({random(DataType::Float, {2, 12, 5, 7})}).kernelLaunches, 1);
  ASSERT_FALSE(unavailable()) << unavailableReason();
  const runtime::GpuRunStats stats = runAndCheck({random(DataType::Float, {2, 6, 10, 7})});
  EXPECT_TRUE(stats.compiledFusion);
  // The signature now holds that compile, which these sizes run too.
  runAndCheck({random(DataType::Float, {3, 8, 5, 7})});
}

// QK-norm: heads reshaped out of [B, S, H * D], RMSNorm over D with a weight,
// back to [B, S, H * D], in one kernel.
TEST_F(GpuGroupNormTest, RmsNormOverHeadsReshapedBackInOneKernelMatchesTheReference) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.cast(fd.ops.reshape(T0, new_shape=[4, 96, 16, 128]), dtype=DataType.Float)
T3 = fd.ops.sum(fd.ops.mul(T2, T2), dims=[3], keepdim=True)
T4 = fd.ops.rsqrt(fd.ops.add(fd.ops.div(T3, 128.0), 1e-06))
T5 = fd.ops.broadcast_in_dim(T1, shape=[4, 96, 16, 128], broadcast_dims=[3])
T6 = fd.ops.mul(fd.ops.mul(T2, T4), fd.ops.cast(T5, dtype=DataType.Float))
T7 = fd.ops.reshape(fd.ops.cast(T6, dtype=DataType.BFloat16), new_shape=[4, 96, 2048])
fd.add_output(T7)
)");
  useOptions(on);
  const runtime::Arguments inputs = {random(DataType::BFloat16, {4, 96, 2048}),
                                     random(DataType::BFloat16, {128})};
  const runtime::GpuRunStats stats = runAndCheck(inputs);
  ASSERT_FALSE(unavailable()) << unavailableReason();
  EXPECT_EQ(stats.kernelLaunches, 1);
}

}  // namespace
}  // namespace fuserlab::gpu_test
