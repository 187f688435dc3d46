// Inner persistent rows split over a thread-block cluster (grid_dim_y > 1
// with cluster_reduction, sm_90+): the launch, which block takes which
// share of a row, the combine of the blocks' partials in rank order, which
// block writes the per-row outputs and the shifted rows' head and tail, and
// a split the checks refuse.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::PersistentStorage;
using scheduler::ReductionParams;
using Pinned = PinnedParams<ReductionParams>;

const std::string kLayerNorm = script(
    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, "
    "is_cpu=False)\n"
    "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
    "    T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=True)\n"
    "    T4 = fd.ops.rsqrt(fd.ops.add(T2, 1e-05))\n"
    "    T5 = fd.ops.mul(fd.ops.sub(T1, T3), T4)\n"
    "    fd.add_output(fd.ops.cast(T5, dtype=DataType.Half))\n"
    "    fd.add_output(T3)\n");

ReductionParams split(int64_t rows, int64_t length, int64_t vectorize, int64_t threads,
                      int64_t ranks, bool shifted) {
  ReductionParams p;
  p.fastestDimReduction = true;
  p.persistentKernel = true;
  p.vectorizationFactor = vectorize;
  p.blockDimX = threads;
  p.persistentBatchSize =
      scheduler::ceilDiv(scheduler::rowChunks(length, vectorize, shifted), threads * ranks);
  p.gridDimX = rows;
  p.gridDimY = ranks;
  p.crossBlockReduction = true;
  p.crossGridReduction = true;
  p.clusterReduction = true;
  return p;
}

TEST(ClusterRowsTest, EachBlockOfTheClusterTakesItsShareOfTheRow) {
  // 40960-element rows in chunks of 8 over 4 blocks of 256 threads: 5
  // chunks a thread, block y from chunk y * 1280.
  const Pinned pinned(scheduler::SchedulerType::InnerPersistent,
                      split(64, 40960, 8, 256, 4, false));
  const CompiledScript compiled = compileScript(kLayerNorm, "64x40960:f16", &pinned, "h200");
  EXPECT_EQ(compiled.compiled.report.segments.at(0).paramsNote, "");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{64, 4, 1}));
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 4, 1}));
  EXPECT_TRUE(contains(k.source, "__cluster_dims__(1, 4, 1)")) << k.source;
  EXPECT_TRUE(contains(k.source,
                       "const index_t c = (index_t)blockIdx.y * 1280 + b * 256 + "
                       "(index_t)threadIdx.x;"))
      << k.source;
  // Every step's block total is combined over the cluster, each in its own
  // exchange slots.
  EXPECT_EQ(count(k.source, "fl::red::cluster_row_allreduce<1, 4>("), 2) << k.source;
  EXPECT_TRUE(contains(k.source, "acc_T2_xch = reinterpret_cast<float*>(fl_smem + ")) << k.source;
  // Rank 0 alone writes the mean.
  EXPECT_TRUE(contains(k.source, "if (threadIdx.x == 0 && blockIdx.y == 0 && row_ok) T7.data["))
      << k.source;
  EXPECT_NO_THROW(runtime::compileWithNvrtc(k, 90)) << k.source;
}

TEST(ClusterRowsTest, ShiftedRowsLeaveTheirHeadAndTailToRankZero) {
  // 39690 elements (not a multiple of 4): 9922 whole chunks over 8 blocks.
  const Pinned pinned(scheduler::SchedulerType::InnerPersistent, split(5, 39690, 4, 256, 8, true));
  const CompiledScript compiled = compileScript(kLayerNorm, "5x39690:f16", &pinned, "h200");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 8, 1}));
  EXPECT_TRUE(contains(k.source, "const bool ok = row_ok && e < extra && blockIdx.y == 0;"))
      << k.source;
  EXPECT_NO_THROW(runtime::compileWithNvrtc(k, 90)) << k.source;
}

TEST(ClusterRowsTest, TheSplitIsRefusedWithoutItsCluster) {
  // grid_dim_y 4 without cluster_reduction: the checks refuse the pinned
  // params, and the kernel is the heuristic's, each row in one block.
  ReductionParams p = split(64, 40960, 8, 256, 4, false);
  p.clusterReduction = false;
  const Pinned pinned(scheduler::SchedulerType::InnerPersistent, p);
  const CompiledScript compiled = compileScript(kLayerNorm, "64x40960:f16", &pinned, "h200");
  EXPECT_NE(compiled.compiled.report.segments.at(0).paramsNote.find(
                "grid_dim_y 4 splits each row over blocks, which an inner persistent kernel does "
                "only in a thread-block cluster, but cluster_reduction is not set"),
            std::string::npos)
      << compiled.compiled.report.segments.at(0).paramsNote;
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.grid[1], 1) << k.source;
  EXPECT_FALSE(contains(k.source, "cluster_row_allreduce<")) << k.source;
}

TEST(ClusterRowsTest, SplitsOfEveryShapeCompile) {
  // The GPU test's shapes (tests/gpu/test_gpu_cluster_rows.cpp): two rows a
  // block with the last past the rows, rows in shared memory, clusters of 2
  // to 8; and a softmax, whose max and sum of exps combine in two passes.
  const std::string softmax = script(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.max(T1, dims=[1], keepdim=True)\n"
      "    T3 = fd.ops.exp(fd.ops.sub(T1, T2))\n"
      "    T4 = fd.ops.sum(T3, dims=[1], keepdim=True)\n"
      "    fd.add_output(fd.ops.cast(fd.ops.div(T3, T4), dtype=DataType.BFloat16))\n");
  struct Case {
    const std::string* source;
    int64_t rows, length, vectorize, threadsX, threadsY, ranks;
    PersistentStorage storage;
  };
  const auto R = PersistentStorage::Registers;
  for (const Case& c :
       {Case{&kLayerNorm, 7, 1000, 4, 64, 2, 2, R}, Case{&kLayerNorm, 10, 40960, 8, 256, 1, 5, R},
        Case{&kLayerNorm, 6, 12288, 4, 128, 1, 3, PersistentStorage::SharedMemory},
        Case{&softmax, 9, 16384, 8, 256, 1, 4, R}, Case{&softmax, 11, 3001, 8, 64, 1, 2, R}}) {
    const bool shifted = c.storage == R && c.length % c.vectorize != 0;
    ReductionParams p = split(c.rows, c.length, c.vectorize, c.threadsX, c.ranks, shifted);
    p.blockDimY = c.threadsY;
    p.gridDimX = scheduler::ceilDiv(c.rows, c.threadsY);
    p.persistentStorage = c.storage;
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.length) + " " + p.toString());
    const Pinned pinned(scheduler::SchedulerType::InnerPersistent, p);
    const std::string dtype = c.source == &kLayerNorm ? ":f16" : ":bf16";
    const CompiledScript compiled =
        compileScript(*c.source, std::to_string(c.rows) + "x" + std::to_string(c.length) + dtype,
                      &pinned, "h200");
    EXPECT_EQ(compiled.compiled.report.segments.at(0).paramsNote, "");
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, c.ranks, 1}));
    EXPECT_NO_THROW(runtime::compileWithNvrtc(k, 90)) << k.source;
  }
}

}  // namespace
}  // namespace fuserlab::codegen
