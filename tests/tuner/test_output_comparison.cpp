// The GPU output comparison's kernels (tuner/output_comparison.h) without a
// GPU: NVRTC compiles them for every dtype and the ranks outputs have, for
// every architecture this NVRTC supports from sm_80 on, and their source
// keeps result_check.h's rule (tolerance for floating dtypes, exact else).
#include <gtest/gtest.h>

#include "core/cuda/nvrtc_compiler.h"
#include "tuner/output_comparison.h"

namespace fuserlab::tuner {
namespace {

const ir::DataType kDtypes[] = {ir::DataType::Bool,  ir::DataType::Int32,    ir::DataType::Int,
                                ir::DataType::Half,  ir::DataType::BFloat16, ir::DataType::Float,
                                ir::DataType::Double};

TEST(OutputComparisonTest, KernelsCompileForEveryDtypeAndRank) {
  std::vector<int> architectures;
  for (int cc : runtime::nvrtcSupportedArchitectures()) {
    if (cc == 80 || cc == 90) architectures.push_back(cc);
  }
  ASSERT_FALSE(architectures.empty()) << "this NVRTC supports neither sm_80 nor sm_90";
  for (int cc : architectures) {
    for (ir::DataType dtype : kDtypes) {
      ASSERT_TRUE(comparableOnDevice(dtype));
      for (int rank : {0, 1, 2, 4}) {
        SCOPED_TRACE(std::string(ir::toString(dtype)) + " rank " + std::to_string(rank) + " sm_" +
                     std::to_string(cc));
        const codegen::GeneratedKernel kernel = comparisonKernels(dtype, rank);
        EXPECT_EQ(kernel.name, comparisonKernelName(dtype, rank));
        const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, cc);
        EXPECT_FALSE(out.cubin.empty());
      }
    }
  }
}

TEST(OutputComparisonTest, FloatsUseTheToleranceIntegersAndBoolsCompareExactly) {
  const std::string bf16 = comparisonKernels(ir::DataType::BFloat16, 2).source;
  EXPECT_NE(bf16.find("fl_differs((double)fl::load_value"), std::string::npos) << bf16;
  EXPECT_NE(bf16.find("atol + rtol * fabs(y)"), std::string::npos) << bf16;
  const std::string ints = comparisonKernels(ir::DataType::Int, 2).source;
  EXPECT_NE(ints.find("actual.data[at_actual] != expected.data[at_expected]"), std::string::npos)
      << ints;
  // bool as its byte: a poisoned 0x7f is not read as true.
  EXPECT_NE(comparisonKernels(ir::DataType::Bool, 1).source.find("fl::Tensor<uint8_t, 1>"),
            std::string::npos);
  EXPECT_FALSE(comparableOnDevice(ir::DataType::Null));
}

}  // namespace
}  // namespace fuserlab::tuner
