#include <gtest/gtest.h>

#include <set>

#include "core/compiler/fusion_compiler.h"
#include "core/cuda/kernel_cache.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "core/scheduler/registry.h"
#include "tests/tuner/tuner_fixture.h"
#include "tuner/builder.h"

namespace fuserlab::tuner {
namespace {

constexpr const char* kRmsNorm = "4x256x2048:bf16,2048:bf16";

std::set<int64_t> values(const SearchSpace& space, const char* knob) {
  const auto v = space.acceptedValues(knob);
  return {v.begin(), v.end()};
}

TEST(SearchSpaceTest, PersistentSpaceHasEveryVectorizationStorageAndProjection) {
  ExampleTarget e = exampleTarget("rms_norm.py", kRmsNorm);
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::InnerPersistent);
  EXPECT_EQ(values(e.space, "vectorization_factor"), (std::set<int64_t>{1, 2, 4, 8}));
  // Registers, shared memory, or read again each pass (reload).
  EXPECT_EQ(values(e.space, "persistent_storage"), (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(values(e.space, "project_persistent_buffers"), (std::set<int64_t>{0, 1}));
  EXPECT_GT(e.space.variants.size(), 50u);
  EXPECT_GT(e.space.refusedPoints, 0);  // e.g. 32 threads x batch past the budget
}

TEST(SearchSpaceTest, DefaultIsVariantZeroAndEveryVariantPassesTheChecks) {
  for (auto [example, inputs] : {std::pair{"rms_norm.py", kRmsNorm},
                                 std::pair{"silu_mul.py", "256x11008:bf16,256x11008:bf16"},
                                 std::pair{"layer_norm.py", "512x4096:bf16,4096:bf16,4096:bf16"}}) {
    SCOPED_TRACE(example);
    ExampleTarget e = exampleTarget(example, inputs);
    ASSERT_FALSE(e.space.variants.empty());
    EXPECT_TRUE(e.space.variants[0].isDefault);
    EXPECT_EQ(e.space.variants[0].params, e.target->defaultParams);
    EXPECT_EQ(e.space.variantAt(e.space.defaultPoint), size_t{0});
    const auto& sched = scheduler::schedulerFor(e.target->scheduler);
    std::set<std::string> hashes;
    for (const Variant& v : e.space.variants) {
      EXPECT_FALSE(sched.rejectParams(e.target->segmentFusion(), e.target->bound.info, v.params))
          << v.label;
      EXPECT_TRUE(hashes.insert(v.paramsHash).second) << "duplicate " << v.label;
      EXPECT_EQ(e.space.variantAt(v.point), v.id) << v.label;
    }
  }
}

// A combined kernel (dx beside the column sums dw and db) meets its whole
// grid at a barrier: the space varies the blocks an SM keeps, and no
// accepted variant launches more blocks than the GPU keeps resident (they
// would wait for each other forever) or chunks that do not divide the rows.
TEST(SearchSpaceTest, ACombinedKernelsVariantsKeepTheirGridResident) {
  ExampleTarget e = exampleTarget("layer_norm_backward_weights.py",
                                  "2048x1024:bf16,2048x1024:bf16,2048x1:f32,2048x1:f32,1024:bf16");
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::InnerPersistent);
  EXPECT_GE(values(e.space, "blocks_per_sm").size(), 4u);
  EXPECT_GT(e.space.refusedPoints, 0);
  const scheduler::DeviceSpec& device = scheduler::defaultDevice();
  for (const Variant& v : e.space.variants) {
    const auto& p = std::get<scheduler::ReductionParams>(v.params);
    const int64_t threads = p.blockDimX * p.blockDimY;
    EXPECT_LE(p.gridDimX, int64_t{device.smCount} * (device.maxThreadsPerSm / threads)) << v.label;
    EXPECT_EQ(1024 % p.vectorizationFactor, 0) << v.label;
  }
}

TEST(SearchSpaceTest, OuterSplitOnHopperTriesTheClusterAndTheWorkspace) {
  // col_sum bf16 [8192, 4096] on the default device (an H100): the default
  // combines 8 splits in clusters. The space splits the rows over 1 to 64
  // blocks, each through the workspace or (up to 16, the H100's largest
  // cluster) in a cluster. Every variant passes the checks; no cluster spans
  // more than 16 blocks.
  ASSERT_GE(scheduler::defaultDevice().computeCapability(), 90);
  ExampleTarget e = exampleTarget("outer_reduction.py", "8192x4096:bf16");
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::Reduction);
  const auto& d = std::get<scheduler::ReductionParams>(e.target->defaultParams);
  EXPECT_TRUE(d.clusterReduction);
  EXPECT_EQ(values(e.space, "cluster_reduction"), (std::set<int64_t>{0, 1}));
  // The default's 16 column threads and the narrower 8 of the workspace
  // split are both in the space.
  EXPECT_EQ(d.blockDimY, 16);
  EXPECT_EQ(values(e.space, "block_dim_y").count(8), 1u);
  EXPECT_EQ(values(e.space, "block_dim_y").count(16), 1u);
  EXPECT_EQ(values(e.space, "grid_dim_y"), (std::set<int64_t>{1, 2, 4, 8, 16, 32, 64}));
  const auto& sched = scheduler::schedulerFor(e.target->scheduler);
  std::set<int64_t> clusterSplits, workspaceSplits;
  for (const Variant& v : e.space.variants) {
    const auto& p = std::get<scheduler::ReductionParams>(v.params);
    EXPECT_FALSE(sched.rejectParams(e.target->segmentFusion(), e.target->bound.info, v.params))
        << v.label;
    EXPECT_EQ(p.crossGridReduction, p.gridDimY > 1) << v.label;
    (p.clusterReduction ? clusterSplits : workspaceSplits).insert(p.gridDimY);
  }
  EXPECT_EQ(clusterSplits, (std::set<int64_t>{2, 4, 8, 16}));
  EXPECT_EQ(workspaceSplits, (std::set<int64_t>{1, 2, 4, 8, 16, 32, 64}));

  // Split over 64 blocks through the workspace by default ([16384, 1024]):
  // its own split is among the values, and the clusters take 2 to 16.
  ExampleTarget narrow = exampleTarget("outer_reduction.py", "16384x1024:bf16");
  const auto& n = std::get<scheduler::ReductionParams>(narrow.target->defaultParams);
  EXPECT_FALSE(n.clusterReduction);
  EXPECT_EQ(values(narrow.space, "cluster_reduction"), (std::set<int64_t>{0, 1}));
  EXPECT_EQ(values(narrow.space, "grid_dim_y").count(n.gridDimY), 1u);
  for (const Variant& v : narrow.space.variants) {
    const auto& p = std::get<scheduler::ReductionParams>(v.params);
    if (p.clusterReduction) {
      EXPECT_LE(p.gridDimY, 16) << v.label;
    }
  }

  // Inner reductions have no such choice.
  ExampleTarget inner = exampleTarget("sum_reduction.py", "2048x1023:f32");
  EXPECT_EQ(values(inner.space, "cluster_reduction"), (std::set<int64_t>{0}));
  EXPECT_EQ(values(inner.space, "grid_dim_y").size(), 1u);
}

TEST(SearchSpaceTest, OuterPersistentSplitOnHopperTriesTheClusterAndTheGridBarrier) {
  // BatchNorm forward [16384, 128] bf16 on an H100: the default splits each
  // column group over 8 blocks that form a cluster; the space keeps that
  // split and tries the grid barriers too. Every variant passes the checks.
  ExampleTarget e = exampleTarget("batch_norm_outer.py", "16384x128:bf16,128:f32,128:f32");
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::OuterPersistent);
  const auto& d = std::get<scheduler::ReductionParams>(e.target->defaultParams);
  ASSERT_GT(d.gridDimY, 1);
  EXPECT_TRUE(d.clusterReduction);
  EXPECT_EQ(values(e.space, "cluster_reduction"), (std::set<int64_t>{0, 1}));
  EXPECT_EQ(values(e.space, "grid_dim_y"), (std::set<int64_t>{d.gridDimY}));
  const auto& sched = scheduler::schedulerFor(e.target->scheduler);
  bool barrier = false;
  for (const Variant& v : e.space.variants) {
    EXPECT_FALSE(sched.rejectParams(e.target->segmentFusion(), e.target->bound.info, v.params))
        << v.label;
    barrier = barrier || !std::get<scheduler::ReductionParams>(v.params).clusterReduction;
  }
  EXPECT_TRUE(barrier);
}

TEST(SearchSpaceTest, PointwiseSpaceHasVectorizationUnrollBlockAndBreakPoint) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::Pointwise);
  EXPECT_EQ(values(e.space, "vectorization_factor"), (std::set<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(values(e.space, "unroll_factor_inner"), (std::set<int64_t>{1, 2, 4}));
  EXPECT_EQ(values(e.space, "break_point"), (std::set<int64_t>{0, 1}));
  EXPECT_EQ(values(e.space, "block_dim_y"), (std::set<int64_t>{1, 2, 4}));
}

TEST(SearchSpaceTest, ShiftedRowsTryEveryChunkWidthOverTheWholeChunks) {
  // The suite's masked softmax at 8192x2050 (8 does not divide 2050, the
  // rows are shifted): 16-byte chunks are in the space, and a variant's
  // batch covers the whole aligned chunks only (the head and tail go one
  // element per thread): 64 threads take 4 chunks of 8 or 8 of 4, not 5
  // and 9.
  ExampleTarget e = exampleTarget("../../tests/perf/suite/masked_softmax_8192x2050.py",
                                  "8192x2050:bf16,8192x2050:bool");
  ASSERT_EQ(e.target->scheduler, scheduler::SchedulerType::InnerPersistent);
  EXPECT_EQ(values(e.space, "vectorization_factor"), (std::set<int64_t>{1, 2, 4, 8}));
  // On sm_90 each row may also be split over 2 to 8 blocks of a cluster,
  // each block taking its share of the chunks.
  EXPECT_EQ(values(e.space, "grid_dim_y"), (std::set<int64_t>{1, 2, 4, 8}));
  std::set<int64_t> widthsAt64;
  for (const Variant& v : e.space.variants) {
    const auto& p = std::get<scheduler::ReductionParams>(v.params);
    if (p.blockDimX != 64 || p.vectorizationFactor < 4) continue;
    widthsAt64.insert(p.vectorizationFactor);
    EXPECT_EQ(p.clusterReduction, p.gridDimY > 1) << v.label;
    EXPECT_EQ(p.persistentBatchSize,
              scheduler::ceilDiv(2048 / 64 / p.vectorizationFactor, p.gridDimY))
        << v.label;
  }
  EXPECT_EQ(widthsAt64, (std::set<int64_t>{4, 8}));
}

TEST(SearchSpaceTest, VectorizationIsLimitedByTheInnerExtent) {
  // 255 rows of 2046: both the flattened 1-D extent (521730) and the 2-D
  // inner extent divide by 2 but not by 4, so only factors 1 and 2 remain.
  ExampleTarget e = exampleTarget("silu_mul.py", "255x2046:bf16,255x2046:bf16");
  EXPECT_EQ(values(e.space, "vectorization_factor"), (std::set<int64_t>{1, 2}));
}

TEST(SearchSpaceTest, PinnedProviderMakesTheCompilerTakeAVariant) {
  ExampleTarget e = exampleTarget("rms_norm.py", kRmsNorm);
  const Variant& v = e.space.variants.back();
  PinnedParamsProvider pinned(e.target->key, v.params);
  const auto shapes = frontend::makeInputShapes(frontend::parseInputsOption(kRmsNorm));
  const auto compiled = runtime::compileFusion(e.script.fusion(), compiler::CompileOptions(),
                                               scheduler::defaultDevice(), shapes, &pinned, false);
  const auto& seg = compiled.report.segments.at(static_cast<size_t>(e.target->segment));
  EXPECT_EQ(seg.paramsSource, kSourceTuner);
  EXPECT_EQ(seg.params, scheduler::paramsToJson(v.params));
}

TEST(SearchSpaceTest, SampledVariantsCompileWithNvrtcInParallelAndCache) {
  ExampleTarget e = exampleTarget("rms_norm.py", kRmsNorm);
  runtime::KernelCache cache{std::filesystem::path()};
  Builder builder(cache, 2);
  // The default, the first and the last variants, and two from the middle.
  const size_t n = e.space.variants.size();
  const std::vector<size_t> sample = {0, 1, n / 3, 2 * n / 3, n - 1};
  const auto results = builder.build(*e.target, e.space, sample);
  ASSERT_EQ(results.size(), sample.size());
  for (const BuildResult& r : results) {
    EXPECT_TRUE(r.ok) << e.space.variants[r.variant].label << ": " << r.error;
    EXPECT_FALSE(r.cached);
  }
  for (const BuildResult& r : builder.build(*e.target, e.space, sample)) {
    EXPECT_TRUE(r.cached) << "variant " << r.variant << " was compiled twice";
  }
  const auto pw = exampleTarget("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  const size_t m = pw.space.variants.size();
  for (const BuildResult& r : builder.build(*pw.target, pw.space, {0, m / 2, m - 1})) {
    EXPECT_TRUE(r.ok) << pw.space.variants[r.variant].label << ": " << r.error;
  }
}

}  // namespace
}  // namespace fuserlab::tuner
