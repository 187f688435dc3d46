// The combined normalization backward (issue 45 item 1): dx from row sums
// and the weight gradients dw, db as column sums over every row, in one
// inner persistent kernel. Each block keeps its columns' sums in registers
// over the rows it takes, writes them to the workspace, meets the grid at a
// barrier, and adds a range of columns over the grid's blocks in block
// order. Compiled for an H100 at the sizes given, through NVRTC.
#include <gtest/gtest.h>

#include <string>

#include "tests/codegen/codegen_fixture.h"
#include "tests/test_scripts.h"

namespace fuserlab::codegen {
namespace {

struct CombinedCase {
  bool layerNorm = true;
  int64_t rows = 0;
  int64_t cols = 0;
  std::string dtype = "BFloat16";
};

std::string inputSpec(const CombinedCase& c) {
  const std::string t = c.dtype == "BFloat16" ? "bf16" : "f32";
  const std::string full = std::to_string(c.rows) + "x" + std::to_string(c.cols) + ":" + t;
  const std::string row = std::to_string(c.rows) + "x1:f32";
  return full + "," + full + "," + row + "," + (c.layerNorm ? row + "," : "") +
         std::to_string(c.cols) + ":" + t;
}

TEST(CombinedKernelTest, NormBackwardWithWeightGradientsIsOneKernel) {
  for (const CombinedCase& c :
       {CombinedCase{true, 2048, 4096}, CombinedCase{false, 8191, 1023},
        CombinedCase{true, 4096, 256}, CombinedCase{false, 1000, 1024, "Float"},
        CombinedCase{true, 3000, 4096}}) {
    SCOPED_TRACE(std::string(c.layerNorm ? "LayerNorm " : "RMSNorm ") + inputSpec(c));
    const CompiledScript compiled =
        compileScript(test_scripts::definition(test_scripts::normBackwardWithWeights(
                          c.rows, c.cols, c.layerNorm, c.dtype)),
                      inputSpec(c));
    ASSERT_EQ(compiled.kernels.size(), 1u);
    const std::vector<GeneratedKernel> kernels = expectKernelsCompile(compiled, "inner_persistent");
    ASSERT_EQ(kernels.size(), 1u);
    const std::string& source = kernels[0].source;
    // The column sums' partials, the one grid barrier and its reset.
    EXPECT_EQ(count(source, "_part[(index_t)blockIdx.x * "), c.layerNorm ? 2 : 1) << source;
    EXPECT_EQ(count(source, "fl::red::grid_sync(semaphores, "), 1) << source;
    EXPECT_EQ(count(source, "fl::red::grid_sync_reset(semaphores, exits, "), 1) << source;
    // The launch bounds promise the blocks per SM the resident grid needs.
    const int64_t threads =
        kernels[0].launch.block[0] * kernels[0].launch.block[1] * kernels[0].launch.block[2];
    const int64_t perSm = (kernels[0].launch.grid[0] + 131) / 132;
    EXPECT_TRUE(contains(source, "__launch_bounds__(" + std::to_string(threads) + ", " +
                                     std::to_string(perSm) + ")"))
        << source;
    EXPECT_GT(kernels[0].workspaceBytes, 0);
    // Rows kept in shared memory lie lane by lane a block row apart, so a
    // warp reads and writes consecutive elements (no bank conflicts).
    if (contains(source, "kept in shared memory")) {
      const std::string lane =
          "(index_t)threadIdx.x + v * " + std::to_string(kernels[0].launch.block[0]) + "]";
      EXPECT_TRUE(contains(source, lane)) << source;
      EXPECT_FALSE(contains(source, "fl::store_vector<4>(S_T")) << source;
    }
  }
}

// Long bf16 rows beside column sums: kept in shared memory (2 and 3 blocks
// of rows in registers an SM would be too few), in chunks of 4.
TEST(CombinedKernelTest, LongRowsGoToSharedMemoryInChunksOf4) {
  for (const bool layerNorm : {true, false}) {
    const CombinedCase c{layerNorm, 8192, 4096};
    SCOPED_TRACE(inputSpec(c));
    const CompiledScript compiled = compileScript(
        test_scripts::definition(test_scripts::normBackwardWithWeights(c.rows, c.cols, layerNorm)),
        inputSpec(c));
    const std::vector<GeneratedKernel> kernels = expectKernelsCompile(compiled, "inner_persistent");
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_TRUE(contains(kernels[0].source, "kept in shared memory as 8 chunks of 4 per thread"))
        << kernels[0].source;
    EXPECT_EQ(kernels[0].launch.grid[0], 132 * 4);
  }
}

}  // namespace
}  // namespace fuserlab::codegen
