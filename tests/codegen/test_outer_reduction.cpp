// Outer reductions (col_sum: bf16 [8192, 4096] summed over dim 0): 16-byte
// loads along the kept axis, several rows of them in flight per thread, the
// rows split over enough blocks to fill the SMs, and partial results laid
// out block-major so that the grid's writes and the last block's reads are
// contiguous across a warp (sm_80), or combined in a cluster (sm_90).
#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/test_scripts.h"

namespace fuserlab::codegen {
namespace {

TEST(OuterReductionTest, ColumnSumUnrollsRowsAndFillsTheSms) {
  // On an A100 (108 SMs, no thread-block clusters): the split fills the SMs
  // and the partials go through the workspace.
  const CompiledScript compiled =
      compileScript(test_scripts::kColSum, "8192x4096:bf16", nullptr, "a100");
  const GeneratedKernel& k = onlyKernel(compiled);
  // Columns on threadIdx.x (8 x 8 bf16), rows on threadIdx.y (16); 8
  // blocks of 128 threads per SM, in one wave.
  EXPECT_EQ(k.launch.block[0], 8);
  EXPECT_EQ(k.launch.block[1], 16);
  EXPECT_EQ(k.launch.grid[0], 64);
  EXPECT_GE(k.launch.grid[0] * k.launch.grid[1], 7 * 108);
  EXPECT_LE(k.launch.grid[0] * k.launch.grid[1], 8 * 108);
  // Four rows of 16-byte loads issued before any is summed.
  EXPECT_TRUE(contains(k.source, "fl::Array<fl::bfloat16, 8> T0_ld[4][1];")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::load_vector<8>(T0.data + (col[k]) + (j * 4096))"))
      << k.source;
  // Partials block-major: [blockIdx.y][column].
  EXPECT_TRUE(contains(k.source, "acc_T2_part[(index_t)blockIdx.y * 4096 + col[s / 8] + s % 8] = "))
      << k.source;
  EXPECT_TRUE(contains(k.source, "fl::red::load_cg(&acc_T2_part[i * 4096 + col[s / 8] + s % 8])"))
      << k.source;
  for (int arch : {80, 90}) {
    EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty());
  }
}

TEST(OuterReductionTest, ColumnSumOnHopperSplitsIntoClusters) {
  // On an H100 the same loads in blocks of 16 x 16 threads, and 8 row
  // splits per column group, each group's blocks one cluster (~2 blocks per
  // SM): see ClusterReductionTest.OuterSplitCombinesInAClusterOnHopper.
  const CompiledScript compiled = compileScript(test_scripts::kColSum, "8192x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.block[0], 16);
  EXPECT_EQ(k.launch.block[1], 16);
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{32, 8, 1}));
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 8, 1}));
  EXPECT_TRUE(contains(k.source, "fl::Array<fl::bfloat16, 8> T0_ld[4][1];")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

}  // namespace
}  // namespace fuserlab::codegen
