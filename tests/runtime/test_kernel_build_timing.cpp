// Kernel build timing (measure/kernel_build_timing.h) without a GPU: a
// clear error, not a crash (with a GPU: GpuBenchmarkTest); and the phrase
// run summaries (`fuserlab-cli run`, the workbench's run panel) give a run's
// kernel images.
#include <gtest/gtest.h>

#include "core/cuda/cuda_device.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/runtime/gpu_executor.h"
#include "measure/kernel_build_timing.h"

namespace fuserlab::runtime {
namespace {

TEST(KernelBuildTimingTest, WithoutAGpuMeasuringBuildsIsAUserError) {
  if (cudaDeviceCount() > 0) GTEST_SKIP() << "this machine has a GPU";
  const frontend::Script script =
      frontend::readScript(R"(from nvfuser import FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.exp(T0)
    fd.add_output(T1)

with FusionDefinition() as fd:
    fusion_func(fd)
)",
                           "build_timing.py");
  try {
    measureKernelBuilds(script.fusion(), 0, compiler::CompileOptions{}, nullptr, {});
    FAIL() << "measured without a GPU";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA device"), std::string::npos) << error.what();
  }
}

TEST(KernelBuildTimingTest, KernelImagesAreDescribedForRunSummaries) {
  KernelImageLoads images;
  EXPECT_EQ(describeKernelImages(images), "");  // a cached call loads nothing
  images.compiled = 2;
  images.compileMilliseconds = 70.0;
  images.compilerMilliseconds = 66.04;
  EXPECT_EQ(describeKernelImages(images), "2 compiled by NVRTC in 66.0 ms");
  images.fromCache = 1;
  images.cacheMilliseconds = 0.087;
  EXPECT_EQ(describeKernelImages(images),
            "2 compiled by NVRTC in 66.0 ms, 1 from the kernel cache in 0.09 ms");
  images.compiled = 0;
  EXPECT_EQ(describeKernelImages(images), "1 from the kernel cache in 0.09 ms");
}

}  // namespace
}  // namespace fuserlab::runtime
