// Kernels whose every output is bf16 compute float tanh with the hardware's
// tanh.approx.f32 (fl::tanh_approx); any other output dtype keeps tanhf.
// Kernels whose every output is half or bf16 compute float exp with
// ex2.approx.f32 (fl::exp_approx) and float division with div.full.f32
// (fl::fdiv_approx); a float output keeps expf and the IEEE fl::fdiv.
// sigmoid and silu follow exp and division (fl::sigmoid_approx,
// fl::silu_approx).
// tests/gpu GpuPointwiseTest.BiasGeluApproximateTanhWithinBf16Tolerance and
// GpuInnerPersistentTest.SoftmaxApproximateExpWithinTolerance check the numerics
// against the CPU reference, GpuPointwiseTest.SigmoidAndSiluApproximations
// those of sigmoid and silu.
#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

std::string tanhOf(const std::string& outputDtype) {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2 = fd.ops.tanh(T1)\n"
         "    T3 = fd.ops.add(T1, T2)\n"
         "    T4 = fd.ops.cast(T3, dtype=DataType." +
         outputDtype +
         ")\n"
         "    fd.add_output(T4)\n";
}

TEST(ApproximateTanhTest, Bf16OutputUsesTheHardwareTanh) {
  const CompiledScript compiled = compileScript(tanhOf("BFloat16"), "1024x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "fl::tanh_approx(T1_v)")) << k.source;
  EXPECT_FALSE(contains(k.source, "tanhf(")) << k.source;
  for (int arch : runtime::nvrtcSupportedArchitectures()) {
    if (arch != 75 && arch != 80 && arch != 90) continue;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty()) << arch;
  }
}

TEST(ApproximateTanhTest, FloatAndHalfOutputsKeepTanhf) {
  for (const char* dtype : {"Float", "Half"}) {
    const CompiledScript compiled = compileScript(tanhOf(dtype), "1024x4096:bf16");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_TRUE(contains(k.source, "tanhf(T1_v)")) << dtype << "\n" << k.source;
    EXPECT_FALSE(contains(k.source, "fl::tanh_approx(")) << dtype;
  }
}

TEST(ApproximateTanhTest, MixedOutputsKeepTanhf) {
  // A float side output of the same kernel could show the error.
  const CompiledScript compiled = compileScript(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.tanh(T1)\n"
      "    T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n",
      "1024x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "tanhf(T1_v)")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::tanh_approx(")) << k.source;
}

// A softmax (inner persistent: a max, a sum of exps and the normalized exps)
// with its output in `outputDtype`.
std::string softmaxTo(const std::string& outputDtype) {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2 = fd.ops.max(T1, dims=[1], keepdim=True)\n"
         "    T3 = fd.ops.sub(T1, T2)\n"
         "    T4 = fd.ops.exp(T3)\n"
         "    T5 = fd.ops.sum(T4, dims=[1], keepdim=True)\n"
         "    T6 = fd.ops.div(T4, T5)\n"
         "    T7 = fd.ops.cast(T6, dtype=DataType." +
         outputDtype +
         ")\n"
         "    fd.add_output(T7)\n";
}

TEST(ApproximateExpTest, NarrowOutputSoftmaxUsesTheHardwareExp) {
  for (const char* dtype : {"BFloat16", "Half"}) {
    const CompiledScript compiled = compileScript(softmaxTo(dtype), "512x4096:bf16");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_TRUE(contains(k.name, "inner_persistent")) << k.name;
    EXPECT_TRUE(contains(k.source, "fl::exp_approx(")) << dtype << "\n" << k.source;
    EXPECT_FALSE(contains(k.source, "expf(")) << dtype << "\n" << k.source;
    EXPECT_TRUE(contains(k.source, "fl::fdiv_approx(")) << dtype << "\n" << k.source;
    EXPECT_FALSE(contains(k.source, "fl::fdiv(")) << dtype << "\n" << k.source;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty()) << dtype;
  }
}

TEST(ApproximateExpTest, FloatOutputKeepsExpf) {
  const CompiledScript compiled = compileScript(softmaxTo("Float"), "512x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "expf(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::exp_approx(")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::fdiv(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::fdiv_approx(")) << k.source;
}

TEST(ApproximateExpTest, HalfOutputPointwiseUsesItButKeepsTanhf) {
  // exp's error (1e-5) fits half's 2^-11; tanh.approx's (2^-11) does not.
  const CompiledScript compiled = compileScript(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Half, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.exp(T1)\n"
      "    T3 = fd.ops.tanh(T2)\n"
      "    T4 = fd.ops.cast(T3, dtype=DataType.Half)\n"
      "    fd.add_output(T4)\n",
      "1024x4096:f16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "fl::exp_approx(T1_v)")) << k.source;
  EXPECT_TRUE(contains(k.source, "tanhf(")) << k.source;
}

std::string siluMulTo(const std::string& outputDtype) {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2 = fd.ops.silu(T1)\n"
         "    T3 = fd.ops.sigmoid(T1)\n"
         "    T4 = fd.ops.mul(T2, T3)\n"
         "    T5 = fd.ops.cast(T4, dtype=DataType." +
         outputDtype +
         ")\n"
         "    fd.add_output(T5)\n";
}

TEST(ApproximateExpTest, NarrowOutputSigmoidAndSiluUseTheHardwareExpAndDivision) {
  for (const char* dtype : {"BFloat16", "Half"}) {
    const CompiledScript compiled = compileScript(siluMulTo(dtype), "256x11008:bf16");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_TRUE(contains(k.source, "fl::silu_approx(T1_v)")) << dtype << "\n" << k.source;
    EXPECT_TRUE(contains(k.source, "fl::sigmoid_approx(T1_v)")) << dtype << "\n" << k.source;
    EXPECT_FALSE(contains(k.source, "fl::silu(")) << dtype;
    EXPECT_FALSE(contains(k.source, "fl::sigmoid(")) << dtype;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty()) << dtype;
  }
  const CompiledScript compiled = compileScript(siluMulTo("Float"), "256x11008:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "fl::silu(T1_v)")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::sigmoid(T1_v)")) << k.source;
  EXPECT_FALSE(contains(k.source, "_approx(")) << k.source;
}

// A bool output of a comparison computed without exp, tanh or division
// (the pointwise_cast_chain example's `x * s + y > 0`) is exact and leaves the
// bf16 output its approximations; a bool output of a comparison of an exp
// keeps that exp accurate, and only it: the sigmoid and tanh reach the bf16
// output alone.
TEST(ApproximateExpTest, ExactBoolOutputsLeaveTheApproximationsOn) {
  auto script = [](const std::string& compared) {
    return "from nvfuser import FusionDefinition, DataType\n"
           "def f(fd : FusionDefinition) -> None :\n"
           "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
           "dtype=DataType.BFloat16, is_cpu=False)\n"
           "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
           "    T2 = fd.ops.add(T1, T1)\n"
           "    T3 = fd.ops.sigmoid(T1)\n"
           "    T4 = fd.ops.tanh(T3)\n"
           "    T5 = fd.ops.exp(T1)\n"
           "    T6 = fd.ops.gt(" +
           compared +
           ", T1)\n"
           "    T7 = fd.ops.add(T4, T5)\n"
           "    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)\n"
           "    fd.add_output(T8)\n"
           "    fd.add_output(T6)\n";
  };
  {
    const CompiledScript compiled = compileScript(script("T2"), "1024x2048:bf16");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_TRUE(contains(k.source, "fl::sigmoid_approx(")) << k.source;
    EXPECT_TRUE(contains(k.source, "fl::tanh_approx(")) << k.source;
    EXPECT_TRUE(contains(k.source, "fl::exp_approx(")) << k.source;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  }
  {
    const CompiledScript compiled = compileScript(script("T5"), "1024x2048:bf16");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_FALSE(contains(k.source, "fl::exp_approx(")) << k.source;
    EXPECT_TRUE(contains(k.source, "expf(")) << k.source;
    EXPECT_TRUE(contains(k.source, "fl::sigmoid_approx(")) << k.source;
    EXPECT_TRUE(contains(k.source, "fl::tanh_approx(")) << k.source;
  }
}

// Per value, not per kernel: in a normalization with SiLU whose statistics
// are float outputs (GroupNorm's mean and rstd), the SiLU reaches only the
// half output and is approximate, while the variance's division reaches
// the float rstd and stays IEEE. (The whole-kernel rule kept expf and the
// IEEE division for every element: 48 instructions an element, bound by
// the instruction issue rather than memory.)
TEST(ApproximateExpTest, AnOpReachingOnlyNarrowOutputsIsApproximateBesideFloatOnes) {
  const std::string source =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Half, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=True)\n"
      "    T4 = fd.ops.rsqrt(fd.ops.add(T2, 1e-05))\n"
      "    T5 = fd.ops.silu(fd.ops.mul(fd.ops.sub(T1, T3), T4))\n"
      "    fd.add_output(fd.ops.cast(T5, dtype=DataType.Half))\n"
      "    fd.add_output(T3)\n"
      "    fd.add_output(T4)\n";
  const CompiledScript compiled = compileScript(source, "256x4096:f16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "fl::silu_approx(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::silu(")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::fdiv(res_T")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::fdiv_approx(res_T")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

}  // namespace
}  // namespace fuserlab::codegen
