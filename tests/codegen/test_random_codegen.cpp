// Code generation of the random ops: every kernel computing one calls the
// fl::rng function of its distribution and dtype at the element's row-major
// index, with the seed and offset the op reads (a kernel parameter when the
// script passes a scalar input), in pointwise and reduction kernels, and
// compiles with NVRTC. The device header carries core/ir/random_numbers.inc
// verbatim, so the GPU runs the CPU reference's source.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::codegen {
namespace {

void expectCompiles(const GeneratedKernel& kernel) {
  for (int arch : {80, 90}) {
    try {
      const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, arch);
      EXPECT_FALSE(out.cubin.empty());
    } catch (const UserError& error) {
      ADD_FAILURE() << "sm_" << arch << ": " << error.message();
    }
  }
}

TEST(RandomCodegenTest, DeviceHeaderEmbedsTheSharedRandomNumbersSource) {
  std::ifstream file(fuserlab::test::sourceDir() + "/core/ir/random_numbers.inc");
  ASSERT_TRUE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  const std::string header(deviceHelperSource());
  EXPECT_NE(header.find(text.str()), std::string::npos)
      << "the device header's copy of core/ir/random_numbers.inc is stale";
  EXPECT_TRUE(contains(header, "struct RoundToBFloat16"));
}

TEST(RandomCodegenTest, PointwiseKernelCallsPhiloxAtTheLinearIndex) {
  const CompiledScript compiled = compileScript(
      script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
             "dtype=DataType.Float)\n"
             "    S1 = fd.define_scalar(DataType.Int)\n"
             "    S2 = fd.define_scalar(DataType.Int)\n"
             "    T3 = fd.ops.uniform(-1.0, 1.0, T0.shape(), rng_seed=S1, rng_offset=S2, "
             "dtype=DataType.Float)\n"
             "    T4 = fd.ops.add(T0, T3)\n"
             "    fd.add_output(T4)\n"),
      "96x1000:f32,5,6");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "fl::rng::uniformRangeF(")) << kernel.source;
  // The seed and offset are the kernel's scalar parameters i2 and i3 (i0 and
  // i1 are T0's extents).
  EXPECT_TRUE(contains(kernel.source, "int64_t i2")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "fl::rng::uniformRangeF((uint64_t)(i2), (uint64_t)(i3), "))
      << kernel.source;
  // Row-major: the outer index times the inner extent plus the inner index.
  EXPECT_TRUE(contains(kernel.source, "(uint64_t)(a0) * (uint64_t)")) << kernel.source;
  expectCompiles(kernel);
}

struct Case {
  const char* op;
  double a;
  double b;
  const char* dtype;
  const char* call;
};

class RandomCodegenCaseTest : public ::testing::TestWithParam<Case> {};

TEST_P(RandomCodegenCaseTest, CallsTheDistributionOfItsDtypeAndCompiles) {
  const Case& c = GetParam();
  const CompiledScript compiled = compileScript(
      script(std::string("    T0 = fd.ops.") + c.op + "(" + std::to_string(c.a) + ", " +
             std::to_string(c.b) + ", shape=[7, 129], rng_seed=3, rng_offset=8, dtype=DataType." +
             c.dtype + ")\n    fd.add_output(T0)\n"),
      " ");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, std::string("fl::rng::") + c.call + "(")) << kernel.source;
  expectCompiles(kernel);
}

INSTANTIATE_TEST_SUITE_P(DistributionsAndDtypes, RandomCodegenCaseTest,
                         ::testing::Values(Case{"uniform", 0, 1, "Float", "uniformStandardF"},
                                           Case{"uniform", 2, 5, "Half", "uniformRangeF"},
                                           Case{"uniform", 0, 1, "BFloat16", "uniformStandardF"},
                                           Case{"uniform", -3, 3, "Double", "uniformRangeD"},
                                           Case{"uniform", 0, 1, "Double", "uniformStandardD"},
                                           Case{"normal", 0, 1, "Float", "normalStandardF"},
                                           Case{"normal", 1, 2, "BFloat16", "normalGeneralF"},
                                           Case{"normal", 0, 1, "Double", "normalStandardD"},
                                           Case{"normal", -1, 0.5, "Double", "normalGeneralD"}),
                         [](const ::testing::TestParamInfo<Case>& caseInfo) {
                           return std::string(caseInfo.param.call) + "_" + caseInfo.param.dtype;
                         });

TEST(RandomCodegenTest, DropoutInAReductionKernelIsDrawnPerElementNotPerRow) {
  const CompiledScript compiled =
      compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                           "dtype=DataType.BFloat16)\n"
                           "    T1 = fd.ops.rand_like(T0)\n"
                           "    S2 = fd.define_scalar(0.9, dtype=DataType.Double)\n"
                           "    T3 = fd.ops.lt(T1, S2)\n"
                           "    T4 = fd.ops.cast(T0, dtype=DataType.Float)\n"
                           "    T5 = fd.ops.where(T3, T4, 0.0)\n"
                           "    T6 = fd.ops.sum(T5, dims=[1])\n"
                           "    fd.add_output(T6)\n"),
                    "512x4096:bf16");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "fl::rng::uniformStandardF(")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "fl::rng::RoundToBFloat16()")) << kernel.source;
  // A random op takes no tensor input, yet is no per-row value: computed once
  // per row it would take the row's element 0 for every element
  // (`row * size + 0`), which the reduction planner once did.
  const size_t call = kernel.source.find("fl::rng::uniformStandardF(");
  ASSERT_NE(call, std::string::npos);
  const std::string line = kernel.source.substr(call, kernel.source.find('\n', call) - call);
  EXPECT_FALSE(contains(line, "+ (uint64_t)((0)))")) << line;
  expectCompiles(kernel);
}

}  // namespace
}  // namespace fuserlab::codegen
