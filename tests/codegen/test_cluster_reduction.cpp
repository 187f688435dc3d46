// The outer reduction's cluster combine on sm_90 (ReductionParams
// cluster_reduction): the launch and its bounds, the block reduction into
// thread row 0 before the push into rank 0's shared memory, which barriers
// it needs, and how rank 0 adds the blocks' partials.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/reduction/reduction_scheduler.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/test_scripts.h"

namespace fuserlab::codegen {
namespace {

// The heuristic's reduction params with the row split multiplied by `factor`.
class MoreRowSplits : public scheduler::HeuristicProvider {
 public:
  explicit MoreRowSplits(int64_t factor) : factor_(factor) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    if (type != scheduler::SchedulerType::Reduction) return std::nullopt;
    auto params = std::get<scheduler::ReductionParams>(
        scheduler::ReductionScheduler().computeHeuristics(segment, info));
    params.gridDimY *= factor_;
    return scheduler::ProvidedParams{params, "test"};
  }

 private:
  int64_t factor_;
};

TEST(ClusterReductionTest, OuterSplitCombinesInAClusterOnHopper) {
  // The suite's col_sum: on an H100 the 8 blocks splitting a column group
  // are one thread-block cluster and read each other's partials from shared
  // memory (no workspace, fence or semaphore); on an A100 the same fusion
  // keeps the workspace and the last block's combine.
  const CompiledScript hopper = compileScript(test_scripts::kColSum, "8192x4096:bf16");
  const GeneratedKernel& k = onlyKernel(hopper);
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{32, 8, 1}));
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 8, 1}));
  EXPECT_EQ(k.workspaceBytes, 0);
  // The launch bounds say the blocks per SM that keep the 256 blocks
  // resident at once (2 on 132 SMs).
  EXPECT_TRUE(contains(k.source,
                       "__launch_bounds__(256, 2) __cluster_dims__(1, 8, 1) "
                       "reduction_seg0("))
      << k.source;
  // The block's sums end in thread row 0 only, which pushes them. No
  // thread writes the block reduction's shared memory after it (rank 0
  // meets at a __syncthreads before its combine), so col_reduce leaves out
  // its last __syncthreads.
  EXPECT_TRUE(contains(k.source, "fl::red::col_reduce<16, 16, 8, 8, false>(acc_T2, ")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::red::col_allreduce<16")) << k.source;
  // Rank 0's mbarrier is set up before the loop, and the cluster barrier
  // that publishes it is only waited on after the loop.
  EXPECT_TRUE(contains(k.source,
                       "__shared__ __align__(16) float acc_T2_part[1024];\n"
                       "  __shared__ __align__(8) unsigned long long fl_cluster_bar;\n"
                       "  fl::red::rank0_mbarrier_init(&fl_cluster_bar);\n"
                       "  for (index_t group = blockIdx.x;"))
      << k.source;
  // Each other block stores its 16 x 8 partials into rank 0's shared
  // memory by st.async (a thread's 8 contiguous: two 16-byte pieces) and is
  // done, with no closing cluster barrier.
  EXPECT_TRUE(contains(k.source, "fl::red::cluster_wait();\n    if (fl_rank != 0u) {")) << k.source;
  EXPECT_TRUE(contains(k.source,
                       "if (threadIdx.y == 0) {\n"
                       "        fl::red::store_async_rank0(&acc_T2_part[fl_rank * 128 + "
                       "threadIdx.x * 8], acc_T2, &fl_cluster_bar);\n"
                       "      }\n      continue;"))
      << k.source;
  EXPECT_FALSE(contains(k.source, "fl::red::cluster_sync();")) << k.source;
  // Rank 0 stores its own into slot 0 and waits for the other 7 x 16 x 8
  // floats; then it adds them in rank order, one thread per column (128
  // threads, consecutive columns), each storing its own.
  EXPECT_TRUE(contains(k.source, "acc_T2_part[threadIdx.x * 8 + s] = acc_T2[s];")) << k.source;
  EXPECT_TRUE(contains(k.source,
                       "if (threadIdx.x == 0) fl::red::rank0_expect(&fl_cluster_bar, "
                       "3584u);\n    }\n    __syncthreads();\n"
                       "    fl::red::rank0_wait(&fl_cluster_bar);"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "if (fl_t >= 128) continue;")) << k.source;
  EXPECT_TRUE(contains(k.source, "const index_t fl_col = fl_cc * 8 + fl_s % 8;")) << k.source;
  EXPECT_TRUE(contains(k.source,
                       "for (int i = 0; i < 8; ++i) acc_T2[0] = (acc_T2[0] + "
                       "acc_T2_part[i * 128 + fl_x * 8 + fl_s]);"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "if (true && fl_col_ok) T2.data[(fl_col)] = ")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());

  const CompiledScript ampere =
      compileScript(test_scripts::kColSum, "8192x4096:bf16", nullptr, "a100");
  const GeneratedKernel& a = onlyKernel(ampere);
  EXPECT_EQ(a.launch.cluster, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_GT(a.workspaceBytes, 0);
  EXPECT_TRUE(contains(a.source, "fl::red::arrive_last(")) << a.source;
  EXPECT_FALSE(contains(a.source, "__cluster_dims__(1")) << a.source;
  // The workspace split keeps col_allreduce. Its grid (64 x 13 blocks) is
  // one wave on the A100's 108 SMs, 8 blocks of 128 threads each, and the
  // launch bounds say so, so ptxas keeps to the registers that lets.
  EXPECT_TRUE(contains(a.source, "__launch_bounds__(128, 8) reduction_seg0(")) << a.source;
  EXPECT_TRUE(contains(a.source, "fl::red::col_allreduce<8, 16, 8, 8>(acc_T2, ")) << a.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(a, 80).cubin.empty());
}

TEST(ClusterReductionTest, OnlyTheLastBlockReductionBeforeTheClusterBarrierSkipsItsSync) {
  // Two reductions (a Welford and a max) share the block's shared memory:
  // the first (col_welford, whose last pass is a col_reduce) keeps its
  // closing __syncthreads, since the second writes the same memory; the
  // second is followed by the cluster's combine. Both push their partials
  // by st.async: rank 0 of a cluster of 4 expects 3 x 16 x 4 Welford
  // structs (16 bytes) and floats.
  const CompiledScript compiled = compileScript(
      script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
             "dtype=DataType.Float, is_cpu=False)\n"
             "    T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)\n"
             "    T3 = fd.ops.max(T0, dims=[0], keepdim=False, dtype=DataType.Null)\n"
             "    fd.add_output(T1)\n"
             "    fd.add_output(T2)\n"
             "    fd.add_output(T3)\n"),
      "8192x4096:f32");
  const GeneratedKernel& k = onlyKernel(compiled);
  ASSERT_EQ(k.launch.cluster[1], k.launch.grid[1]) << k.source;
  // (Its rows tile every block's range: the closing sync stated, then EQUAL.)
  EXPECT_TRUE(
      contains(k.source, "fl::red::col_welford<16, 16, 4, 4, 4, false, true, true>(acc_T1, "))
      << k.source;
  EXPECT_EQ(count(k.source, "fl::red::col_reduce<"), 1) << k.source;
  const size_t syncless = k.source.find("fl::red::col_reduce<16, 16, 4, 4, false>(acc_T5, ");
  ASSERT_NE(syncless, std::string::npos) << k.source;
  EXPECT_LT(k.source.find("fl::red::col_welford<"), syncless);
  const size_t barrier = k.source.find("fl::red::cluster_wait();");
  ASSERT_NE(barrier, std::string::npos) << k.source;
  EXPECT_LT(syncless, barrier);
  EXPECT_TRUE(contains(k.source, "fl::red::store_async_rank0(&acc_T1_part[")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::red::store_async_rank0(&acc_T5_part[")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::red::rank0_expect(&fl_cluster_bar, 3840u);")) << k.source;
  EXPECT_EQ(k.source.find("fl::red::col_reduce<", syncless + 1), std::string::npos) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST(ClusterReductionTest, ClusterRankZeroKeepsRowZeroWhereColumnValuesComeFirst) {
  // A per-column input read before the reduction (sum(x, 0) * w) sits in
  // each thread's own slots, so rank 0's thread row 0 adds its own columns'
  // partials (not one thread per column).
  const CompiledScript compiled =
      compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                           "dtype=DataType.BFloat16, is_cpu=False)\n"
                           "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], "
                           "dtype=DataType.Float, is_cpu=False)\n"
                           "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
                           "    T3 = fd.ops.sum(T2, dims=[0], keepdim=False, dtype=DataType.Null)\n"
                           "    T4 = fd.ops.mul(T3, T1)\n"
                           "    fd.add_output(T4)\n"),
                    "8192x4096:bf16,4096:f32");
  const GeneratedKernel& k = onlyKernel(compiled);
  ASSERT_GT(k.launch.cluster[1], 1) << k.source;
  EXPECT_FALSE(contains(k.source, "fl_t")) << k.source;
  EXPECT_TRUE(contains(k.source, "acc_T3[s] = (acc_T3[s] + acc_T3_part[i * ")) << k.source;
  EXPECT_TRUE(contains(k.source, "if (threadIdx.y == 0 && col_ok[s / ")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

// An outer workspace split is one wave of 8 blocks of 128 threads per SM,
// and its launch bounds say so (var_mean f32 [16384, 1024], when it split
// through the workspace, took 72 registers without them, so 7 blocks fit
// and the rest ran in a second wave; docs/performance.md). A grid of twice
// the splits would leave ptxas 32 registers a thread, so it gets no bound.
TEST(ClusterReductionTest, OuterWorkspaceSplitBoundsItsRegistersToOneWave) {
  const CompiledScript heuristic = compileScript(test_scripts::kColSum, "16384x1024:bf16");
  const GeneratedKernel& k = onlyKernel(heuristic);
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{16, 64, 1}));
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_TRUE(contains(k.source, "__launch_bounds__(128, 8) reduction_seg0(")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());

  const MoreRowSplits doubled(2);
  const CompiledScript twoWaves = compileScript(test_scripts::kColSum, "16384x1024:bf16", &doubled);
  const GeneratedKernel& w = onlyKernel(twoWaves);
  EXPECT_EQ(w.launch.grid, (std::array<int64_t, 3>{16, 128, 1}));
  EXPECT_TRUE(contains(w.source, "__launch_bounds__(128) reduction_seg0(")) << w.source;
}

}  // namespace
}  // namespace fuserlab::codegen
