#include <gtest/gtest.h>

#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"

namespace fuserlab::codegen {
namespace {

GeneratedKernel handMade(const std::string& body) {
  GeneratedKernel kernel;
  kernel.name = "hand_made";
  kernel.source =
      "#include \"fuserlab_device.cuh\"\n"
      "extern \"C\" __global__ void hand_made(fl::Tensor<float, 1> T0) {\n" +
      body + "}\n";
  return kernel;
}

TEST(NvrtcCompilerTest, CompilesForSm80AndSm90) {
  const GeneratedKernel kernel =
      handMade("  T0.data[threadIdx.x] = fl::round_to_bf16(T0.data[threadIdx.x]);\n");
  for (int arch : {80, 90}) {
    const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, arch);
    ASSERT_GT(out.cubin.size(), 4u);
    EXPECT_EQ(std::string(out.cubin.begin(), out.cubin.begin() + 4),
              "\x7f"
              "ELF");
    EXPECT_GT(out.nvrtcMajor, 0);
    EXPECT_EQ(out.computeCapability, arch);
    EXPECT_EQ(out.options.front(), "--gpu-architecture=sm_" + std::to_string(arch));
  }
}

TEST(NvrtcCompilerTest, SyntaxErrorShowsLogAndNumberedSourceLines) {
  GeneratedKernel kernel = handMade("  float x = ;\n  T0.data[0] = x;\n");
  try {
    runtime::compileWithNvrtc(kernel, 80);
    FAIL() << "a syntax error compiled";
  } catch (const UserError& error) {
    const std::string message = error.message();
    EXPECT_NE(message.find("NVRTC could not compile kernel hand_made for sm_80"), std::string::npos)
        << message;
    EXPECT_NE(message.find("hand_made.cu(3): error"), std::string::npos) << message;
    EXPECT_NE(message.find(">    3 |   float x = ;"), std::string::npos) << message;
    EXPECT_NE(message.find("     2 | extern \"C\""), std::string::npos) << message;
  }
}

TEST(NvrtcCompilerTest, KernelOptionsArePassed) {
  GeneratedKernel kernel = handMade("  T0.data[0] = 1.0f;\n");
  kernel.options.push_back("--maxrregcount=32");
  const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, 90);
  EXPECT_EQ(out.options.back(), "--maxrregcount=32");
  kernel.options = {"--no-such-option"};
  EXPECT_THROW(runtime::compileWithNvrtc(kernel, 90), UserError);
}

TEST(NvrtcCompilerTest, UnsupportedArchitectureIsAUserError) {
  try {
    runtime::compileWithNvrtc(handMade(""), 12);
    FAIL() << "sm_12 compiled";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("cannot compile for sm_12"), std::string::npos)
        << error.message();
  }
  const std::vector<int> archs = runtime::nvrtcSupportedArchitectures();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

}  // namespace
}  // namespace fuserlab::codegen
