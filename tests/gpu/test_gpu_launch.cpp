// GpuLaunchTest: CudaKernel's launch path, the driver's cuLaunchKernelEx on
// the kernel's CUfunction in the current context, fetched at the first
// launch and kept (core/cuda/driver_launch.h). An NVRTC-compiled copy
// kernel copies random values, launched again and again on new buffers; a
// launch the driver refuses throws a CudaError that names the driver call,
// the kernel and the driver's error. LaunchGraph (core/runtime/
// launch_graph.h): a zero fill and two copies chained in one CUDA graph, with
// a programmatic edge between the copies, give the copy; re-pointed at new
// buffers they copy those; a step the driver refuses is named.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_error.h"
#include "core/cuda/cuda_memory.h"
#include "core/cuda/cuda_module.h"
#include "core/cuda/launch_graph.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/runtime/copy_kernel.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/tensor.h"

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
    DeviceTensor out =
        allocateDevice(ir::DataType::Float, {kElements}, {1}, 0, "launch test output");
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
    EXPECT_NE(message.find("cuLaunchKernelEx failed: CUDA_ERROR_"), std::string::npos) << message;
    EXPECT_NE(error.code(), 0);
  }
  // The refusal leaves nothing behind: the next launch works.
  kernel.launch(kernel_.launch, args.pointers(), "the launch test");
  synchronizeCuda("after a refused launch");
}

// Random non-zero values on the GPU, and a poisoned buffer of their size.
struct CopyBuffers {
  Tensor host;
  DeviceTensor in, middle, out;
  KernelArguments first, second;  // in -> middle, middle -> out
};

CopyBuffers copyBuffers(int64_t elements, uint64_t seed) {
  CopyBuffers b;
  b.host = Tensor::empty(ir::DataType::Float, {elements});
  fillUniform(b.host, seed, 1.0, 2.0);
  b.in = toDevice(b.host, 0, "graph test input");
  b.middle = allocateDevice(ir::DataType::Float, {elements}, {1}, 0, "graph test middle");
  b.out = allocateDevice(ir::DataType::Float, {elements}, {1}, 0, "graph test output");
  poison(b.middle.tensor, "graph test middle");
  poison(b.out.tensor, "graph test output");
  b.first.addTensor(b.in.tensor.data(), b.in.tensor.sizes(), b.in.tensor.strides());
  b.first.addTensor(b.middle.tensor.data(), b.middle.tensor.sizes(), b.middle.tensor.strides());
  b.second.addTensor(b.middle.tensor.data(), b.middle.tensor.sizes(), b.middle.tensor.strides());
  b.second.addTensor(b.out.tensor.data(), b.out.tensor.sizes(), b.out.tensor.strides());
  return b;
}

bool copied(const CopyBuffers& b) {
  const Tensor back = toHost(b.out.tensor, "graph test output");
  return std::memcmp(back.data(), b.host.data(), b.host.sizes()[0] * sizeof(float)) == 0;
}

TEST_F(GpuLaunchTest, GraphOfAZeroFillAndTwoCopiesFollowsNewBuffers) {
  ASSERT_TRUE(kernel_.waitsForPriorGrids);  // may be a programmatic dependent
  const CudaKernel kernel = module_->kernel(kernel_.name, "the graph test");
  void* function = kernel.function("the graph test");
  const driver::LaunchShape shape = launchShape(kernel_.launch);
  CopyBuffers a = copyBuffers(kElements, 7);
  LaunchGraph graph("a test graph");
  const size_t fill = graph.addZeroFill(a.out.buffer->data(), a.out.buffer->bytes());
  const size_t first = graph.addKernel(function, shape, a.first.pointers(), false);
  const size_t second = graph.addKernel(function, shape, a.second.pointers(), true);
  EXPECT_EQ(graph.steps(), 3u);
  EXPECT_EQ(graph.programmaticEdges(), 1);
  graph.instantiate();
  graph.launch();
  synchronizeCuda("the graph test");
  EXPECT_TRUE(copied(a)) << "first launch";

  // New buffers: every step re-pointed, launched twice.
  CopyBuffers b = copyBuffers(kElements, 8);
  graph.setZeroFill(fill, b.out.buffer->data(), b.out.buffer->bytes());
  graph.setKernelArguments(first, function, shape, b.first.pointers());
  graph.setKernelArguments(second, function, shape, b.second.pointers());
  for (int launch = 0; launch < 2; ++launch) {
    graph.launch();
    synchronizeCuda("the graph test");
    EXPECT_TRUE(copied(b)) << "re-pointed, launch " << launch;
  }
  // The first buffers were left as they were.
  EXPECT_TRUE(copied(a));
}

TEST_F(GpuLaunchTest, GraphStepTheDriverRefusesIsNamed) {
  const CudaKernel kernel = module_->kernel(kernel_.name, "the graph test");
  CopyBuffers a = copyBuffers(kElements, 9);
  driver::LaunchShape shape = launchShape(kernel_.launch);
  shape.dynamicSharedMemoryBytes = 1 << 20;  // more than any GPU gives a block
  try {
    LaunchGraph graph("segment 4's test graph");
    graph.addKernel(kernel.function("the graph test"), shape, a.first.pointers(), false);
    graph.instantiate();
    graph.launch();
    synchronizeCuda("the refused graph");
    FAIL() << "a graph step with 1 MiB of shared memory was accepted";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("segment 4's test graph"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_ERROR_"), std::string::npos) << message;
  }
  // Nothing left behind: a plain launch still works.
  kernel.launch(kernel_.launch, a.first.pointers(), "after a refused graph");
  synchronizeCuda("after a refused graph");
}

}  // namespace
}  // namespace fuserlab::runtime
