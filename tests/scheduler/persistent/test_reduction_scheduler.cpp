// ReductionSchedulerTest: plain reductions (inner and outer), the refusal of
// anything that needs a persistent buffer, and the params checks.
#include <gtest/gtest.h>

#include "core/scheduler/reduction/reduction_scheduler.h"
#include "tests/scheduler/persistent/bound_segment.h"
#include "tests/test_scripts.h"

namespace fuserlab::scheduler {
namespace {

using persistent_test::BoundSegment;
using persistent_test::h100;

using test_scripts::kColSum;

class ReductionSchedulerTest : public ::testing::Test {
 protected:
  ReductionParams accepted(const BoundSegment& b) {
    EXPECT_EQ(scheduler_.rejectCompileTime(b.fusion()), std::nullopt);
    EXPECT_EQ(scheduler_.rejectRunTime(b.fusion(), b.info()), std::nullopt);
    const HeuristicParams params = scheduler_.computeHeuristics(b.fusion(), b.info());
    EXPECT_EQ(scheduler_.rejectParams(b.fusion(), b.info(), params), std::nullopt);
    return std::get<ReductionParams>(params);
  }

  ReductionScheduler scheduler_;
};

TEST_F(ReductionSchedulerTest, InnerSumOfOddRows) {
  auto segment = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  const ReductionParams p = accepted(*segment);
  EXPECT_FALSE(p.persistentKernel);
  EXPECT_TRUE(p.fastestDimReduction);
  // Rows of 1023 floats: no vector width divides them; unrolling keeps
  // loads in flight instead, twice as many as vectorized rows take: 128
  // threads with 8 loads each (256 with 4 was 0.3 us slower on an H100).
  EXPECT_EQ(p.vectorizationFactor, 1);
  EXPECT_EQ(p.blockDimX, 128);
  EXPECT_EQ(p.unrollFactorReduction, 8);
  EXPECT_EQ(p.gridDimX * p.blockDimY, 2048);
  EXPECT_FALSE(p.crossGridReduction);
  const std::string json = scheduler_.properties(segment->fusion(), segment->info()).dump(-1);
  EXPECT_NE(json.find("\"reduction_extent\":1023"), std::string::npos) << json;
  EXPECT_NE(json.find("\"max_allowed_vectorize_factor\":1"), std::string::npos);
}

TEST_F(ReductionSchedulerTest, LongBf16RowsGiveEachThreadFourVectorLoads) {
  // The suite's row_sum, bf16 [8192, 4096] summed over its rows: 128
  // threads per row, each with 4 loads of 8 bf16 in flight (was 512 threads
  // with one load each, 62% of the copy bandwidth on an H100).
  auto segment = BoundSegment::fromExample("tests/perf/suite/row_sum_8192x4096.py", h100());
  const ReductionParams p = accepted(*segment);
  EXPECT_TRUE(p.fastestDimReduction);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 128);
  EXPECT_EQ(p.unrollFactorReduction, 4);
  EXPECT_FALSE(p.crossGridReduction);
}

TEST_F(ReductionSchedulerTest, OuterColumnSumSplitsAcrossBlocks) {
  // [4096, 768] bf16 summed over dim 0: 768 columns cannot fill 132 SMs, so
  // the 4096 rows are split over blocks too. The float sum output moves
  // along the vectorized columns: 16-byte stores hold 4 of them.
  auto segment = BoundSegment::fromExample("resources/examples/outer_reduction.py", h100());
  const ReductionParams p = accepted(*segment);
  EXPECT_FALSE(p.fastestDimReduction);
  EXPECT_EQ(p.vectorizationFactor, 4);
  EXPECT_EQ(p.blockDimY, 8);   // threads along the 768 / 4 column vectors
  EXPECT_EQ(p.blockDimX, 16);  // threads along the reduction
  EXPECT_EQ(p.gridDimX, 24);
  EXPECT_TRUE(p.crossGridReduction);
  EXPECT_GT(p.gridDimY, 1);
}

TEST_F(ReductionSchedulerTest, OuterColumnSumFillsEightBlocksPerSmInOneWave) {
  // The suite's col_sum: bf16 [8192, 4096] over dim 0. 64 blocks of 64
  // columns (8 threads of 8-wide vectors) by 16 threads along the rows; the
  // rows are split so that 8 blocks run per SM, rounded down (1024 blocks:
  // 17 splits would put 32 of 1088 blocks in a second wave), and each
  // thread unrolls 4 rows of 16-byte loads. (It was 32 x 8 threads at 4
  // blocks per SM: 33.7 us against 30.5, H100.) On an A100 (108 SMs, no
  // thread-block clusters).
  const std::optional<DeviceSpec> a100 = findBuiltinDevice("a100");
  ASSERT_TRUE(a100.has_value());
  BoundSegment colSum(kColSum, {{8192, 4096}}, *a100);
  const ReductionParams p = accepted(colSum);
  EXPECT_FALSE(p.fastestDimReduction);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimY, 8);
  EXPECT_EQ(p.blockDimX, 16);
  EXPECT_EQ(p.gridDimX, 64);
  EXPECT_EQ(p.gridDimY, 13);  // floor(8 * 108 / 64)
  EXPECT_TRUE(p.crossGridReduction);
  EXPECT_FALSE(p.clusterReduction);  // sm_80: no clusters
  EXPECT_EQ(p.unrollFactorReduction, 4);
}

TEST_F(ReductionSchedulerTest, OuterColumnSumCombinesInAClusterOnHopper) {
  // The same col_sum on an H100: blocks of 16 column threads (256 bytes of
  // each row) x 16 along the reduction, 8 row splits per column group, one
  // thread-block cluster each (256 blocks, ~2 per SM), combined in the
  // cluster's shared memory instead of 32 splits through a workspace.
  BoundSegment colSum(kColSum, {{8192, 4096}}, h100());
  const ReductionParams p = accepted(colSum);
  EXPECT_EQ(p.blockDimY, 16);
  EXPECT_EQ(p.blockDimX, 16);
  EXPECT_EQ(p.gridDimX, 32);
  EXPECT_EQ(p.gridDimY, 8);
  EXPECT_TRUE(p.crossGridReduction);
  EXPECT_TRUE(p.clusterReduction);
  EXPECT_EQ(p.unrollFactorReduction, 4);
  // Wider: as many splits as keep the grid within 512 threads per SM (one
  // wave of clusters): 64 column groups in clusters of 4, 128 in clusters
  // of 2.
  BoundSegment wide(kColSum, {{2048, 8192}}, h100());
  const ReductionParams w = accepted(wide);
  EXPECT_EQ(w.blockDimY, 16);
  EXPECT_EQ(w.gridDimX, 64);
  EXPECT_EQ(w.gridDimY, 4);
  EXPECT_TRUE(w.clusterReduction);
  BoundSegment wider(kColSum, {{4096, 16384}}, h100());
  const ReductionParams v = accepted(wider);
  EXPECT_EQ(v.gridDimX, 128);
  EXPECT_EQ(v.gridDimY, 2);
  EXPECT_TRUE(v.clusterReduction);
  // 1024 columns: no cluster split of either block width leaves 256
  // threads per SM; the narrow blocks' wider workspace split stays.
  BoundSegment narrow(kColSum, {{16384, 1024}}, h100());
  const ReductionParams q = accepted(narrow);
  EXPECT_EQ(q.blockDimY, 8);
  EXPECT_EQ(q.gridDimX, 16);
  EXPECT_GT(q.gridDimY, 8);
  EXPECT_FALSE(q.clusterReduction);
}

TEST_F(ReductionSchedulerTest, PropertiesSayWhyTheSplitIsOrIsNotACluster) {
  // The report's properties carry the heuristic's reason, for inspect and
  // the workbench.
  auto choice = [&](const BoundSegment& b) {
    const report::Json json = scheduler_.properties(b.fusion(), b.info());
    const report::Json* why = json.get("cluster_reduction_choice");
    return why == nullptr ? std::string("(none)") : why->asString();
  };
  EXPECT_EQ(choice(BoundSegment(kColSum, {{8192, 4096}}, h100())),
            "clusters of 8 (32 column groups x 8 = 256 blocks of 256 threads, 256 to 512 "
            "threads per SM) combine in shared memory instead of 32 splits through the "
            "workspace");
  // Neither block width takes a cluster: the reason is the narrow one's.
  EXPECT_EQ(choice(BoundSegment(kColSum, {{16384, 1024}}, h100())),
            "clusters of 8 (16 column groups x 8 = 128 blocks of 128 threads) leave under "
            "256 threads per SM: 64 splits through the workspace");
  EXPECT_EQ(choice(BoundSegment(kColSum, {{4096, 32768}}, h100())),
            "clusters of 1 (512 column groups x 1 = 512 blocks of 128 threads, at most 512 "
            "threads per SM) split too little: 2 splits through the workspace");
  const std::optional<DeviceSpec> a100 = findBuiltinDevice("a100");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(choice(BoundSegment(kColSum, {{8192, 4096}}, *a100)),
            "sm_80 has no thread-block clusters: 13 splits through the workspace");
  // Inner reductions: no such choice.
  auto inner = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  EXPECT_EQ(choice(*inner), "(none)");
}

TEST_F(ReductionSchedulerTest, ClusterReductionChecks) {
  BoundSegment colSum(kColSum, {{8192, 4096}}, h100());
  const ReductionParams good = accepted(colSum);
  ASSERT_TRUE(good.clusterReduction);
  const ir::Fusion& f = colSum.fusion();

  ReductionParams p = good;
  p.gridDimY = 32;
  EXPECT_EQ(scheduler_.rejectParams(f, colSum.info(), p),
            "cluster_reduction is set, but grid_dim_y 32 exceeds the 16 blocks a cluster may "
            "have on NVIDIA H100 SXM5 80GB");
  p = good;
  p.gridDimY = 1;
  p.crossGridReduction = false;
  EXPECT_EQ(scheduler_.rejectParams(f, colSum.info(), p),
            "cluster_reduction is set, but the reduction is not split across "
            "blocks (grid_dim_y 1)");

  const std::optional<DeviceSpec> a100 = findBuiltinDevice("a100");
  ASSERT_TRUE(a100.has_value());
  BoundSegment onA100(kColSum, {{8192, 4096}}, *a100);
  EXPECT_EQ(scheduler_.rejectParams(onA100.fusion(), onA100.info(), good),
            "cluster_reduction is set, but NVIDIA A100 SXM4 80GB (sm_80) has no "
            "thread-block clusters (sm_90 and later)");

  // Inner reductions combine through the workspace only.
  auto inner = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  ReductionParams r = accepted(*inner);
  r.gridDimY = 2;
  r.crossGridReduction = true;
  r.clusterReduction = true;
  EXPECT_EQ(scheduler_.rejectParams(inner->fusion(), inner->info(), r),
            "cluster_reduction is set, but an inner reduction kernel does not split its rows "
            "over a cluster (outer reduction and persistent kernels do)");
}

TEST_F(ReductionSchedulerTest, ReductionResultOutputsDoNotLimitVectorization) {
  // The sum, broadcast back ([128, 1]), is written one element per row: it
  // must not drop the bf16 rows' factor to 1. The float copy T2 (written
  // whole, as seed 000's forwarded reduction segment does) limits it to 4.
  const std::string head =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.set(T1)\n"
      "    T3 = fd.ops.sum(T2, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    fd.add_output(T3)\n";
  BoundSegment rowSums(head, {{128, 1024}}, h100());
  EXPECT_EQ(accepted(rowSums).vectorizationFactor, 8);
  BoundSegment withCopy(head + "    fd.add_output(T2)\n", {{128, 1024}}, h100());
  EXPECT_EQ(accepted(withCopy).vectorizationFactor, 4);
}

TEST_F(ReductionSchedulerTest, WelfordStatistics) {
  auto segment = BoundSegment::fromExample("resources/examples/welford.py", h100());
  const ReductionParams p = accepted(*segment);
  EXPECT_TRUE(p.fastestDimReduction);
  EXPECT_EQ(p.vectorizationFactor, 1);  // rows of 2047
}

// var_mean over rows of up to 512 chunks of 32 elements, with rows enough
// to fill the SMs: one chunk per thread (the row held whole, two passes in
// the kernel); longer rows, or too few of them, keep 128 threads folding
// chunks (and split over blocks where the rows are few).
TEST_F(ReductionSchedulerTest, WelfordRowsOfUpTo512ChunksAreHeldWhole) {
  const std::string script = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=False)
    fd.add_output(T1)
    fd.add_output(T2)
)";
  struct Case {
    std::vector<int64_t> sizes;
    int64_t threads, unroll, vectorize, gridY;
  };
  for (const Case& c : {Case{{8192, 4096}, 128, 8, 4, 1}, Case{{4096, 8192}, 256, 8, 4, 1},
                        Case{{4096, 12288}, 512, 6, 4, 1}, Case{{1024, 4099}, 256, 17, 1, 1},
                        Case{{512, 32768}, 128, 8, 4, 1}, Case{{64, 16384}, 128, 8, 4, 2}}) {
    SCOPED_TRACE(std::to_string(c.sizes[0]) + "x" + std::to_string(c.sizes[1]));
    BoundSegment segment(script, {c.sizes}, h100());
    const ReductionParams p = accepted(segment);
    EXPECT_EQ(p.vectorizationFactor, c.vectorize);
    EXPECT_EQ(p.blockDimX, c.threads);
    EXPECT_EQ(p.unrollFactorReduction, c.unroll);
    EXPECT_EQ(p.gridDimY, c.gridY);
  }
}

// An outer var_mean takes at most 4 lanes a thread and tries clusters of
// 16 x 16, 8 x 16 and then 8 x 32 threads (column x row) before a
// workspace split; a column sum of the same shape keeps 8 lanes.
TEST_F(ReductionSchedulerTest, OuterVarMeanTakesFourLanesAndTallerClusterBlocks) {
  const std::string varMean = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=0, keepdim=False)
    fd.add_output(T2)
    fd.add_output(T3)
)";
  struct Case {
    std::vector<int64_t> sizes;
    int64_t columnThreads, rowThreads, gridX, gridY;
    bool cluster;
  };
  // 16 x 16 clusters where they fill 256 to 512 threads an SM, else 8 x 32
  // ([16384, 1024]: 16 and 32 column groups of 8 blocks leave 248 threads
  // an SM in 16 x 16 and 8 x 16 blocks); [2048, 1024] has rows for only 4
  // splits, too few for any cluster, so it goes through the workspace.
  for (const Case& c :
       {Case{{16384, 1024}, 8, 32, 32, 8, true}, Case{{32768, 1024}, 8, 32, 32, 8, true},
        Case{{16384, 2048}, 16, 16, 32, 8, true}, Case{{8192, 4096}, 16, 16, 64, 4, true},
        Case{{2048, 1024}, 8, 16, 32, 8, false}}) {
    SCOPED_TRACE(std::to_string(c.sizes[0]) + "x" + std::to_string(c.sizes[1]));
    BoundSegment segment(varMean, {c.sizes}, h100());
    const ReductionParams p = accepted(segment);
    EXPECT_EQ(p.vectorizationFactor, 4);
    EXPECT_EQ(p.blockDimY, c.columnThreads);
    EXPECT_EQ(p.blockDimX, c.rowThreads);
    EXPECT_EQ(p.gridDimX, c.gridX);
    EXPECT_EQ(p.gridDimY, c.gridY);
    EXPECT_EQ(p.clusterReduction, c.cluster);
  }
  const BoundSegment tall(varMean, {{16384, 1024}}, h100());
  const report::Json json = scheduler_.properties(tall.fusion(), tall.info());
  ASSERT_NE(json.get("cluster_reduction_choice"), nullptr);
  EXPECT_EQ(json.get("cluster_reduction_choice")->asString(),
            "clusters of 8 (32 column groups x 8 = 256 blocks of 256 threads, 256 to 512 threads "
            "per SM) combine in shared memory instead of 32 splits through the workspace "
            "(var_mean: 4 lanes a thread, not 8)");
  const ReductionParams sum = accepted(BoundSegment(kColSum, {{16384, 1024}}, h100()));
  EXPECT_EQ(sum.vectorizationFactor, 8);
  EXPECT_EQ(sum.gridDimY, 64);
  EXPECT_FALSE(sum.clusterReduction);
}

TEST_F(ReductionSchedulerTest, RefusesLayerNormWithPersistentReason) {
  auto segment = BoundSegment::fromExample("resources/examples/layer_norm.py", h100());
  EXPECT_EQ(scheduler_.rejectCompileTime(segment->fusion()),
            "T3 is used both by the reduction T4 and after it by T13: a "
            "persistent buffer is needed (persistent schedulers)");
}

TEST_F(ReductionSchedulerTest, RefusesFullRowsReadAfterTheReduction) {
  // T1 is read only after the sum, so nothing is resident, but combining the
  // sum with full rows is not a reduction kernel's job either.
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T2 = fd.ops.sum(T0, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    T3 = fd.ops.mul(T1, T2)\n"
      "    fd.add_output(T3)\n",
      {{64, 256}, {64, 256}}, h100());
  EXPECT_EQ(scheduler_.rejectCompileTime(segment.fusion()),
            "T4 combines the result of reduction T2, broadcast back along its "
            "reduced axes, with full rows: a reduction kernel ends at its "
            "reduction, so the ops after it belong in a pointwise segment");
}

TEST_F(ReductionSchedulerTest, RefusesSegmentsWithoutReduction) {
  auto segment = BoundSegment::fromExample("resources/examples/silu_mul.py", h100());
  EXPECT_EQ(scheduler_.rejectCompileTime(segment->fusion()), "the segment has no reduction");
}

TEST_F(ReductionSchedulerTest, RejectParamsExplainsInvalidShapes) {
  auto segment = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  const ReductionParams good = accepted(*segment);
  const ir::Fusion& f = segment->fusion();
  const SegmentRuntimeInfo& info = segment->info();

  ReductionParams p = good;
  p.fastestDimReduction = false;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p),
            "fastest_dim_reduction is false, but T0 is reduced over its "
            "innermost axes [1] of a rank-2 tensor");

  p = good;
  p.vectorizationFactor = 4;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p),
            "vectorization_factor 4 exceeds the largest this segment allows, "
            "1 (limited by the innermost reduced extent 1023 is not divisible "
            "by 2)");

  p = good;
  p.gridDimY = 4;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p),
            "grid_dim_y 4 splits the reduction across blocks but "
            "cross_grid_reduction is not set");

  p = good;
  p.gridDimX = 1;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p),
            "the grid covers " + std::to_string(p.blockDimY) +
                " of the 2048 output elements (grid_dim_x * block_dim_y * "
                "unroll_factor_iteration)");

  // Two rows per thread row: half the blocks cover every row.
  p = good;
  p.unrollFactorIteration = 2;
  p.gridDimX = (good.gridDimX + 1) / 2;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p), std::nullopt);

  p = good;
  p.persistentKernel = true;
  EXPECT_TRUE(scheduler_.rejectParams(f, info, p).has_value());

  p = good;
  p.blockDimX = 2048;
  EXPECT_EQ(scheduler_.rejectParams(f, info, p),
            "a block of 2048 x 1 = 2048 threads exceeds the device's 1024");
}

}  // namespace
}  // namespace fuserlab::scheduler
