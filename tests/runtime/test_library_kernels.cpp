// The kernels that library-call and kernel-free segments fall back to
// compile with NVRTC without a GPU: the strided copy kernel (views that need
// a copy) for every element size and a few ranks, and its launch shape.
#include <gtest/gtest.h>

#include "core/cuda/nvrtc_compiler.h"
#include "core/runtime/copy_kernel.h"
#include "core/runtime/matmul_call.h"

namespace fuserlab::runtime {
namespace {

TEST(LibraryKernelsTest, CopyKernelCompilesForEveryElementSize) {
  for (int64_t bytes : {1, 2, 4, 8}) {
    for (int rank : {0, 1, 3}) {
      const codegen::GeneratedKernel kernel = stridedCopyKernel(bytes, rank, 1000);
      EXPECT_EQ(kernel.parameters.size(), 2u);
      EXPECT_EQ(kernel.launch.grid[0], 4);  // 1000 elements, 256 per block
      // It may run as a programmatic dependent of the kernel before it.
      EXPECT_TRUE(kernel.waitsForPriorGrids);
      EXPECT_NE(kernel.source.find(std::string(") {\n") + codegen::kKernelEntry),
                std::string::npos);
      const NvrtcOutput out = compileWithNvrtc(kernel, 90);
      EXPECT_FALSE(out.cubin.empty()) << kernel.name << "\n" << out.log;
    }
  }
  EXPECT_EQ(stridedCopyKernel(4, 2, int64_t{1} << 40).launch.grid[0], 65535);
}

TEST(LibraryKernelsTest, CollapsedStrideFlattensLeadingAxes) {
  EXPECT_EQ(collapsedStride({2, 128}, {131072, 1024}), 1024);
  EXPECT_EQ(collapsedStride({2, 1, 3}, {6, 99, 2}), 2);
  EXPECT_EQ(collapsedStride({4, 5}, {0, 0}), 0);
  EXPECT_EQ(collapsedStride({}, {}), 0);
  EXPECT_FALSE(collapsedStride({2, 128}, {2048, 1024}).has_value());
  EXPECT_FALSE(collapsedStride({3, 4}, {0, 1}).has_value());
}

}  // namespace
}  // namespace fuserlab::runtime
