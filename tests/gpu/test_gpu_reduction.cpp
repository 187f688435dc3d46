// Reduction and outer normalization fusions on the GPU against the CPU
// reference: inner and outer sums at odd sizes, Welford and var_mean far
// from zero, cluster and grid combines, outer persistent batch norm. (Inner
// persistent fusions: test_gpu_inner_persistent.cpp.) Each skips, saying
// so, while the segment's emitter is unavailable.
#include <cstring>

#include "core/frontend/input_tensors.h"
#include "core/scheduler/persistent/outer_persistent_scheduler.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "core/tensor/float16.h"
#include "tests/gpu/gpu_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::gpu_test {
namespace {

class GpuReductionTest : public GpuTest {};

// Two runs' outputs, bit for bit (reductions combine in a fixed order).
void expectSameBits(const std::vector<Tensor>& first, const std::vector<Tensor>& second) {
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    const Tensor& a = first[i];
    const Tensor& b = second[i];
    ASSERT_EQ(a.sizes(), b.sizes());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.numel() * ir::sizeInBytes(a.dtype())), 0)
        << "output " << i << " differs between two runs";
  }
}

TEST_F(GpuReductionTest, InnerSumOddSizes) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.mul(T0, T0)
T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
T4 = fd.ops.sqrt(T3)
fd.add_output(T1)
fd.add_output(T4)
)");
  for (std::vector<int64_t> sizes :
       std::vector<std::vector<int64_t>>{{1, 1}, {7, 3}, {2048, 1023}, {5, 100003}, {1000, 1}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::Float, sizes)});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuReductionTest, OuterSumBf16) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)
fd.add_output(T3)
)");
  for (std::vector<int64_t> sizes :
       std::vector<std::vector<int64_t>>{{4096, 771}, {3, 1025}, {65537, 8}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::BFloat16, sizes)});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuReductionTest, CrossGridSumRepeatsWithoutZeroingItsWorkspace) {
  // A column sum tall enough to split its columns over blocks of a grid: the
  // last block of each column group resets its semaphore, so the executor
  // zeroes the workspace only when it allocates it. Runs 2 and 3 reuse the
  // planned launch and its workspace; each must still match the reference.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)");
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    runAndCheck({random(DataType::BFloat16, {8192, 4096})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

// The reduction loops test a chunk only where the row (column) groups or
// the blocks' ranges do not tile the tensor: the heuristic's column and row
// sums at sizes that tile both, one and neither.
TEST_F(GpuReductionTest, ReductionLoopsAtTheEdgesOfTheirTiling) {
  for (int dim : {0, 1}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{8192, 4096},
                              {8000, 4096},
                              {8191, 4096},
                              {8191, 256},
                              {2048, 1000},
                              {1000, 4104}}) {
      SCOPED_TRACE("dim " + std::to_string(dim) + ", " + std::to_string(rows) + "x" +
                   std::to_string(cols));
      define(
          "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
          "dtype=DataType.BFloat16, is_cpu=False)\n"
          "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
          "T2 = fd.ops.sum(T1, dims=[" +
          std::to_string(dim) +
          "], keepdim=False, dtype=DataType.Null)\n"
          "fd.add_output(T2)\n");
      runAndCheck({random(DataType::BFloat16, {rows, cols})});
      FL_SKIP_IF_UNAVAILABLE();
    }
  }
}

// sm_90+: the blocks splitting a column reduction combine their partials in
// a thread-block cluster: each stores them into rank 0's shared memory and
// rank 0 adds them in rank order. Against the reference, like the workspace
// combine with the same split, and the same bits on every run. Covers a sum
// (8192 rows, clusters of 8), Welford partials (a struct stored into another
// block's shared memory) with columns that leave threads idle, and clusters
// of 4 over 1000 columns (the last column group part empty). Clusters past
// the portable 8 (16 over col_sum's shape, 12 over the Welford's) where the
// GPU starts them, after the kernel's non-portable opt-in.
TEST_F(GpuReductionTest, ClusterCombineMatchesTheReferenceAndRepeats) {
  struct Case {
    std::string script;
    DataType dtype;
    std::vector<int64_t> sizes;
    int64_t vectorize, gridDimX, gridDimY;
    int64_t columnThreads = 8;  // 16: the heuristic's cluster blocks of 16 x 16
  };
  const std::string sum = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)";
  const std::string varMean = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)
fd.add_output(T1)
fd.add_output(T2)
)";
  // Two reductions in one kernel: only the second col_reduce, the one the
  // cluster barrier follows, leaves out its closing __syncthreads.
  const std::string varMeanMax = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)
T3 = fd.ops.max(T0, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3)
)";
  // Blocks of 16 column threads reduce into thread row 0 only (col_reduce)
  // before the cluster's combine: a Welford at odd sizes and the suite's
  // col_sum shape too.
  for (const Case& c : {Case{sum, DataType::BFloat16, {8192, 4096}, 8, 64, 8},
                        Case{varMean, DataType::Float, {3000, 771}, 1, 97, 8},
                        Case{sum, DataType::BFloat16, {2048, 1000}, 8, 16, 4},
                        Case{sum, DataType::BFloat16, {8192, 4096}, 8, 32, 8, 16},
                        Case{varMean, DataType::Float, {3000, 771}, 1, 49, 8, 16},
                        Case{varMeanMax, DataType::Float, {3000, 771}, 1, 49, 8, 16},
                        Case{sum, DataType::BFloat16, {8192, 4096}, 8, 32, 16, 16},
                        Case{varMean, DataType::Float, {3000, 771}, 1, 49, 12, 16}}) {
    SCOPED_TRACE(shape(c.sizes) + " with " + std::to_string(c.columnThreads) + " column threads");
    define(c.script);
    const Tensor x = random(c.dtype, c.sizes);
    for (const bool cluster : {false, true}) {
      scheduler::ReductionParams p;
      p.fastestDimReduction = false;
      p.vectorizationFactor = c.vectorize;
      p.blockDimY = c.columnThreads;
      p.blockDimX = 16;  // row threads
      p.unrollFactorReduction = 4;
      p.gridDimX = c.gridDimX;
      p.gridDimY = c.gridDimY;
      p.crossBlockReduction = true;
      p.crossGridReduction = true;
      p.clusterReduction = cluster;
      const FixedParams fixed(scheduler::SchedulerType::Reduction, p);
      useProvider(&fixed);
      SCOPED_TRACE(cluster ? "cluster" : "workspace");
      std::vector<std::vector<Tensor>> runs;
      for (int run = 0; run < 2; ++run) {
        runAndCheck({x});
        FL_SKIP_IF_UNAVAILABLE();
        if (cluster && executor().deviceSpec().computeCapability() < 90) {
          GTEST_SKIP() << "thread-block clusters need sm_90; this GPU is "
                       << executor().deviceSpec().arch();
        }
        if (cluster && c.gridDimY > scheduler::maxClusterBlocks(executor().deviceSpec())) {
          GTEST_SKIP() << "this GPU starts clusters of up to "
                       << executor().deviceSpec().maxClusterBlocks << " blocks";
        }
        runs.push_back(lastOutputs());
      }
      ASSERT_NE(executor().lastReport(), nullptr);
      int reductions = 0;
      for (const report::SegmentReport& segment : executor().lastReport()->segments) {
        if (segment.scheduler != "reduction") continue;
        ++reductions;
        EXPECT_EQ(segment.paramsSource, "tuner") << segment.paramsNote;
        EXPECT_EQ(segment.params.get("cluster_reduction")->asBool(), cluster);
      }
      EXPECT_EQ(reductions, 1);
      expectSameBits(runs[0], runs[1]);
    }
  }
  useProvider(nullptr);
}

// A column sum times a per-column factor: the factor is loaded before the
// reduction into each thread's own slots, so the cluster's rank 0 adds the
// partials in thread row 0 (its own columns) rather than one thread per
// column; at an odd size too.
TEST_F(GpuReductionTest, ClusterCombineWithAPerColumnFactorMatchesTheReference) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.sum(T2, dims=[0], keepdim=False, dtype=DataType.Null)
T4 = fd.ops.mul(T3, T1)
fd.add_output(T4)
)");
  for (const std::vector<int64_t>& sizes :
       {std::vector<int64_t>{8192, 4096}, std::vector<int64_t>{3000, 771}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::BFloat16, sizes), random(DataType::Float, {sizes[1]})});
    FL_SKIP_IF_UNAVAILABLE();
    if (sizes[0] == 8192 && executor().deviceSpec().computeCapability() >= 90) {
      ASSERT_NE(executor().lastReport(), nullptr);
      for (const report::SegmentReport& segment : executor().lastReport()->segments) {
        EXPECT_TRUE(segment.params.get("cluster_reduction")->asBool()) << segment.scheduler;
      }
    }
  }
}

TEST_F(GpuReductionTest, MaxOverMiddleAxis) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.max(T0, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
)");
  runAndCheck({random(DataType::Float, {17, 333, 65})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuReductionTest, WelfordVarMean) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)
fd.add_output(T1)
fd.add_output(T2)
)");
  runAndCheck({random(DataType::Float, {513, 2049})});
  FL_SKIP_IF_UNAVAILABLE();
}

// Inner reductions over blocks of 3 to 32 warps (the tuner's shapes): the
// warps' partials are combined in warp order up to 4 warps and by a
// butterfly over the warps from 8, and a Welford combine of equal counts
// skips its division. Each matches the reference, at full tiles (equal
// counts everywhere) and at an odd row length (a short last chunk), and
// repeats bit for bit.
TEST_F(GpuReductionTest, InnerReductionsOverManyWarpsMatchTheReferenceAndRepeat) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=False)
T3 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3)
)");
  struct Case {
    std::vector<int64_t> sizes;
    int64_t vectorize;
  };
  for (const Case& c : {Case{{64, 8192}, 4}, Case{{300, 4099}, 1}}) {
    const Tensor x = random(DataType::Float, c.sizes);
    for (const int64_t threads : {96, 128, 256, 512, 1024}) {
      SCOPED_TRACE(shape(c.sizes) + " over " + std::to_string(threads) + " threads");
      scheduler::ReductionParams p;
      p.fastestDimReduction = true;
      p.vectorizationFactor = c.vectorize;
      p.blockDimX = threads;
      p.blockDimY = 1;
      p.unrollFactorReduction = 2;
      p.gridDimX = c.sizes[0];
      p.crossBlockReduction = true;
      const FixedParams fixed(scheduler::SchedulerType::Reduction, p);
      useProvider(&fixed);
      std::vector<std::vector<Tensor>> runs;
      for (int run = 0; run < 2; ++run) {
        runAndCheck({x});
        FL_SKIP_IF_UNAVAILABLE();
        runs.push_back(lastOutputs());
      }
      ASSERT_NE(executor().lastReport(), nullptr);
      for (const report::SegmentReport& segment : executor().lastReport()->segments) {
        EXPECT_EQ(segment.paramsSource, "tuner") << segment.paramsNote;
        EXPECT_EQ(segment.params.get("block_dim_x")->asInt(), threads);
      }
      ASSERT_EQ(runs[0].size(), 3u);
      expectSameBits(runs[0], runs[1]);
    }
  }
  useProvider(nullptr);
}

// Welford in a reduction kernel folds chunks of a thread's elements (sum,
// mean, squared deviations, one combine), or takes two passes where the
// block holds the row whole: data with a mean far from zero (100, std 1)
// keeps the variance accurate, at the suite's size, odd sizes (masked chunk
// tails) and a few long rows split over blocks.
TEST_F(GpuReductionTest, VarMeanFarFromZero) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=False)
fd.add_output(T1)
fd.add_output(T2)
)");
  // 8192x4096, 2048x1000 (64 x 2 threads, the row's last chunks past its
  // end), 1024x16384 (512 threads) and 1024x4099 (256 threads of 17 scalar
  // loads) take two passes over rows held whole; 512x32768 folds eight steps
  // of chunks; 513x2049 folds masked scalar chunks; 4x1048576 splits rows
  // over blocks.
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{8192, 4096},
                                            {2048, 1000},
                                            {1024, 16384},
                                            {1024, 4099},
                                            {512, 32768},
                                            {513, 2049},
                                            {4, 1048576}}) {
    SCOPED_TRACE(shape(sizes));
    Tensor x = Tensor::empty(DataType::Float, sizes);
    runtime::fillNormal(x, 11, /*mean=*/100.0, /*std=*/1.0);
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuReductionTest, VarMeanFarFromZeroBf16Input) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=False)
fd.add_output(T2)
fd.add_output(T3)
)");
  Tensor x = Tensor::empty(DataType::BFloat16, {1024, 4096});
  runtime::fillNormal(x, 12, /*mean=*/100.0, /*std=*/1.0);
  runAndCheck({x});
  FL_SKIP_IF_UNAVAILABLE();
}

// Outer var_mean (over the rows): the lanes of a thread's column group fold
// each step's rows with one shared count and ratio (welford_fold_lanes).
// f32 (4 lanes) and bf16 (8 lanes) at the heuristic's shapes: exact tiles
// in clusters, rows past a block's range (3000, 1000), columns past the
// last group (333 x 1000 bf16, 1000 / 8 chunks over 16 column threads), and
// a column count that is not a multiple of the vector (771: scalar lanes);
// bf16 [16384, 1024] and f32 [16384, 1024] in clusters of 8 x 32 threads,
// bf16 [16384, 2048] in clusters of 16 x 16, 4 lanes a thread.
// Mean 100, std 1, so a wrong ratio or count shows in the variance; run
// twice, the same bits.
TEST_F(GpuReductionTest, OuterVarMeanLanesShareOneCountFarFromZero) {
  struct Case {
    DataType dtype;
    std::vector<int64_t> sizes;
  };
  for (const Case& c :
       {Case{DataType::Float, {8192, 4096}}, Case{DataType::BFloat16, {8192, 4096}},
        Case{DataType::Float, {3000, 1000}}, Case{DataType::BFloat16, {333, 1000}},
        Case{DataType::BFloat16, {4099, 2056}}, Case{DataType::Float, {3000, 771}},
        Case{DataType::BFloat16, {16384, 1024}}, Case{DataType::BFloat16, {16384, 2048}},
        Case{DataType::Float, {16384, 1024}}}) {
    const std::string dtype = c.dtype == DataType::Float ? "Float" : "BFloat16";
    SCOPED_TRACE(shape(c.sizes) + " " + dtype);
    define("T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." +
           dtype +
           ", is_cpu=False)\n"
           "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
           "T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=1, keepdim=False)\n"
           "fd.add_output(T2)\n"
           "fd.add_output(T3)\n");
    Tensor x = Tensor::empty(c.dtype, c.sizes);
    runtime::fillNormal(x, 13, /*mean=*/100.0, /*std=*/1.0);
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
    const std::vector<Tensor> first = lastOutputs();
    runAndCheck({x});
    expectSameBits(first, lastOutputs());
  }
}

// Outer var_mean whose rows tile every block's range folds each thread's
// chunks as sums shifted by its first chunk's mean (fl::shifted_fold_lanes)
// and skips the block's pass over the counts. A trend along the rows (0.01
// a row over N(0, 1)) puts every thread's first chunk far below its later
// ones, so a wrong shift, step count or spread shows in the variance; f32
// in clusters of 16 x 16 and 8 x 32 threads, bf16 in 16 x 16 clusters and
// a workspace split (2048 rows).
TEST_F(GpuReductionTest, OuterVarMeanShiftedSumsFollowARowTrend) {
  struct Case {
    DataType dtype;
    std::vector<int64_t> sizes;
  };
  for (const Case& c :
       {Case{DataType::Float, {8192, 4096}}, Case{DataType::Float, {16384, 1024}},
        Case{DataType::BFloat16, {16384, 2048}}, Case{DataType::BFloat16, {2048, 1024}}}) {
    const bool f32 = c.dtype == DataType::Float;
    SCOPED_TRACE(shape(c.sizes) + (f32 ? " Float" : " BFloat16"));
    define(std::string(
               "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.") +
           (f32 ? "Float" : "BFloat16") +
           ", is_cpu=False)\n"
           "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
           "T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=0, keepdim=False)\n"
           "fd.add_output(T2)\n"
           "fd.add_output(T3)\n");
    Tensor x = Tensor::empty(DataType::Float, c.sizes);
    runtime::fillNormal(x, 17);
    float* v = x.dataAs<float>();
    for (int64_t j = 0; j < c.sizes[0]; ++j) {
      for (int64_t i = 0; i < c.sizes[1]; ++i) v[j * c.sizes[1] + i] += 0.01f * (float)j;
    }
    if (!f32) {
      Tensor b = Tensor::empty(DataType::BFloat16, c.sizes);
      runtime::BFloat16* out = b.dataAs<runtime::BFloat16>();
      for (int64_t e = 0; e < x.numel(); ++e) out[e] = runtime::BFloat16::fromFloat(v[e]);
      x = b;
    }
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuReductionTest, OuterNormalization) {
  // Batch-norm-like statistics over axis 0.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[0], correction=0, keepdim=False)
T3 = fd.ops.broadcast_in_dim(T2, shape=[2048, 96], broadcast_dims=[1])
T4 = fd.ops.sub(T0, T3)
fd.add_output(T4)
fd.add_output(T1)
)");
  runAndCheck({random(DataType::Float, {2048, 96})});
  FL_SKIP_IF_UNAVAILABLE();
}

// The outer persistent heuristic's params with the column groups' blocks
// meeting at grid barriers instead of in a cluster (as before sm_90).
class OuterPersistentGridBarriers : public scheduler::HeuristicProvider {
 public:
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    if (type != scheduler::SchedulerType::OuterPersistent) return std::nullopt;
    auto params = std::get<scheduler::ReductionParams>(
        scheduler::OuterPersistentScheduler().computeHeuristics(segment, info));
    params.clusterReduction = false;
    return scheduler::ProvidedParams{params, "test"};
  }
};

constexpr const char* kBatchNormForward = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=0, keepdim=False)
T4 = fd.ops.broadcast_in_dim(T3, shape=[ROWS, COLS], broadcast_dims=[1])
T5 = fd.ops.sub(T1, T4)
S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
T7 = fd.ops.rsqrt(fd.ops.add(T2, S6))
T8 = fd.ops.broadcast_in_dim(T7, shape=[ROWS, COLS], broadcast_dims=[1])
T9 = fd.ops.cast(fd.ops.mul(T5, T8), dtype=DataType.BFloat16)
fd.add_output(T9)
fd.add_output(T3)
fd.add_output(T7)
)";

std::string batchNormForward(int64_t rows, int64_t cols) {
  std::string text = kBatchNormForward;
  for (const auto& [key, value] : {std::pair<std::string, int64_t>{"ROWS", rows}, {"COLS", cols}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), std::to_string(value));
    }
  }
  return text;
}

// BatchNorm forward on sm_90: each column group's blocks form a thread-block
// cluster and exchange partial sums through each other's shared memory (one
// cluster barrier per reduction). At [8192, 128] 8 blocks a group, three
// runs of one executor on new inputs (a block reading slots before all
// ranks wrote them would mix runs); an odd shape whose rows do not tile the
// blocks and whose last column group is partly out of range (4099 x 72: a
// cluster of 5); and [8192, 256], 4 column groups of 8 blocks. Splits past
// the portable 8 blocks are clusters of 10 ([20000, 100], 4 of them) and 16
// ([16384, 128], 2) where the GPU starts them and holds them all at once
// (the H100 and H200 do, after the kernel's non-portable opt-in), grid
// barriers elsewhere.
TEST_F(GpuReductionTest, OuterPersistentSplitCombinesInAClusterOnHopper) {
  struct Case {
    int64_t rows, cols, split;
  };
  for (const Case c : {Case{8192, 128, 8}, Case{4099, 72, 5}, Case{8192, 256, 8},
                       Case{20000, 100, 10}, Case{16384, 128, 16}}) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols));
    define(batchNormForward(c.rows, c.cols));
    for (int run = 0; run < (c.cols == 128 ? 3 : 1); ++run) {
      Tensor x = Tensor::empty(DataType::BFloat16, {c.rows, c.cols});
      runtime::fillNormal(x, 70 + run, /*mean=*/1.0 + run * 3.0, /*std=*/1.0 + run);
      runAndCheck({x});
      FL_SKIP_IF_UNAVAILABLE();
      const report::SegmentReport& segment = executor().lastReport()->segments.at(0);
      ASSERT_EQ(segment.scheduler, "outer_persistent");
      if (executor().deviceSpec().computeCapability() < 90) continue;  // no clusters before sm_90
      EXPECT_EQ(segment.params.get("grid_dim_y")->asInt(), c.split);
      const scheduler::DeviceSpec& gpu = executor().deviceSpec();
      const int64_t clusters = segment.params.get("grid_dim_x")->asInt();
      EXPECT_EQ(segment.params.get("cluster_reduction")->asBool(),
                c.split <= scheduler::maxClusterBlocks(gpu) &&
                    clusters <= scheduler::clustersAtOnce(gpu, c.split))
          << "the device starts clusters of up to " << gpu.maxClusterBlocks << " blocks, "
          << scheduler::clustersAtOnce(gpu, c.split) << " of " << c.split << " at once";
    }
  }
}

// BatchNorm forward over [16384, 128] bf16 with the column groups' 8 blocks
// meeting at grid barriers (the path before sm_90, pinned here). The last
// block of each group to finish sets the barrier's counters back to zero,
// so the executor zeroes the workspace once; three runs of one executor on
// new inputs each match the reference (counters left high would let a block
// read partials before the others wrote them).
TEST_F(GpuReductionTest, OuterPersistentGridSyncRepeatsWithoutZeroingItsWorkspace) {
  const OuterPersistentGridBarriers barriers;
  useProvider(&barriers);
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2, T3 = fd.ops.var_mean(T1, dims=[0], correction=0, keepdim=False)
T4 = fd.ops.broadcast_in_dim(T3, shape=[16384, 128], broadcast_dims=[1])
T5 = fd.ops.sub(T1, T4)
S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
T7 = fd.ops.rsqrt(fd.ops.add(T2, S6))
T8 = fd.ops.broadcast_in_dim(T7, shape=[16384, 128], broadcast_dims=[1])
T9 = fd.ops.cast(fd.ops.mul(T5, T8), dtype=DataType.BFloat16)
fd.add_output(T9)
fd.add_output(T3)
)");
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    Tensor x = Tensor::empty(DataType::BFloat16, {16384, 128});
    runtime::fillNormal(x, 40 + run, /*mean=*/run * 3.0, /*std=*/1.0 + run);
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
    const report::SegmentReport& segment = executor().lastReport()->segments.at(0);
    ASSERT_EQ(segment.scheduler, "outer_persistent");
    ASSERT_GT(segment.params.get("grid_dim_y")->asInt(), 1);
    ASSERT_FALSE(segment.params.get("cluster_reduction")->asBool());
  }
  useProvider(nullptr);
}

// A [rows, 1] input declared with symbolic extents ([-1, -1], not [-1, 1])
// and broadcast onto the row: size 1 at run time, so its second coordinate
// is always 0 (the RMSNorm backward of the benchmark suite read it as a full
// row before).
TEST_F(GpuReductionTest, RuntimeSizeOneAxisOfAPersistentInputBroadcasts) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.broadcast_in_dim(T1, shape=[96, 1000], broadcast_dims=[0, 1])
T4 = fd.ops.mul(T2, T3)
T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
T6 = fd.ops.broadcast_in_dim(T5, shape=[96, 1000], broadcast_dims=[0])
T7 = fd.ops.mul(T3, T3)
T8 = fd.ops.mul(T2, T7)
T9 = fd.ops.sub(T8, T6)
T10 = fd.ops.cast(T9, dtype=DataType.BFloat16)
fd.add_output(T10)
)");
  runAndCheck({random(DataType::BFloat16, {96, 1000}), random(DataType::Float, {96, 1})});
  FL_SKIP_IF_UNAVAILABLE();
}

// Issue 42 item 4: the corpus reproducers (RMSNorm backward as nvFuser's
// benchmark and direct tests write it, bf16 [2048, 4096] and [16, 24578]; a
// row sum of a broadcast whose shape comes from an input read only for it,
// [2047, 4095]) run on the GPU, every segment a kernel (a refused one fails
// here rather than skipping), with poisoned outputs, against the CPU
// reference on the inputs blocks' random values at two seeds.
TEST_F(GpuReductionTest, Issue42CorpusReproducersMatchTheReference) {
  for (const char* file : {"issue42_rmsnorm_bwd_builder.py", "issue42_rmsnorm_bwd_direct.py",
                           "issue42_sum_over_broadcast_axis.py"}) {
    SCOPED_TRACE(file);
    const frontend::Script script =
        frontend::readScriptFile(fuserlab::test::sourceDir() + "/tests/frontend/corpus/" + file);
    ASSERT_TRUE(script.inputs.has_value());
    runtime::GpuExecutor executor(script.fusion(), 0, compiler::CompileOptions{}, &cache());
    for (uint64_t seed : {3, 11}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      const runtime::Arguments inputs = frontend::makeInputs(*script.inputs, seed);
      runtime::GpuRunOptions options;
      options.poisonOutputs = true;
      options.synchronizeEachKernel = true;
      runtime::HostRunResult result;
      try {
        result = runtime::runOnGpu(executor, inputs, options);
      } catch (const runtime::KernelUnavailable& unavailable) {
        ADD_FAILURE() << "a segment has no kernel: " << unavailable.what();
        break;
      }
      const std::vector<Tensor> reference = runtime::runReference(script.fusion(), inputs);
      ASSERT_EQ(result.outputs.size(), reference.size());
      for (size_t i = 0; i < reference.size(); ++i) {
        const runtime::TensorCheck check = runtime::checkTensor(
            result.outputs[i], reference[i], script.fusion().outputs()[i].val->name(),
            runtime::toleranceForOutput(script.fusion(), i));
        EXPECT_TRUE(check.passed) << check.message;
      }
    }
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
