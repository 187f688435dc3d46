// One-pass Welford (var_mean) in reduction kernels: a row goes to at most
// 128 threads, each folding chunks of unrolled vector loads into its
// accumulator (the chunk's sum, its mean, its squared deviations, one
// welford_combine) instead of a welford_update with a division per element;
// where a thread's share of the row is one step of the loop, two passes over
// its registers (the row's mean, then its squared deviations) instead.
// tests/gpu (GpuReductionTest.VarMeanFarFromZero*) checks the numerics.
#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

const char* const kVarMean =
    "from nvfuser import FusionDefinition, DataType\n"
    "def f(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.Float, is_cpu=False)\n"
    "    T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=False)\n"
    "    fd.add_output(T1)\n"
    "    fd.add_output(T2)\n";

TEST(WelfordChunksTest, VarMeanFoldsChunksOfThirtyTwoWithoutPerElementDivision) {
  // 32768 floats a row, more than 512 threads' chunks: 128 threads fold
  // eight steps of the chunk loop (rows of up to 16384 are held whole and
  // take two passes, below).
  const CompiledScript compiled = compileScript(kVarMean, "512x32768:f32");
  const GeneratedKernel& k = onlyKernel(compiled);
  // 128 threads per row, each with 8 unrolled float4 loads: a chunk of 32.
  EXPECT_EQ(k.launch.block[0], 128);
  EXPECT_EQ(k.launch.block[1], 1);
  EXPECT_TRUE(contains(k.source, "float wf_T1[8][1][4];")) << k.source;
  EXPECT_TRUE(contains(k.source, "wf_T1[u][k][v] = ")) << k.source;
  EXPECT_TRUE(contains(k.source, "acc_T1[k] = fl::welford_combine(acc_T1[k], w);")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::welford_update(")) << k.source;
  for (int arch : {80, 90}) {
    EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty());
  }
}

TEST(WelfordChunksTest, OddRowsAndGridSplitsFoldOnlyTheirValidChunks) {
  // An odd row length (no vectorization; the chunk is the unrolled scalar
  // loads, the row's tail masked) and a few long rows split over blocks.
  for (const char* sizes : {"513x2049:f32", "4x1048576:f32"}) {
    const CompiledScript compiled = compileScript(kVarMean, sizes);
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_LE(k.launch.block[0], 128) << sizes;
    EXPECT_TRUE(contains(k.source, "if (!(row_ok[k] && c0 + u * ")) << sizes << "\n" << k.source;
    EXPECT_TRUE(contains(k.source, "fl::welford_combine(acc_T1[k], w)")) << sizes << "\n"
                                                                         << k.source;
    EXPECT_FALSE(contains(k.source, "fl::welford_update(")) << sizes;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty()) << sizes;
  }
}

// The block holds each row whole (each thread's share in one step of the
// chunk loop): the mean from the block's sum, then m2 from the block's sum
// of squared deviations, two float allreduces and no Welford combine; at
// 2048x1000 (64 x 2 threads, 250 chunks of 4 for 256 places) the chunks
// past the row's end stay out of both sums, and the count is the row's.
TEST(WelfordChunksTest, RowsHeldWholeTakeTwoPassesOverTheirRegisters) {
  struct Case {
    const char* sizes;
    const char* threads;
    const char* length;
    bool masked;
  };
  for (const Case& c : {Case{"8192x4096:f32", "128, 1", "4096", false},
                        Case{"2048x1000:f32", "64, 2", "1000", true}}) {
    SCOPED_TRACE(c.sizes);
    const CompiledScript compiled = compileScript(kVarMean, c.sizes);
    const GeneratedKernel& k = onlyKernel(compiled);
    const std::string& src = k.source;
    const std::string allreduce = std::string("fl::red::row_allreduce<") + c.threads + ">(";
    EXPECT_TRUE(contains(src, "const float mean = " + allreduce +
                                  "sum, fl::SumOp<float>(), reinterpret_cast<float*>(fl_smem)) / "
                                  "(float)" +
                                  c.length + ";"))
        << src;
    EXPECT_TRUE(contains(src, "{ const float d = wf_T1[u][k][v] - mean; m2 += d * d; }")) << src;
    EXPECT_TRUE(contains(src, "acc_T1[k].m2 = " + allreduce + "m2, fl::SumOp<float>()")) << src;
    EXPECT_TRUE(contains(src, std::string("acc_T1[k].n = ") + c.length + ";")) << src;
    EXPECT_FALSE(contains(src, "fl::welford_combine(acc_T1[k], w)")) << src;
    EXPECT_FALSE(contains(src, allreduce + "acc_T1[k]")) << src;
    EXPECT_EQ(contains(src, "if (!((index_t)threadIdx.x + u * 64 < c_end)) continue;"), c.masked)
        << src;
    for (int arch : {80, 90}) {
      EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty());
    }
  }
}

// var_mean over the outer axis: each of a thread's columns folds the rows
// of a loop step as one chunk (a division per step and column group, not
// per element or lane), at
// the suite's shape (cluster split, exact tiles) and at an odd one (rows
// past the block's range skipped). Where the rows tile every block's range
// (8192x4096), every chunk holds the step's rows, and the chunks fold as
// shifted sums with no division a step; an odd shape keeps the Chan fold.
TEST(WelfordChunksTest, OuterVarMeanFoldsEachColumnsRowsOfAStep) {
  const char* const outer =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)\n"
      "    fd.add_output(T1)\n"
      "    fd.add_output(T2)\n";
  for (const char* sizes : {"8192x4096:f32", "3000x771:f32"}) {
    SCOPED_TRACE(sizes);
    const CompiledScript compiled = compileScript(outer, sizes);
    const GeneratedKernel& k = onlyKernel(compiled);
    const std::string& src = k.source;
    EXPECT_FALSE(contains(src, "fl::welford_update(")) << src;
    EXPECT_TRUE(contains(src, "wf_T1[u][k][v] = ")) << src;
    EXPECT_TRUE(contains(src, "const float d = wf_T1[u][k][v] - c_avg[v];")) << src;
    // The lanes of a column group share one count: one fold of all of them
    // (one conversion and one division, or none), not a welford_combine per
    // lane.
    const bool exact = std::string(sizes) == "8192x4096:f32";
    EXPECT_EQ(contains(src, "fl::welford_fold_lanes(acc_T1, k * "), !exact) << src;
    EXPECT_EQ(contains(src,
                       "fl::shifted_fold_lanes(acc_T1_sh, k * 4, c_avg, c_m2, "
                       "acc_T1_steps[k] == 0);"),
              exact)
        << src;
    EXPECT_EQ(
        contains(src, "fl::shifted_to_welford<4>(acc_T1, k * 4, acc_T1_sh, acc_T1_steps[k], "),
        exact)
        << src;
    EXPECT_FALSE(contains(src, "= fl::welford_combine(acc_T1[k * ")) << src;
    // Generated for the H100 (a cluster split at 8192x4096): sm_90 only.
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  }
  const CompiledScript odd = compileScript(outer, "3000x771:f32");
  EXPECT_TRUE(contains(onlyKernel(odd).source, "if (!(col_ok[k] && j0 + u * "))
      << onlyKernel(odd).source;
}

// Outer var_mean after the loop: the block's rows, a cluster's blocks and a
// workspace split's partials combine in two passes of plain sums (the
// count and sum of n * avg, then m2 plus n times the squared distance from
// the mean), not Chan combines with a division and 64-bit counts per step.
// Where the rows tile every block's range, the counts are equal and only
// the means are summed (EQUAL in col_welford and welford_merge).
TEST(WelfordChunksTest, OuterVarMeanCombinesBlocksAndSplitsInTwoPassesOfSums) {
  const std::string outer = script(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)\n"
      "    fd.add_output(T1)\n"
      "    fd.add_output(T2)\n");
  // A cluster split: row 0 ends with the block's statistics (the last pass a
  // col_reduce without its closing sync, the cluster barrier follows); rank
  // 0 merges the blocks' in rank order.
  const CompiledScript clustered = compileScript(outer, "8192x4096:f32");
  const GeneratedKernel& cluster = onlyKernel(clustered);
  ASSERT_GT(cluster.launch.cluster[1], 1) << cluster.source;
  // Its rows tile every block's range: every thread row counted the same
  // rows, so no pass over the counts (EQUAL).
  EXPECT_TRUE(contains(cluster.source,
                       "fl::red::col_welford<16, 16, 4, 4, 4, false, false, true>(acc_T1, "))
      << cluster.source;
  EXPECT_TRUE(
      contains(cluster.source, "acc_T1[0] = fl::red::welford_merge<false, true>(&acc_T1_part["))
      << cluster.source;
  // A workspace split: every thread gets the block's statistics, thread row
  // y merges partials y, y + 16, ... past L1, then the rows reduce again.
  // (2048 rows: 8 splits, too few blocks for clusters.)
  const CompiledScript split = compileScript(outer, "2048x1024:f32");
  const GeneratedKernel& workspace = onlyKernel(split);
  ASSERT_GT(workspace.workspaceBytes, 0) << workspace.source;
  // The block's rows (which tile its range: EQUAL), then the merged
  // partials, whose counts differ by thread row.
  EXPECT_EQ(
      count(workspace.source, "fl::red::col_welford<8, 16, 4, 4, 4, true, true, true>(acc_T1, "), 1)
      << workspace.source;
  EXPECT_EQ(count(workspace.source, "fl::red::col_welford<8, 16, 4, 4, 4, true>(acc_T1, "), 1)
      << workspace.source;
  EXPECT_LT(workspace.source.find("fl::red::col_welford<8, 16, 4, 4, 4, true, true, true>"),
            workspace.source.find("fl::red::col_welford<8, 16, 4, 4, 4, true>"));
  EXPECT_TRUE(
      contains(workspace.source,
               "acc_T1[s] = fl::red::welford_merge<true, true>(&acc_T1_part[(index_t)threadIdx.y * "
               "1024 + col[s / 4] + s % 4], (int64_t)16 * 1024, (8 - (int)threadIdx.y + "
               "16 - 1) / 16);"))
      << workspace.source;
  // Rows past a block's range (3000 rows in 5 splits of 600, not a
  // multiple of 16 x 16 rows a step): the counts differ, so the block
  // combine sums counts and rank 0 merges by them.
  const CompiledScript oddRows = compileScript(outer, "3000x771:f32");
  const GeneratedKernel& odd = onlyKernel(oddRows);
  ASSERT_GT(odd.launch.cluster[1], 1) << odd.source;
  EXPECT_TRUE(contains(odd.source, "fl::red::col_welford<16, 16, 1, 1, 1, false, false>(acc_T1, "))
      << odd.source;
  EXPECT_TRUE(contains(odd.source, "acc_T1[0] = fl::red::welford_merge<false>(&acc_T1_part["))
      << odd.source;
  for (const GeneratedKernel* k : {&cluster, &workspace, &odd}) {
    EXPECT_FALSE(contains(k->source, "fl::red::WelfordOp<float>(), ")) << k->source;
    EXPECT_FALSE(runtime::compileWithNvrtc(*k, 90).cubin.empty());
  }
}

TEST(WelfordChunksTest, BFloat16InputChunksAreEightVectorsOfFour) {
  // bf16 vectorizes by 8: four unrolled vectors make the chunk of 32.
  const std::string script =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=False)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n";
  const CompiledScript compiled = compileScript(script, "1024x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.block[0], 128);
  EXPECT_TRUE(contains(k.source, "float wf_T2[4][1][8];")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::welford_update(")) << k.source;
}

// Rows enough for a block an SM (132 on an H100) but too few for 512
// threads an SM at 128 threads a row: wider rows, while each thread keeps
// two chunks or more (GroupNorm fp16 [8, 320, 63, 63]'s 256 rows of
// 39,690 on an H200: 19.2 -> 13.2 us). 512 rows and more keep 128 threads.
TEST(WelfordChunksTest, RowsTooFewToFillTheSmsTakeWiderBlocks) {
  struct Case {
    const char* sizes;
    int64_t threads;
  };
  for (const Case& c :
       {Case{"256x39690:f32", 256}, Case{"140x39690:f32", 256}, Case{"132x39690:f32", 512},
        Case{"512x39690:f32", 128}, Case{"256x2048:f32", 128}}) {
    SCOPED_TRACE(c.sizes);
    const CompiledScript compiled = compileScript(kVarMean, c.sizes);
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_EQ(k.launch.block[0], c.threads);
    EXPECT_FALSE(contains(k.source, "fl::welford_update(")) << k.source;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  }
}

}  // namespace
}  // namespace fuserlab::codegen
