// PersistentSchedulerTest, the outer persistent scheduler: BatchNorm-like
// normalizations over outer axes, how it splits a column group over blocks
// (a thread-block cluster or grid barriers) and what it refuses.
#include <gtest/gtest.h>

#include "core/scheduler/reduction/launch_shape.h"
#include "tests/scheduler/persistent/persistent_scheduler_fixture.h"

namespace fuserlab::scheduler {
namespace {

using persistent_test::BoundSegment;
using persistent_test::h100;
using persistent_test::PersistentSchedulerTest;
using persistent_test::refusalsText;
using persistent_test::seed000Segment;

TEST_F(PersistentSchedulerTest, BatchNormIsOuterPersistent) {
  auto segment = BoundSegment::fromExample("resources/examples/batch_norm_outer.py", h100());
  std::vector<std::string> refusals;
  ASSERT_EQ(choose(segment->fusion(), segment->info(), &refusals), "outer_persistent")
      << refusalsText(refusals);
  ASSERT_EQ(refusals.size(), 2u);
  EXPECT_EQ(refusals[1],
            "inner_persistent: the reductions are over outer axes [0] of a "
            "rank-2 tensor (T4 reduces T3); inner_persistent normalizes over "
            "the innermost axes only (outer_persistent takes these)");
  const ReductionParams p = heuristic(outer_, *segment);
  EXPECT_TRUE(p.persistentKernel);
  EXPECT_FALSE(p.fastestDimReduction);
  EXPECT_TRUE(p.projectPersistentBuffers);
  EXPECT_EQ(p.vectorizationFactor, 4);
  EXPECT_GE(p.blockDimX * p.persistentBatchSize * p.gridDimY, 16384);
  EXPECT_GE(p.gridDimX * p.blockDimY * p.vectorizationFactor, 128);
  const std::string json = propertiesText(outer_, *segment);
  EXPECT_NE(json.find("\"projected_persistent_buffer_bytes\":32768"), std::string::npos) << json;
}

// The start of a BatchNorm-like script over [rows, cols] bf16: the columns'
// variance T2 and mean T3 (over dim 0), and x - mean as T5.
std::string columnCentered(int64_t rows, int64_t cols) {
  const std::string shape = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=0, keepdim=False)\n"
         "    T4 = fd.ops.broadcast_in_dim(T3, shape=" +
         shape +
         ", broadcast_dims=[1])\n"
         "    T5 = fd.ops.sub(T1, T4)\n";
}

// BatchNorm forward over [20000, 100] bf16: each column group's rows need
// 10 blocks' registers. The H100 starts clusters of 16 (non-portable), so
// the 10 blocks are one cluster; an sm_90 GPU that starts only the portable
// 8 has them meet at grid barriers, and says so.
TEST_F(PersistentSchedulerTest, OuterSplitPastEightBlocksIsOneClusterWhereTheGpuStartsIt) {
  const std::string source =
      columnCentered(20000, 100) +
      "    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)\n"
      "    T7 = fd.ops.rsqrt(fd.ops.add(T2, S6))\n"
      "    T8 = fd.ops.broadcast_in_dim(T7, shape=[20000, 100], broadcast_dims=[1])\n"
      "    T9 = fd.ops.cast(fd.ops.mul(T5, T8), dtype=DataType.BFloat16)\n"
      "    fd.add_output(T9)\n"
      "    fd.add_output(T3)\n";
  BoundSegment hopper(source, {{20000, 100}}, h100());
  ASSERT_EQ(hopper.info().device->maxClusterBlocks, 16);
  const ReductionParams p = heuristic(outer_, hopper);
  EXPECT_EQ(p.gridDimY, 10);
  EXPECT_TRUE(p.clusterReduction);
  EXPECT_NE(propertiesText(outer_, hopper)
                .find("each column group's 10 blocks form a thread-block cluster"),
            std::string::npos);

  DeviceSpec portable = h100();
  portable.name = "an sm_90 GPU of clusters up to 8";
  portable.maxClusterBlocks = 8;
  BoundSegment eight(source, {{20000, 100}}, portable);
  ReductionParams q = heuristic(outer_, eight);
  EXPECT_EQ(q.gridDimY, 10);
  EXPECT_FALSE(q.clusterReduction);
  EXPECT_NE(propertiesText(outer_, eight)
                .find("each column group spans 10 blocks, more than the 8 a cluster may have on "
                      "an sm_90 GPU of clusters up to 8: they meet at grid barriers"),
            std::string::npos);
  q.clusterReduction = true;
  EXPECT_EQ(outer_.rejectParams(eight.fusion(), eight.info(), q),
            "cluster_reduction is set, but grid_dim_y 10 exceeds the 8 blocks a cluster may have "
            "on an sm_90 GPU of clusters up to 8");
}

// x - mean(x) over dim 0 of [8192, 1024] bf16: 16 column groups of 8 blocks.
// An H100 holds only 15 clusters of 8 one-SM blocks at once (a cluster
// stays within one GPC), so a 16th would run in a second wave: the groups
// meet at grid barriers (BatchNorm forward at [16384, 512], the same grid:
// 24.3 us against 28.0 in clusters). A device whose
// GPCs are not known is taken to hold 132 / 8 = 16: clusters.
TEST_F(PersistentSchedulerTest, OuterSplitTakesClustersOnlyWhereTheGpuHoldsThemAllAtOnce) {
  const std::string source = columnCentered(8192, 1024) +
                             "    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)\n"
                             "    fd.add_output(T6)\n";
  BoundSegment hopper(source, {{8192, 1024}}, h100());
  ASSERT_EQ(clustersAtOnce(*hopper.info().device, 8), 15);
  const ReductionParams p = heuristic(outer_, hopper);
  ASSERT_EQ(p.gridDimY, 8);
  ASSERT_EQ(p.gridDimX, 16);
  EXPECT_FALSE(p.clusterReduction);
  EXPECT_NE(propertiesText(outer_, hopper)
                .find("the grid's 16 clusters of 8 blocks exceed the 15 that NVIDIA H100 SXM5 "
                      "80GB holds at once"),
            std::string::npos);
  // Not refused: the tuner may still time it.
  ReductionParams q = p;
  q.clusterReduction = true;
  EXPECT_EQ(outer_.rejectParams(hopper.fusion(), hopper.info(), q), std::nullopt);

  DeviceSpec unknown = h100();
  unknown.residentClusters.clear();
  BoundSegment guessed(source, {{8192, 1024}}, unknown);
  EXPECT_TRUE(heuristic(outer_, guessed).clusterReduction);
}

TEST_F(PersistentSchedulerTest, OuterSplitTakesAClusterOnlyWhereOneFits) {
  // BatchNorm forward [16384, 128] bf16: on an H100 each column group's 8
  // blocks are one cluster; on an A100 (no clusters) they meet at grid
  // barriers, and params asking for a cluster there are refused.
  auto segment = BoundSegment::fromExample("resources/examples/batch_norm_outer.py", h100());
  ReductionParams p = heuristic(outer_, *segment);
  EXPECT_EQ(p.gridDimY, 8);
  EXPECT_TRUE(p.clusterReduction);
  // The report says why.
  EXPECT_NE(propertiesText(outer_, *segment)
                .find("\"cluster_reduction_choice\":\"each column group's 8 blocks form a "
                      "thread-block cluster"),
            std::string::npos);
  // 16 blocks: a non-portable cluster, which the H100 starts; 32: none.
  p.gridDimY = 16;
  p.persistentBatchSize = (16384 + p.blockDimX * 16 - 1) / (p.blockDimX * 16);
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p), std::nullopt);
  p.gridDimY = 32;
  p.persistentBatchSize = (16384 + p.blockDimX * 32 - 1) / (p.blockDimX * 32);
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p),
            "cluster_reduction is set, but grid_dim_y 32 exceeds the 16 blocks a cluster may "
            "have on NVIDIA H100 SXM5 80GB");
  p.clusterReduction = false;
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p), std::nullopt);
  // Rows kept in shared memory leave no room for the exchange slots.
  p = heuristic(outer_, *segment);
  p.persistentStorage = PersistentStorage::SharedMemory;
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p),
            "cluster_reduction keeps the rows in registers: a shared-memory buffer sized to "
            "the block's budget leaves no room for the cluster's exchange slots");

  auto ampere = BoundSegment::fromExample("resources/examples/batch_norm_outer.py",
                                          findBuiltinDevice("a100").value());
  ReductionParams a = heuristic(outer_, *ampere);
  EXPECT_GT(a.gridDimY, 1);
  EXPECT_FALSE(a.clusterReduction);
  EXPECT_NE(propertiesText(outer_, *ampere)
                .find("sm_80 has no thread-block clusters: each column group's"),
            std::string::npos);
  a.clusterReduction = true;
  const auto reason = outer_.rejectParams(ampere->fusion(), ampere->info(), a);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("has no thread-block clusters"), std::string::npos) << *reason;

  // Inner persistent kernels split a row over a cluster's blocks only with
  // grid_dim_y > 1 (tests/codegen/test_cluster_rows.cpp).
  BoundSegment inner(persistent_test::seed000Segment("BFloat16"), {{128, 4096}}, h100());
  ReductionParams i = heuristic(inner_, inner);
  i.clusterReduction = true;
  const auto innerReason = inner_.rejectParams(inner.fusion(), inner.info(), i);
  ASSERT_TRUE(innerReason.has_value());
  EXPECT_NE(innerReason->find("the reduction is not split across blocks (grid_dim_y 1)"),
            std::string::npos)
      << *innerReason;
  i.gridDimY = 2;
  i.crossGridReduction = true;
  i.persistentBatchSize = scheduler::ceilDiv(i.persistentBatchSize, 2);
  EXPECT_EQ(inner_.rejectParams(inner.fusion(), inner.info(), i), std::nullopt);
}

TEST_F(PersistentSchedulerTest, OuterGridMustStayResident) {
  auto segment = BoundSegment::fromExample("resources/examples/batch_norm_outer.py", h100());
  ReductionParams p = heuristic(outer_, *segment);
  ASSERT_TRUE(p.crossGridReduction);
  p.gridDimX = 100;
  // A cluster's blocks wait only for each other: more blocks than SMs is
  // allowed (the clusters run in waves).
  ASSERT_TRUE(p.clusterReduction);
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p), std::nullopt);
  // Grid barriers wait for every block of the grid.
  p.clusterReduction = false;
  EXPECT_EQ(outer_.rejectParams(segment->fusion(), segment->info(), p),
            "a grid-persistent kernel needs all its blocks resident at once, "
            "but grid_dim_x * grid_dim_y = " +
                std::to_string(100 * p.gridDimY) + " blocks exceed the 132 SMs");
  p = heuristic(outer_, *segment);
  p.persistentBatchSize = 1;
  const auto reason = outer_.rejectParams(segment->fusion(), segment->info(), p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("block_dim_x * persistent_batch_size * grid_dim_y", 0), 0u) << *reason;
}

TEST_F(PersistentSchedulerTest, OuterRefusesInnerNormalization) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100());
  const auto reason = outer_.rejectCompileTime(segment.fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason,
            "the reductions are over the innermost axes [1] of a rank-2 "
            "tensor (T3 reduces T2); outer_persistent normalizes over outer "
            "axes only (inner_persistent takes these)");
}

}  // namespace
}  // namespace fuserlab::scheduler
