// GpuLaunchTest: CudaKernel's launch path, the driver's cuLaunchKernelEx on
// the kernel's CUfunction in the current context, fetched at the first
// launch and kept (core/runtime/driver_launch.h). An NVRTC-compiled copy
// kernel copies random values, launched again and again on new buffers; a
// launch the driver refuses throws a CudaError that names the driver call,
// the kernel and the driver's error.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/runtime/copy_kernel.h"
#include "core/runtime/cuda_device.h"
#include "core/runtime/cuda_error.h"
#include "core/runtime/cuda_memory.h"
#include "core/runtime/cuda_module.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/random_fill.h"
#include "core/runtime/tensor.h"

namespace fuserlab::runtime {
namespace {

class GpuLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cudaDeviceCount() == 0) {
      GTEST_SKIP() << "no CUDA device, GPU test skipped: " << cudaUnavailableReason();
    }
    setCudaDevice(0, "the launch test");
    kernel_ = stridedCopyKernel(4, 1, kElements);
    const NvrtcOutput out = compileWithNvrtc(kernel_, queryCudaDevice(0)->computeCapability());
    module_ = std::make_unique<CudaModule>(std::string(out.cubin.begin(), out.cubin.end()),
                                           "the launch test");
  }

  static constexpr int64_t kElements = 3 * 1024 + 17;
  codegen::GeneratedKernel kernel_;
  std::unique_ptr<CudaModule> module_;
};

TEST_F(GpuLaunchTest, KernelLaunchedAgainOnNewBuffersCopiesEachTime) {
  const CudaKernel kernel = module_->kernel(kernel_.name, "the launch test");
  for (int round = 0; round < 3; ++round) {
    Tensor host = Tensor::empty(ir::DataType::Float, {kElements});
    fillUniform(host, 100 + round, 1.0, 2.0);  // non-zero
    DeviceTensor in = toDevice(host, 0, "launch test input");
    DeviceTensor out = allocateDevice(ir::DataType::Float, {kElements}, {1}, 0,
                                      "launch test output");
    poison(out.tensor, "launch test output");
    KernelArguments args;
    args.addTensor(in.tensor.data(), in.tensor.sizes(), in.tensor.strides());
    args.addTensor(out.tensor.data(), out.tensor.sizes(), out.tensor.strides());
    kernel.launch(kernel_.launch, args.pointers(), "the launch test");
    synchronizeCuda("the launch test");
    const Tensor back = toHost(out.tensor, "launch test output");
    EXPECT_EQ(std::memcmp(back.data(), host.data(), kElements * sizeof(float)), 0)
        << "round " << round;
  }
}

TEST_F(GpuLaunchTest, RefusedLaunchNamesTheDriverCallAndTheKernel) {
  const CudaKernel kernel = module_->kernel(kernel_.name, "the launch test");
  DeviceTensor in = allocateDevice(ir::DataType::Float, {kElements}, {1}, 0, "in");
  DeviceTensor out = allocateDevice(ir::DataType::Float, {kElements}, {1}, 0, "out");
  KernelArguments args;
  args.addTensor(in.tensor.data(), in.tensor.sizes(), in.tensor.strides());
  args.addTensor(out.tensor.data(), out.tensor.sizes(), out.tensor.strides());
  // More dynamic shared memory than any GPU gives a block, never opted into.
  codegen::LaunchConfig config = kernel_.launch;
  config.dynamicSharedMemoryBytes = 1 << 20;
  try {
    kernel.launch(config, args.pointers(), "segment 7 (test)");
    FAIL() << "a launch with 1 MiB of shared memory was accepted";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("segment 7 (test)"), std::string::npos) << message;
    EXPECT_NE(message.find(kernel_.name), std::string::npos) << message;
    EXPECT_NE(message.find("cuLaunchKernelEx failed: CUDA_ERROR_"), std::string::npos)
        << message;
    EXPECT_NE(error.code(), 0);
  }
  // The refusal leaves nothing behind: the next launch works.
  kernel.launch(kernel_.launch, args.pointers(), "the launch test");
  synchronizeCuda("after a refused launch");
}

}  // namespace
}  // namespace fuserlab::runtime
