// The pointwise scheduler: its refusals, its heuristic (reference,
// vectorization, 1-D or 2-D break point, block shape, unrolling, index type),
// the properties the report shows, and rejectParams on params from elsewhere.
#include <gtest/gtest.h>

#include "core/scheduler/pointwise/pointwise_heuristic.h"
#include "core/scheduler/pointwise/pointwise_scheduler.h"
#include "tests/scheduler/pointwise/scheduler_fixture.h"

namespace fuserlab::scheduler::test {
namespace {

constexpr std::string_view kAddOuterBroadcast = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.add(T0, T1)
fd.add_output(T2)
)";

constexpr std::string_view kAddSameShape = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.add(T0, T1)
fd.add_output(T2)
)";

constexpr std::string_view kSeed001Pointwise = R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
T3 = fd.ops.cast(T0, dtype=DataType.Float)
T35 = fd.ops.broadcast_in_dim(T1, shape=[16, 128, 1600], broadcast_dims=[2])
T36 = fd.ops.cast(T35, dtype=DataType.Float)
T37 = fd.ops.mul(T3, T36)
T42 = fd.ops.broadcast_in_dim(T2, shape=[16, 128, 1600], broadcast_dims=[2])
T43 = fd.ops.cast(T42, dtype=DataType.Float)
T44 = fd.ops.add(T37, T43)
T45 = fd.ops.cast(T44, dtype=DataType.BFloat16)
fd.add_output(T45)
)";

PointwiseParams paramsOf(const HeuristicParams& params) {
  EXPECT_TRUE(std::holds_alternative<PointwiseParams>(params));
  return std::get<PointwiseParams>(params);
}

TEST_F(PointwiseTest, RefusesReduction) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
)");
  const auto reason = PointwiseScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("has a reduction: "), std::string::npos) << *reason;
  EXPECT_NE(reason->find("sum("), std::string::npos) << *reason;
}

TEST_F(PointwiseTest, RefusesWelford) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)
fd.add_output(T1)
)");
  const auto reason = PointwiseScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("has a reduction: ", 0), 0u) << *reason;
}

TEST_F(PointwiseTest, RefusesMatmul) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.matmul(T0, T1)
fd.add_output(T2)
)");
  const auto reason = PointwiseScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("has a matmul: ", 0), 0u) << *reason;
}

TEST_F(PointwiseTest, RefusesScalarOnlySegment) {
  define(R"(
S0 = fd.define_scalar(None, dtype=DataType.Double)
S1 = fd.ops.mul(S0, S0)
fd.add_output(S1)
)");
  const auto reason = PointwiseScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("has no tensor output", 0), 0u) << *reason;
}

TEST_F(PointwiseTest, AcceptsIndexSelectAndGather) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
T2 = fd.ops.index_select(T0, T1, dim=0)
T3 = fd.ops.relu(T2)
fd.add_output(T3)
)");
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  const auto& info =
      bind({contiguous(DataType::Float, {4096, 256}), contiguous(DataType::Int, {512})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const auto params = scheduler.computeHeuristics(fusion(), info);
  // T0 rows are read along their inner axis; the index is broadcast there.
  EXPECT_EQ(paramsOf(params).vectorizationFactor, 4);
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
}

// A cross-entropy's label lookup: take_along_axis of [N, C] logits by an
// [N, 1] index. The class axis of the logits is read only at the index's
// value, so the [N, 1] reference covers it although it has extent 1 there.
TEST_F(PointwiseTest, AcceptsTakeAlongAxisOfOneColumn) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Int, is_cpu=False)
T2 = fd.ops.take_along_axis(T0, T1, dim=1)
T3 = fd.ops.neg(T2)
fd.add_output(T3)
)");
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  const auto& info =
      bind({contiguous(DataType::Float, {64, 50}), contiguous(DataType::Int, {64, 1})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  // Another use of the logits along the class axis still needs coverage.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Int, is_cpu=False)
T2 = fd.ops.take_along_axis(T0, T1, dim=1)
T4 = fd.ops.exp(T0)
T5 = fd.ops.slice(T4, start_indices=[0, 0], end_indices=[64, 1], strides=[1, 1])
T6 = fd.ops.add(T2, T5)
fd.add_output(T6)
)");
  const auto& info2 =
      bind({contiguous(DataType::Float, {64, 50}), contiguous(DataType::Int, {64, 1})});
  const auto reason = scheduler.rejectRunTime(fusion(), info2);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("axis 1 of T0"), std::string::npos) << *reason;
}

// Two cats of slices of one input: walking the first cat's output reaches
// the second's axes shifted (+5 rows, +28 columns), so a kernel indexed from
// the first would write only part of the second (the rest stayed poisoned,
// NaN, on an H200). The scheduler refuses; the segmenter splits them.
TEST_F(PointwiseTest, RefusesAnOutputTheReferenceWalkWritesOnlyPartOf) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[9, 14])
T2 = fd.ops.slice(T0, start_indices=[0, 14], end_indices=[9, 28])
T3 = fd.ops.slice(T0, start_indices=[0, 28], end_indices=[9, 42])
T4 = fd.ops.cat([T3, T1, T2], dim=1)
fd.add_output(T4)
T5 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[4, 42])
T6 = fd.ops.slice(T0, start_indices=[4, 0], end_indices=[9, 42])
T7 = fd.ops.cat([T6, T5], dim=0)
fd.add_output(T7)
)");
  PointwiseScheduler scheduler;
  const auto& info = bind({contiguous(DataType::Float, {9, 42})});
  const auto reason = scheduler.rejectRunTime(fusion(), info);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("would leave some of its elements unwritten"), std::string::npos)
      << *reason;
  // A slice of the reference's input as a second output is written whole.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.relu(T0)
T2 = fd.ops.slice(T1, start_indices=[0, 14], end_indices=[9, 28])
fd.add_output(T1)
fd.add_output(T2)
)");
  const auto& info2 = bind({contiguous(DataType::Float, {9, 42})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info2), std::nullopt);
}

TEST_F(PointwiseTest, ZeroSizeIsAccepted) {
  define(kAddSameShape);
  PointwiseScheduler scheduler;
  const auto& info =
      bind({contiguous(DataType::Float, {0, 128}), contiguous(DataType::Float, {0, 128})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const auto params = scheduler.computeHeuristics(fusion(), info);
  EXPECT_EQ(paramsOf(params).breakPoint, 0);
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
}

TEST_F(PointwiseTest, PlainAddIsOneDimensional) {
  define(kAddSameShape);
  const auto& info =
      bind({contiguous(DataType::Float, {1024, 4096}), contiguous(DataType::Float, {1024, 4096})});
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.breakPoint, 0);
  EXPECT_EQ(d.params.vectorizationFactor, 4);
  EXPECT_EQ(d.params.blockDimX, 128);
  EXPECT_EQ(d.params.blockDimY, 1);
  EXPECT_TRUE(d.params.useInt32Indexing);
  EXPECT_EQ(d.totalBytes, 3 * 1024 * 4096 * 4);
  ASSERT_EQ(d.candidates.size(), 1u);
  EXPECT_NE(d.candidates[0].verdict.find("saves less than 10%"), std::string::npos)
      << d.candidates[0].verdict;
}

TEST_F(PointwiseTest, OuterBroadcastAddTakesBreakPointOne) {
  define(kAddOuterBroadcast);
  const auto& info =
      bind({contiguous(DataType::Float, {1024, 4096}), contiguous(DataType::Float, {1, 4096})});
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.breakPoint, 1);
  EXPECT_EQ(d.params.vectorizationFactor, 4);
  EXPECT_EQ(d.params.blockDimX, 128);
  EXPECT_EQ(d.params.blockDimY, 1);
  EXPECT_FALSE(d.params.flipGrid);
  ASSERT_EQ(d.candidates.size(), 1u);
  EXPECT_EQ(d.candidates[0].verdict, "chosen");
  // T0 and T2 at full size, T1 once: two thirds of the 1-D traffic.
  EXPECT_EQ(d.candidates[0].transferBytes, (2 * 1024 * 4096 + 4096) * 4);
  EXPECT_EQ(d.transferBytes1d, 3 * 1024 * 4096 * 4);
  const auto params = scheduler.computeHeuristics(fusion(), info);
  EXPECT_EQ(paramsOf(params), d.params);
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
}

// The [1, N] input is the same for every row: the emitter loads it once for
// all the rows a thread unrolls, so large problems unroll 2 rows (RoPE on an
// H100: 72.5 us with 1 row, 58.5 with 2, 59.6 with 4); a problem that would
// fall under 2 waves of blocks does not.
TEST_F(PointwiseTest, OuterBroadcastUnrollsRowsThatShareItsLoads) {
  define(kAddOuterBroadcast);
  const auto& large =
      bind({contiguous(DataType::Float, {8192, 4096}), contiguous(DataType::Float, {1, 4096})});
  const PointwiseDecision d = decidePointwise(fusion(), large);
  EXPECT_EQ(d.params.breakPoint, 1);
  EXPECT_EQ(d.params.unrollFactorOuter, 2);
  EXPECT_EQ(d.params.unrollFactorInner, 1);
  EXPECT_NE(d.unrollReason.find("loaded once for the 2 rows each thread unrolls"),
            std::string::npos)
      << d.unrollReason;
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectParams(fusion(), large, scheduler.computeHeuristics(fusion(), large)),
            std::nullopt);

  const auto& small =
      bind({contiguous(DataType::Float, {1024, 4096}), contiguous(DataType::Float, {1, 4096})});
  EXPECT_EQ(decidePointwise(fusion(), small).params.unrollFactorOuter, 1);
}

TEST_F(PointwiseTest, InnerBroadcastAddTakesBreakPointOne) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.add(T0, T1)
fd.add_output(T2)
)");
  const auto& info =
      bind({contiguous(DataType::Float, {1024, 4096}), contiguous(DataType::Float, {1024, 1})});
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.breakPoint, 1);
  EXPECT_EQ(d.params.vectorizationFactor, 4);
  const auto* column = d.vectorization.find(irName("T1"));
  ASSERT_NE(column, nullptr);
  EXPECT_FALSE(column->vectorized);
}

TEST_F(PointwiseTest, SmallProblemStaysOneDimensional) {
  define(kAddOuterBroadcast);
  const auto& info =
      bind({contiguous(DataType::Float, {8, 1024}), contiguous(DataType::Float, {1, 1024})});
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.breakPoint, 0);
  EXPECT_NE(d.breakPointReason.find("too few for a 2-D schedule"), std::string::npos)
      << d.breakPointReason;
}

TEST_F(PointwiseTest, Seed001PointwiseKeepsVectorizationEight) {
  define(kSeed001Pointwise);
  const auto& info =
      bind({contiguous(DataType::BFloat16, {16, 128, 1600}), contiguous(DataType::BFloat16, {1600}),
            contiguous(DataType::BFloat16, {1600})});
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.vectorizationFactor, 8);
  // Weight and bias broadcast along [16, 128]: read once per column.
  EXPECT_EQ(d.params.breakPoint, 2);
  EXPECT_EQ(d.params.blockDimX * d.params.blockDimY, 128);
  const std::string properties = scheduler.properties(fusion(), info).dump(-1);
  EXPECT_NE(properties.find("\"max_allowed_vectorize_factor\":8"), std::string::npos) << properties;
  EXPECT_NE(properties.find("\"reference_shape\":[16,128,1600]"), std::string::npos) << properties;
}

TEST_F(PointwiseTest, MisalignedInputDropsTheFactor) {
  define(kAddSameShape);
  const auto& info = bind({contiguous(DataType::Float, {1024, 4096}),
                           strided(DataType::Float, {1024, 4096}, {4096, 1}, /*storageOffset=*/2)});
  const PointwiseDecision d = decidePointwise(fusion(), info);
  EXPECT_EQ(d.params.vectorizationFactor, 2);
  EXPECT_EQ(d.vectorization.reason(),
            irName("T1") + ": data pointer aligned to 8 bytes (2 Float elements)");
}

TEST_F(PointwiseTest, TransposeIsAcceptedUnvectorized) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)");
  const auto& info = bind({contiguous(DataType::Float, {4096, 4096})});
  PointwiseScheduler scheduler;
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  EXPECT_EQ(paramsOf(scheduler.computeHeuristics(fusion(), info)).vectorizationFactor, 1);
}

TEST_F(PointwiseTest, RefusesOutputsWithUnrelatedAxes) {
  define(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.relu(T0)
T3 = fd.ops.relu(T1)
fd.add_output(T2)
fd.add_output(T3)
)");
  const auto& info =
      bind({contiguous(DataType::Float, {1024}), contiguous(DataType::Float, {512})});
  const auto reason = PointwiseScheduler().rejectRunTime(fusion(), info);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("is not connected to the reference " + irName("T2")), std::string::npos)
      << *reason;
}

TEST_F(PointwiseTest, LargeTensorsUseInt64Indexing) {
  define(kAddSameShape);
  const auto& info = bind(
      {contiguous(DataType::Float, {65536, 65536}), contiguous(DataType::Float, {65536, 65536})});
  PointwiseScheduler scheduler;
  const auto params = scheduler.computeHeuristics(fusion(), info);
  EXPECT_FALSE(paramsOf(params).useInt32Indexing);
  PointwiseParams int32 = paramsOf(params);
  int32.useInt32Indexing = true;
  const auto reason = scheduler.rejectParams(fusion(), info, int32);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("spans 4294967296 elements"), std::string::npos) << *reason;
}

TEST_F(PointwiseTest, RejectParamsNamesTheLimitingTensor) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.relu(T0)
fd.add_output(T1)
)");
  const auto& info = bind({strided(DataType::Float, {1024, 18}, {32, 1})});
  PointwiseScheduler scheduler;
  PointwiseParams params;
  params.vectorizationFactor = 4;
  const auto reason = scheduler.rejectParams(fusion(), info, params);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason,
            "vectorization_factor 4 is more than the 2 the tensors "
            "allow at break point 0 (" +
                irName("T0") +
                ": innermost contiguous extent 18 is divisible by 2 but "
                "not by 4)");
  params.vectorizationFactor = 2;
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
}

TEST_F(PointwiseTest, RejectParamsChecksShapeAndDevice) {
  define(kAddOuterBroadcast);
  const auto& info =
      bind({contiguous(DataType::Float, {1024, 4096}), contiguous(DataType::Float, {1, 4096})});
  PointwiseScheduler scheduler;
  auto reasonFor = [&](PointwiseParams p) {
    return scheduler.rejectParams(fusion(), info, p).value_or("accepted");
  };
  PointwiseParams p;
  p.breakPoint = 2;
  EXPECT_EQ(reasonFor(p), "break_point 2 is outside the reference " + irName("T2") +
                              " of rank 2: use 0 for a 1-D schedule or 1 to 1");
  p = PointwiseParams();
  p.vectorizationFactor = 3;
  EXPECT_EQ(reasonFor(p), "vectorization_factor 3 is not 1, 2, 4, 8 or 16");
  p = PointwiseParams();
  p.blockDimX = 2048;
  EXPECT_NE(reasonFor(p).find("does not fit the 1024 threads per block"), std::string::npos);
  p = PointwiseParams();
  p.blockDimY = 2;
  EXPECT_NE(reasonFor(p).find("need a 2-D schedule"), std::string::npos);
  p = PointwiseParams();
  p.breakPoint = 1;
  p.blockDimX = 1;
  p.blockDimY = 1;
  p.flipGrid = true;  // 4096 inner blocks on grid y
  EXPECT_EQ(reasonFor(p), "accepted");
  p.flipGrid = false;
  p.breakPoint = 1;
  EXPECT_EQ(reasonFor(p), "accepted");
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, TransposeParams()),
            "expected pointwise params, got transpose params");
}

TEST_F(PointwiseTest, RejectParamsGridYLimit) {
  define(kAddOuterBroadcast);
  const auto& info =
      bind({contiguous(DataType::Float, {131072, 64}), contiguous(DataType::Float, {1, 64})});
  PointwiseParams p;
  p.breakPoint = 1;
  p.blockDimX = 64;
  p.blockDimY = 1;
  const auto reason = PointwiseScheduler().rejectParams(fusion(), info, p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("grid y would have 131072 blocks"), std::string::npos) << *reason;
  p.flipGrid = true;
  EXPECT_EQ(PointwiseScheduler().rejectParams(fusion(), info, p), std::nullopt);
}

TEST_F(PointwiseTest, RejectParamsRefusesBreakPointInsideReshape) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[64, 32, 256])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)");
  const auto& info = bind({contiguous(DataType::Float, {2048, 256})});
  PointwiseParams p;
  p.breakPoint = 1;
  const auto reason = PointwiseScheduler().rejectParams(fusion(), info, p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("a reshape maps axis 0 of " + irName("T0")), std::string::npos) << *reason;
  p.breakPoint = 2;
  EXPECT_EQ(PointwiseScheduler().rejectParams(fusion(), info, p), std::nullopt);
}

}  // namespace
}  // namespace fuserlab::scheduler::test
