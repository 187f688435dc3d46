// PersistentBufferTest: which tensors a normalization keeps resident, their
// bytes per reduction row, projection to (narrow) inputs, the budget and the
// vectorization limit, modelled on nvFuser's persistent buffer tests.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "core/frontend/script.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "tests/scheduler/persistent/bound_segment.h"

namespace fuserlab::scheduler {
namespace {

using persistent_test::BoundSegment;
using persistent_test::h100;
using persistent_test::seed000Segment;

class PersistentBufferTest : public ::testing::Test {};

std::vector<std::string> names(const std::vector<const ir::TensorView*>& tvs) {
  std::vector<std::string> out;
  for (const ir::TensorView* tv : tvs) out.push_back(tv->name());
  return out;
}

std::vector<std::string> bufferNames(const PersistentBufferInfo& info) {
  std::vector<std::string> out;
  for (const PersistentBuffer& b : info.buffers) out.push_back(b.tv->name());
  return out;
}

TEST_F(PersistentBufferTest, BufferCalculation) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  ASSERT_TRUE(a.reason.empty()) << a.reason;
  // T2 = set(cast(T0)) feeds the sum T3 and is read again by the add T5.
  ASSERT_EQ(bufferNames(a.info), std::vector<std::string>{"T2"});
  const PersistentBuffer& b = a.info.buffers[0];
  EXPECT_EQ(b.reduction->name(), "T3");
  EXPECT_EQ(b.usedAfterBy->name(), "T5");
  EXPECT_EQ(b.rowAxes, (std::vector<bool>{false, true}));
  EXPECT_EQ(a.extents.reductionExtent, 1024);
  EXPECT_EQ(a.extents.iterationExtent, 128);
  EXPECT_EQ(a.sizes.bufferBytes, std::vector<int64_t>{4 * 1024});
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * 1024);
}

TEST_F(PersistentBufferTest, ProjectToUpcastInput) {
  const int64_t s = 64 * 1024;
  BoundSegment segment(seed000Segment("BFloat16"), {{128, s}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  ASSERT_EQ(a.info.buffers.size(), 1u);
  const PersistentBuffer& b = a.info.buffers[0];
  EXPECT_TRUE(b.projectable) << b.notProjectableReason;
  EXPECT_EQ(names(b.projectedTo), std::vector<std::string>{"T0"});
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * s);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 2 * s);
  EXPECT_TRUE(a.sizes.projectPersistentBuffers);
  // The report keys the issue fixes.
  const std::string json = a.toJson().dump(-1);
  for (const char* key :
       {"\"persistent_buffer_bytes\":262144", "\"projected_persistent_buffer_bytes\":131072",
        "\"project_persistent_buffers\":true", "\"persistent_buffer_budget_bytes\":228352",
        "\"max_allowed_vectorize_factor\":8", "\"reduction_extent\":65536",
        "\"iteration_extent\":128", "\"projected_to\":[\"T0\"]"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

TEST_F(PersistentBufferTest, ForwardedCastLeavesNothingNarrowToProjectTo) {
  // After nvFuser's input forwarding the segment starts at the float upcast:
  // projecting recomputes from a float input, which saves nothing.
  const int64_t s = 64 * 1024;
  BoundSegment segment(seed000Segment("Float"), {{128, s}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  ASSERT_EQ(bufferNames(a.info), std::vector<std::string>{"T1"});
  EXPECT_EQ(names(a.info.buffers[0].projectedTo), std::vector<std::string>{"T0"});
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * s);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 4 * s);
  EXPECT_FALSE(a.sizes.projectPersistentBuffers);
  EXPECT_NE(a.describeSizes().find("no fewer"), std::string::npos) << a.describeSizes();
}

TEST_F(PersistentBufferTest, InputReadAfterItsReductionIsItsOwnBuffer) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.ops.sum(T0, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    T2 = fd.ops.sub(T0, T1)\n"
      "    fd.add_output(T2)\n",
      {{64, 300}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  ASSERT_EQ(bufferNames(a.info), std::vector<std::string>{"T0"});
  EXPECT_FALSE(a.info.buffers[0].projectable);
  EXPECT_EQ(a.info.buffers[0].notProjectableReason, "T0 is an input of the segment");
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * 300);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 4 * 300);
  EXPECT_FALSE(a.sizes.projectPersistentBuffers);
}

TEST_F(PersistentBufferTest, SoftmaxProjectsBothBuffersToOneInput) {
  // max's input T2 and sum's input T7 = exp(T2 - max) are both resident;
  // both recompute from the bf16 input T0 (through the per-row max, which
  // the kernel holds anyway), counted once.
  auto segment = BoundSegment::fromExample("resources/examples/softmax.py", h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment->fusion(), segment->info());
  ASSERT_EQ(bufferNames(a.info), (std::vector<std::string>{"T2", "T7"}));
  EXPECT_EQ(a.info.buffers[0].reduction->name(), "T3");
  EXPECT_EQ(a.info.buffers[0].usedAfterBy->name(), "T6");
  EXPECT_EQ(a.info.buffers[1].reduction->name(), "T8");
  EXPECT_EQ(a.info.buffers[1].usedAfterBy->name(), "T11");
  for (const PersistentBuffer& b : a.info.buffers) {
    EXPECT_TRUE(b.projectable) << b.tv->name() << ": " << b.notProjectableReason;
    EXPECT_EQ(names(b.projectedTo), std::vector<std::string>{"T0"});
  }
  EXPECT_EQ(a.sizes.persistentBufferBytes, 2 * 4 * 256);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 2 * 256);
  EXPECT_TRUE(a.sizes.projectPersistentBuffers);
}

TEST_F(PersistentBufferTest, LayerNormWeightsAreNotBuffers) {
  // Seed 001's reproducer: only the upcast T3 is kept across var_mean; the
  // weight and bias are read after it. nvFuser reports
  // max_persistent_buffer_size 3200 (projected) for these rows of 1600.
  auto segment =
      BoundSegment::fromExample("resources/examples/seed001_nanogpt_layer_norm.py", h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment->fusion(), segment->info());
  ASSERT_EQ(bufferNames(a.info), std::vector<std::string>{"T3"});
  EXPECT_EQ(a.info.buffers[0].reduction->name(), "T4");  // welford's avg
  EXPECT_EQ(a.sizes.persistentBufferBytes, 6400);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 3200);
  EXPECT_TRUE(a.sizes.projectPersistentBuffers);
  EXPECT_EQ(a.extents.iterationExtent, 16 * 128);
  EXPECT_EQ(a.vectorize.factor, 8);
}

TEST_F(PersistentBufferTest, WeightInTheProjectionCountsItsRow) {
  // y = x * w is kept across the sum; projecting recomputes it from both
  // bf16 inputs: x's row and w's row (which runs along the reduced axis).
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T3 = fd.ops.broadcast(T1, is_broadcast_dim=[True, False])\n"
      "    T4 = fd.ops.cast(T3, dtype=DataType.Float)\n"
      "    T5 = fd.ops.mul(T2, T4)\n"
      "    T6 = fd.ops.sum(T5, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    T7 = fd.ops.div(T5, T6)\n"
      "    fd.add_output(T7)\n",
      {{32, 512}, {512}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  ASSERT_EQ(a.info.buffers.size(), 1u);
  EXPECT_EQ(names(a.info.buffers[0].projectedTo), (std::vector<std::string>{"T0", "T1"}));
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * 512);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 2 * 512 + 2 * 512);
  // Projection is possible but keeps as many bytes: not chosen.
  EXPECT_FALSE(a.sizes.projectPersistentBuffers);
}

TEST_F(PersistentBufferTest, PlainReductionsHaveNoBuffer) {
  auto segment = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment->fusion(), segment->info());
  ASSERT_TRUE(a.reason.empty()) << a.reason;
  EXPECT_TRUE(a.info.buffers.empty());
  EXPECT_EQ(a.info.fullRowAfterReduction, nullptr);
  EXPECT_EQ(a.sizes.persistentBufferBytes, 0);
}

TEST_F(PersistentBufferTest, BatchNormKeepsTheColumn) {
  auto segment = BoundSegment::fromExample("resources/examples/batch_norm_outer.py", h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment->fusion(), segment->info());
  ASSERT_TRUE(a.pattern.has_value());
  EXPECT_FALSE(a.pattern->innermost);
  ASSERT_EQ(bufferNames(a.info), std::vector<std::string>{"T3"});
  EXPECT_EQ(a.extents.reductionExtent, 16384);
  EXPECT_EQ(a.extents.iterationExtent, 128);
  EXPECT_EQ(a.sizes.persistentBufferBytes, 4 * 16384);
  EXPECT_EQ(a.sizes.projectedPersistentBufferBytes, 2 * 16384);
  // Its widest inputs are the float weight and bias: 16 bytes hold 4.
  EXPECT_EQ(a.vectorize.factor, 4);
}

TEST_F(PersistentBufferTest, BudgetOnH100) {
  const PersistentBufferBudget budget = persistentBufferBudget(h100());
  EXPECT_EQ(budget.registerBytes, 65536 * 4 / 2);
  EXPECT_EQ(budget.sharedMemoryBytes, 232448 - 1024 * 4);
  EXPECT_EQ(budget.budgetBytes(), 228352);
  EXPECT_EQ(budget.storageFor(131072), PersistentStorage::Registers);
  EXPECT_EQ(budget.storageFor(131073), PersistentStorage::SharedMemory);
  EXPECT_EQ(budget.storageFor(228353), std::nullopt);
}

TEST_F(PersistentBufferTest, VectorizeLimitedByOddRow) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 2047}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  EXPECT_EQ(a.vectorize.dtypeFactor, 8);
  EXPECT_EQ(a.vectorize.factor, 1);
  EXPECT_NE(a.vectorize.limitedBy.find("2047"), std::string::npos) << a.vectorize.limitedBy;
}

TEST_F(PersistentBufferTest, VectorizeLimitedByMisalignedInput) {
  // A bf16 view starting 2 elements (4 bytes) into its storage: accesses of
  // 2 elements stay aligned, wider ones do not.
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100(), {2});
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  EXPECT_EQ(a.vectorize.factor, 2);
  EXPECT_NE(a.vectorize.limitedBy.find("T0: data pointer aligned to 4 bytes"), std::string::npos)
      << a.vectorize.limitedBy;
}

// A float [rows, 1] rstd beside bf16 rows is read once per row, not by
// vectors: an inner reduction's chunks are 16 bytes of bf16 (8), not of
// float (4). An outer one (a column sum of the same product) keeps the
// widest-input rule.
std::string rstdScaledRows(int reducedAxis) {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], "
         "dtype=DataType.Float, is_cpu=False)\n"
         "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T3 = fd.ops.mul(T2, T1)\n"
         "    T4 = fd.ops.sum(T3, dims=[" +
         std::to_string(reducedAxis) +
         "], keepdim=False, dtype=DataType.Null)\n"
         "    fd.add_output(T4)\n";
}

TEST_F(PersistentBufferTest, AnInputConstantAlongTheRowSetsNoVectorWidth) {
  BoundSegment inner(rstdScaledRows(1), {{128, 1024}, {128, 1}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(inner.fusion(), inner.info());
  EXPECT_EQ(a.vectorize.dtypeFactor, 8) << a.vectorize.limitedBy;
  EXPECT_EQ(a.vectorize.factor, 8) << a.vectorize.limitedBy;
  EXPECT_NE(a.vectorize.limitedBy.find("BFloat16"), std::string::npos) << a.vectorize.limitedBy;
  // Shifted rows: the float input's alignment does not halve them either.
  BoundSegment odd(rstdScaledRows(1), {{128, 1023}, {128, 1}}, h100(), {0, 1});
  const PersistentBufferAnalysis b = analyzePersistentBuffers(odd.fusion(), odd.info());
  EXPECT_EQ(b.vectorize.shiftedRowsFactor, 8);

  BoundSegment outer(rstdScaledRows(0), {{128, 1024}, {128, 1}}, h100());
  const PersistentBufferAnalysis c = analyzePersistentBuffers(outer.fusion(), outer.info());
  EXPECT_EQ(c.vectorize.dtypeFactor, 4) << c.vectorize.limitedBy;
}

// A row sum over the innermost axis beside a sum over only some of the
// others: no pattern (row sums beside sums over every other axis are the
// combined kernel's column sums; a sum over axis 0 of a rank-3 tensor is
// not).
TEST_F(PersistentBufferTest, ReductionsOverDifferentAxesHaveNoPattern) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.ops.sum(T0, dims=[2], keepdim=False, dtype=DataType.Null)\n"
      "    T2 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)\n"
      "    fd.add_output(T1)\n"
      "    fd.add_output(T2)\n",
      {{8, 64, 32}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  EXPECT_NE(a.reason.find("reduce different axes"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("T1 (axes [2] of T0"), std::string::npos) << a.reason;
}

// A row sum and a column sum of one rank-2 tensor: the row sum is the
// pattern, the column sum its column reduction; a max over the columns is
// no column sum, so that pair has no pattern.
TEST_F(PersistentBufferTest, ARowSumBesideAColumnSumIsACombinedPattern) {
  for (const char* op : {"sum", "max"}) {
    SCOPED_TRACE(op);
    BoundSegment segment(
        std::string("from nvfuser import FusionDefinition, DataType\n"
                    "def f(fd : FusionDefinition) -> None :\n"
                    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                    "dtype=DataType.Float, is_cpu=False)\n"
                    "    T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)\n"
                    "    T2 = fd.ops.") +
            op +
            "(T0, dims=[0], keepdim=False, dtype=DataType.Null)\n"
            "    fd.add_output(T1)\n"
            "    fd.add_output(T2)\n",
        {{64, 32}}, h100());
    const ReductionPatternResult r = analyzeReductionPattern(segment.fusion());
    if (std::string(op) == "max") {
      EXPECT_FALSE(r.pattern.has_value());
      EXPECT_NE(r.reason.find("reduce different axes"), std::string::npos) << r.reason;
      continue;
    }
    ASSERT_TRUE(r.pattern.has_value()) << r.reason;
    ASSERT_EQ(r.pattern->reductions.size(), 1u);
    EXPECT_EQ(r.pattern->reductions[0].output->name(), "T1");
    ASSERT_EQ(r.pattern->columnReductions.size(), 1u);
    EXPECT_EQ(r.pattern->columnReductions[0].output->name(), "T2");
    EXPECT_TRUE(r.pattern->innermost);
  }
}

// A sum over axis 0 and a max over axis 0 of a permute of its result:
// the same position, different axes (the differential tester's seed 632936:
// an outer persistent kernel took both and was wrong on an H200).
TEST_F(PersistentBufferTest, ReductionsAcrossAPermuteHaveNoPattern) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.ops.sum(T0, dims=[0], keepdim=True)\n"
      "    T2 = fd.ops.sub(T0, T1)\n"
      "    T3 = fd.ops.permute(T2, dims=[1, 0, 2])\n"
      "    T4 = fd.ops.max(T3, dims=[0], keepdim=False)\n"
      "    fd.add_output(T4)\n",
      {{16, 8, 32}}, h100());
  const PersistentBufferAnalysis a = analyzePersistentBuffers(segment.fusion(), segment.info());
  EXPECT_NE(a.reason.find("reduce different axes through permute"), std::string::npos) << a.reason;
}

// Issue 43: a chain of N normalizations (x - broadcast(sum(x)), repeated)
// walked the whole segment once per reduction and projected each buffer
// back through the whole chain: 8,000 took 13 s here. The walks stop at the
// chain's cuts and share what lies below them, so 8,000 take a few tens of
// milliseconds; the bound is far above that and far below the old time.
TEST_F(PersistentBufferTest, AChainOf8000NormalizationsIsNearLinear) {
  constexpr int kNormalizations = 8000;
  std::ostringstream script;
  script << "from nvfuser import FusionDefinition, DataType\n"
            "with FusionDefinition() as fd:\n"
            "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
            "dtype=DataType.Float)\n";
  for (int i = 0; i < kNormalizations; ++i) {
    const int x = 3 * i, s = x + 1, b = x + 2, y = x + 3;
    script << "    T" << s << " = fd.ops.sum(T" << x << ", dims=[1], keepdim=False, "
           << "dtype=DataType.Null)\n"
           << "    T" << b << " = fd.ops.broadcast(T" << s << ", is_broadcast_dim=[False, True])\n"
           << "    T" << y << " = fd.ops.sub(T" << x << ", T" << b << ")\n";
  }
  script << "    fd.add_output(T" << 3 * kNormalizations << ")\n";
  const frontend::Script read = frontend::readScript(script.str(), "chain.py");
  const ReductionPatternResult pattern = analyzeReductionPattern(read.fusion());
  ASSERT_TRUE(pattern.pattern.has_value()) << pattern.reason;

  const auto begin = std::chrono::steady_clock::now();
  const PersistentBufferInfo info = findPersistentBuffers(read.fusion(), *pattern.pattern);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 2.0) << "findPersistentBuffers of " << kNormalizations
                          << " chained normalizations";
  // Each running value is kept across the next sum and recomputed from T0,
  // which is kept itself across the first.
  ASSERT_EQ(info.buffers.size(), size_t{kNormalizations});
  EXPECT_EQ(info.buffers[0].tv->name(), "T0");
  EXPECT_FALSE(info.buffers[0].projectable);
  for (int i = 1; i < kNormalizations; ++i) {
    const PersistentBuffer& b = info.buffers[i];
    ASSERT_EQ(b.tv->name(), "T" + std::to_string(3 * i)) << i;
    EXPECT_EQ(b.reduction->name(), "T" + std::to_string(3 * i + 1));
    EXPECT_EQ(b.usedAfterBy->name(), "T" + std::to_string(3 * i + 3));
    EXPECT_EQ(b.rowAxes, (std::vector<bool>{false, true}));
    ASSERT_TRUE(b.projectable) << b.notProjectableReason;
    EXPECT_EQ(names(b.projectedTo), std::vector<std::string>{"T0"});
  }
  ASSERT_EQ(info.projectionInputs.size(), 1u);
  EXPECT_EQ(info.fullRowAfterReduction->name(), "T3");
  EXPECT_TRUE(info.nonNormalizationBroadcast.empty());
}

}  // namespace
}  // namespace fuserlab::scheduler
