// PtxasUsage: ptxas's verbose report read back from NVRTC's log, for a
// canned log and for a kernel NVRTC compiles here (no GPU needed).
#include <gtest/gtest.h>

#include "core/codegen/kernel.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/ptxas_usage.h"

namespace fuserlab::runtime {
namespace {

const char* const kLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
    "ptxas info    : Function properties for other\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 12 registers, 360 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'reduction_seg0' for 'sm_90'\n"
    "ptxas info    : Function properties for reduction_seg0\n"
    "ptxas         .     48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 4 bytes smem, 392 bytes cmem[0]\n";

TEST(PtxasUsageTest, ReadsTheNamedEntryOfACannedLog) {
  const auto usage = parsePtxasUsage(kLog, "reduction_seg0");
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->registers, 255);
  EXPECT_EQ(usage->spillStoreBytes, 40);
  EXPECT_EQ(usage->spillLoadBytes, 36);
  EXPECT_EQ(usage->stackFrameBytes, 48);
  EXPECT_EQ(usage->sharedMemoryBytes, 4);
  EXPECT_EQ(usage->barriers, 1);
  const auto other = parsePtxasUsage(kLog, "other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->registers, 12);
  EXPECT_EQ(other->spillStoreBytes, 0);
  EXPECT_FALSE(parsePtxasUsage(kLog, "missing").has_value());
  EXPECT_FALSE(parsePtxasUsage("", "reduction_seg0").has_value());
  EXPECT_EQ(withoutPtxasInfo(kLog), "");
  EXPECT_EQ(withoutPtxasInfo(std::string("k.cu(3): warning #177-D: unused\n") + kLog),
            "k.cu(3): warning #177-D: unused\n");
  EXPECT_EQ(withoutPtxasInfo("ptxas warning : Registers are spilled\n"),
            "ptxas warning : Registers are spilled\n");
}

TEST(PtxasUsageTest, NvrtcReportsRegistersAndSharedMemoryWhenVerbose) {
  codegen::GeneratedKernel kernel;
  kernel.name = "probe";
  kernel.source =
      "extern \"C\" __global__ void probe(float* x) {\n"
      "  __shared__ float s[256];\n"
      "  s[threadIdx.x] = x[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  x[threadIdx.x] = s[255 - threadIdx.x] * 2.0f;\n"
      "}\n";
  const NvrtcOutput quiet = compileWithNvrtc(kernel, 90);
  EXPECT_FALSE(parsePtxasUsage(quiet.log, "probe").has_value()) << quiet.log;
  kernel.options.emplace_back(kPtxasVerboseOption);
  const NvrtcOutput verbose = compileWithNvrtc(kernel, 90);
  const auto usage = parsePtxasUsage(verbose.log, "probe");
  ASSERT_TRUE(usage.has_value()) << verbose.log;
  EXPECT_GT(usage->registers, 0);
  EXPECT_EQ(usage->sharedMemoryBytes, 1024);
  EXPECT_EQ(usage->spillStoreBytes, 0);
  EXPECT_EQ(withoutPtxasInfo(verbose.log), "") << verbose.log;
}

}  // namespace
}  // namespace fuserlab::runtime
