// The vectorization analysis: the factor every input and output allows, and
// the reason of the tensor that limits it, for inner extents, strides,
// misaligned pointers, permuted allocation domains, reshapes and seed 001's
// broadcast and expanded weight and bias.
#include <gtest/gtest.h>

#include "core/scheduler/analysis/vectorization.h"
#include "tests/scheduler/pointwise/scheduler_fixture.h"

namespace fuserlab::scheduler::test {
namespace {

constexpr std::string_view kRelu2d = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.relu(T0)
fd.add_output(T1)
)";

constexpr std::string_view kRelu2dBf16 = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.relu(T0)
fd.add_output(T1)
)";

TEST_F(PointwiseTest, VectorizeInnerSize17IsOdd) {
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 17}, {32, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 1);
  EXPECT_EQ(analysis.limitingTensor, irName("T0"));
  EXPECT_EQ(analysis.reason(), irName("T0") + ": innermost contiguous extent 17 is odd");
}

TEST_F(PointwiseTest, VectorizeInnerSize18AllowsTwo) {
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 18}, {32, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 2);
  EXPECT_EQ(analysis.reason(), irName("T0") +
                                   ": innermost contiguous extent 18 is "
                                   "divisible by 2 but not by 4");
}

TEST_F(PointwiseTest, VectorizeInnerSize32FloatAllowsFour) {
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 32}, {32, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 4);
  EXPECT_EQ(analysis.bytesPerAccess(), 16);
  const auto* input = analysis.find(irName("T0"));
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->innerExtent, 1024 * 32);  // rows merge into one run
  EXPECT_EQ(input->reason, irName("T0") + ": 16-byte accesses hold 4 Float elements");
}

TEST_F(PointwiseTest, VectorizeInnerSize32Bf16AllowsEight) {
  define(kRelu2dBf16);
  bind({strided(DataType::BFloat16, {1024, 32}, {32, 1})});
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 8);
}

TEST_F(PointwiseTest, VectorizeContiguousRowsMergeAcrossOddInnerSize) {
  // [1024, 17] contiguous: the schedule flattens the rows, so the run is
  // 17408 elements long and four floats fit.
  define(kRelu2d);
  bind({contiguous(DataType::Float, {1024, 17})});
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 4);
}

TEST_F(PointwiseTest, VectorizeOuterStrideMustBeAMultiple) {
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 1600}, {1601, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 1);
  EXPECT_EQ(analysis.reason(), irName("T0") + ": stride 1601 of axis 0 is not a multiple of 2");
}

TEST_F(PointwiseTest, VectorizeMisalignedBasePointer) {
  // A storage offset of one float: the data pointer is 4-byte aligned.
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 32}, {32, 1}, /*storageOffset=*/1)});
  EXPECT_EQ(info().inputs[0].alignmentBytes, 4);
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 1);
  EXPECT_EQ(analysis.reason(),
            irName("T0") + ": data pointer aligned to 4 bytes (1 Float element)");
}

TEST_F(PointwiseTest, VectorizeAlignmentSetDirectly) {
  define(kRelu2d);
  bind({strided(DataType::Float, {1024, 32}, {32, 1})});
  SegmentRuntimeInfo eightBytes = info();
  eightBytes.inputs[0].alignmentBytes = 8;
  EXPECT_EQ(analyzeVectorization(fusion(), eightBytes).factor, 2);
}

TEST_F(PointwiseTest, VectorizePermutedAllocationTracesInnerAxis) {
  // Column-major input and output: the innermost allocation axis of both is
  // logical axis 0, and the schedule walks it.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.ops.relu(T0)
fd.add_output(T1, stride_order=[0, 1])
)");
  bind({strided(DataType::Float, {1024, 768}, {1, 1024})});
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 4);
}

TEST_F(PointwiseTest, VectorizePermuteOfColumnMajorInput) {
  // permute(T0, [1, 0]) of a column-major input: the output's innermost axis
  // is the input's innermost allocation axis.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)");
  bind({strided(DataType::Float, {1024, 768}, {1, 1024})});
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 4);
}

TEST_F(PointwiseTest, VectorizeTransposedInputLimitsToOne) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.ops.relu(T0)
fd.add_output(T1)
)");
  bind({strided(DataType::Float, {1024, 768}, {1, 1024})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 1);
  EXPECT_NE(analysis.reason().find("not its innermost allocation axis"), std::string::npos)
      << analysis.reason();
}

TEST_F(PointwiseTest, VectorizeSizeOneColumnIsNotATranspose) {
  // A [rows, 1] float input (a saved mean or rstd) with strides (1, 1),
  // expanded along the rows by broadcast_in_dim: one value per row, read
  // without vectors, not a transpose, so the bf16 tensors keep 16-byte
  // vectors. It limited every LayerNorm backward to 1.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.broadcast_in_dim(T1, shape=[64, 4096], broadcast_dims=[0, 1])
T4 = fd.ops.sub(T2, T3)
T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
fd.add_output(T5)
)");
  bind({strided(DataType::BFloat16, {64, 4096}, {4096, 1}),
        strided(DataType::Float, {64, 1}, {1, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 8) << analysis.reason();
  const auto* column = analysis.find(irName("T1"));
  ASSERT_NE(column, nullptr);
  EXPECT_FALSE(column->vectorized);
  EXPECT_NE(column->reason.find("extent 1 along the reference's innermost axis"), std::string::npos)
      << column->reason;
}

// Seed 001's pointwise tail: weight and bias [1600] broadcast to
// [16, 128, 1600] must not limit the bf16 factor of 8.
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

TEST_F(PointwiseTest, VectorizeSeed001BroadcastWeightKeepsEight) {
  define(kSeed001Pointwise);
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}), contiguous(DataType::BFloat16, {1600}),
        contiguous(DataType::BFloat16, {1600})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 8);
  const auto* weight = analysis.find(irName("T1"));
  ASSERT_NE(weight, nullptr);
  EXPECT_TRUE(weight->vectorized);
  EXPECT_EQ(weight->innerExtent, 1600);
  EXPECT_EQ(weight->limit, 8);
}

TEST_F(PointwiseTest, VectorizeSeed001ExpandedBroadcastKeepsEight) {
  // As bookending from the inputs leaves it: weight and bias broadcast to
  // [1, 1, 1600] and expanded to [16, 128, 1600].
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
T4 = fd.ops.broadcast_in_dim(T1, shape=[1, 1, 1600], broadcast_dims=[2])
T5 = fd.ops.expand(T4, shape=[16, 128, 1600])
T8 = fd.ops.cast(T0, dtype=DataType.Float)
T20 = fd.ops.cast(T5, dtype=DataType.Float)
T21 = fd.ops.mul(T8, T20)
T24 = fd.ops.cast(T21, dtype=DataType.BFloat16)
fd.add_output(T24)
)");
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}), contiguous(DataType::BFloat16, {1600})});
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 8);
}

TEST_F(PointwiseTest, VectorizeSeed001ExpandedSegmentInputKeepsEight) {
  // The kernel segment's input after bookending: an expanded tensor
  // [16, 128, 1600] with strides [0, 0, 1], not materialized. Its expanded
  // axes contribute nothing to its run of 1600, and do not drop the factor.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
T1 = fd.define_tensor(sizes=[16, 128, 1600], strides=[0, 0, 1], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.cast(T1, dtype=DataType.Float)
T4 = fd.ops.mul(T2, T3)
T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
fd.add_output(T5)
)");
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}),
        strided(DataType::BFloat16, {16, 128, 1600}, {0, 0, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 8);
  EXPECT_EQ(analysis.find(irName("T1"))->innerExtent, 1600);
}

TEST_F(PointwiseTest, VectorizeExpandedBroadcastIrInput) {
  // The same segment input as the IR gives it to a segment: Broadcast axes
  // with expanded extents.
  ir::Fusion fusion;
  auto* d0 = fusion.newScalar(DataType::Int);
  auto* d1 = fusion.newScalar(DataType::Int);
  auto* d2 = fusion.newScalar(DataType::Int);
  TensorView* x = fusion.newTensorView({fusion.newIterDomain(d0, ir::IterType::Iteration),
                                        fusion.newIterDomain(d1, ir::IterType::Iteration),
                                        fusion.newIterDomain(d2, ir::IterType::Iteration)},
                                       DataType::BFloat16);
  TensorView* w =
      fusion.newTensorView({fusion.newIterDomain(fusion.constInt(1), ir::IterType::Broadcast, d0),
                            fusion.newIterDomain(fusion.constInt(1), ir::IterType::Broadcast, d1),
                            fusion.newIterDomain(d2, ir::IterType::Iteration)},
                           DataType::BFloat16);
  fusion.addInput(x);
  fusion.addInput(w);
  TensorView* out = fusion.newTensorView({fusion.newIterDomain(d0, ir::IterType::Iteration),
                                          fusion.newIterDomain(d1, ir::IterType::Iteration),
                                          fusion.newIterDomain(d2, ir::IterType::Iteration)},
                                         DataType::BFloat16);
  ir::ExprAttrs mul;
  mul.binaryOp = ir::BinaryOpType::Mul;
  fusion.newExpr(ir::ExprType::Binary, {x, w}, {out}, mul);
  fusion.addOutput(out);
  use(fusion);
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}),
        strided(DataType::BFloat16, {16, 128, 1600}, {0, 0, 1})});
  const auto analysis = analyzeVectorization(fusion, info());
  EXPECT_EQ(analysis.factor, 8);
  EXPECT_EQ(analysis.find(w->name())->innerExtent, 1600);
}

TEST_F(PointwiseTest, VectorizeSeed001WholeReproducerKeepsEight) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
T3 = fd.ops.cast(T0, dtype=DataType.Float)
T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=False)
T10 = fd.ops.broadcast_in_dim(T4, shape=[16, 128, 1], broadcast_dims=[0, 1])
T15 = fd.ops.broadcast_in_dim(T5, shape=[16, 128, 1], broadcast_dims=[0, 1])
S16 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
T17 = fd.ops.add(T10, S16)
T18 = fd.ops.rsqrt(T17)
T23 = fd.ops.broadcast_in_dim(T15, shape=[16, 128, 1600], broadcast_dims=[0, 1, 2])
T24 = fd.ops.sub(T3, T23)
T29 = fd.ops.broadcast_in_dim(T18, shape=[16, 128, 1600], broadcast_dims=[0, 1, 2])
T30 = fd.ops.mul(T24, T29)
T35 = fd.ops.broadcast_in_dim(T1, shape=[16, 128, 1600], broadcast_dims=[2])
T36 = fd.ops.cast(T35, dtype=DataType.Float)
T37 = fd.ops.mul(T30, T36)
T42 = fd.ops.broadcast_in_dim(T2, shape=[16, 128, 1600], broadcast_dims=[2])
T43 = fd.ops.cast(T42, dtype=DataType.Float)
T44 = fd.ops.add(T37, T43)
T45 = fd.ops.cast(T44, dtype=DataType.BFloat16)
fd.add_output(T45)
)");
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}), contiguous(DataType::BFloat16, {1600}),
        contiguous(DataType::BFloat16, {1600})});
  // The persistent schedulers vectorize the reduction axis only.
  VectorizationQuery query;
  query.breakPoint = 2;
  EXPECT_EQ(analyzeVectorization(fusion(), info(), query).factor, 8);
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 8);
}

TEST_F(PointwiseTest, VectorizeThroughReshapeSplittingAnAxis) {
  // [2048, 1600] with a row stride of 1602 reshaped to [16, 128, 1600]: the
  // run of the input is one row, and its row stride allows 2.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[16, 128, 1600])
T2 = fd.ops.neg(T1)
fd.add_output(T2)
)");
  bind({strided(DataType::BFloat16, {2048, 1600}, {1602, 1})});
  auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 2);
  EXPECT_EQ(analysis.find(irName("T0"))->innerExtent, 1600);
  EXPECT_EQ(analysis.reason(), irName("T0") + ": stride 1602 of axis 0 is not a multiple of 4");

  bind({contiguous(DataType::BFloat16, {2048, 1600})});
  analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 8);
  EXPECT_EQ(analysis.find(irName("T0"))->innerExtent, 2048 * 1600);
}

TEST_F(PointwiseTest, VectorizeThroughReshapeMergingAxes) {
  // [256, 3, 5] to [256, 15]: the output's inner axis walks two input axes.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[False, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[256, 15])
T2 = fd.ops.abs(T1)
fd.add_output(T2)
)");
  bind({strided(DataType::Float, {256, 3, 5}, {16, 5, 1})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.find(irName("T0"))->innerExtent, 15);
  EXPECT_EQ(analysis.factor, 1);
}

TEST_F(PointwiseTest, VectorizeMixedDtypesTakeTheNarrowestAccess) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
fd.add_output(T1)
)");
  bind({contiguous(DataType::BFloat16, {64, 64})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 4);
  EXPECT_EQ(analysis.limitingTensor, irName("T1"));
}

// Split wide accesses (the pointwise scheduler's query): a vector holds 16
// bytes of the narrowest vectorized dtype, a wider tensor's vector two
// 16-byte accesses; its data pointer must still hold a whole vector.
TEST_F(PointwiseTest, VectorizeSplitWideAccessesGivesTheNarrowestSixteenBytes) {
  constexpr std::string_view kCastUp = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
fd.add_output(T1)
)";
  VectorizationQuery split;
  split.splitWideAccesses = true;
  define(kCastUp);
  bind({contiguous(DataType::BFloat16, {64, 64})});
  const auto analysis = analyzeVectorization(fusion(), info(), split);
  EXPECT_EQ(analysis.factor, 8);
  EXPECT_EQ(analysis.bytesPerAccess(), 32);
  EXPECT_EQ(analysis.find(irName("T1"))->reason,
            irName("T1") +
                ": a vector holds 8 Float elements, 2 16-byte accesses (16 bytes of the "
                "narrowest dtype)");
  EXPECT_EQ(analysis.find(irName("T0"))->reason,
            irName("T0") + ": 16-byte accesses hold 8 BFloat16 elements");

  // A float input 16-byte aligned (4 floats in): 4 elements, as without.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.BFloat16)
fd.add_output(T1)
)");
  bind({strided(DataType::Float, {64, 64}, {64, 1}, /*storageOffset=*/4)});
  const auto misaligned = analyzeVectorization(fusion(), info(), split);
  EXPECT_EQ(misaligned.factor, 4);
  EXPECT_EQ(misaligned.limitingTensor, irName("T0"));

  // One dtype: one access a vector, split or not.
  define(kRelu2d);
  bind({contiguous(DataType::Float, {64, 64})});
  EXPECT_EQ(analyzeVectorization(fusion(), info(), split).factor, 4);

  // A bool output counts as 2 bytes: bf16 beside it keeps vectors of 8 (16
  // elements, two bf16 accesses a vector, were slower), a float input gets 8.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.add(T2, T1)
T4 = fd.ops.gt(T3, fd.define_scalar(0.0, dtype=DataType.Double))
fd.add_output(T4)
)");
  bind({contiguous(DataType::BFloat16, {64, 64}), contiguous(DataType::Float, {64, 64})});
  const auto mask = analyzeVectorization(fusion(), info(), split);
  EXPECT_EQ(mask.factor, 8) << mask.reason();
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.gt(T1, fd.define_scalar(0.0, dtype=DataType.Double))
fd.add_output(T2)
)");
  bind({contiguous(DataType::BFloat16, {64, 64})});
  EXPECT_EQ(analyzeVectorization(fusion(), info(), split).factor, 8);
}

TEST_F(PointwiseTest, VectorizeBreakPointLimitsTheRun) {
  define(kRelu2d);
  bind({contiguous(DataType::Float, {1024, 18})});
  VectorizationQuery query;
  query.breakPoint = 1;
  EXPECT_EQ(analyzeVectorization(fusion(), info(), query).factor, 2);
  EXPECT_EQ(analyzeVectorization(fusion(), info()).factor, 4);
}

TEST_F(PointwiseTest, VectorizeSliceOffsetMustBeAMultiple) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 2], end_indices=[64, 66], strides=[1, 1])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)");
  bind({contiguous(DataType::Float, {64, 128})});
  const auto analysis = analyzeVectorization(fusion(), info());
  EXPECT_EQ(analysis.factor, 2);
  EXPECT_NE(analysis.reason().find("shifts its inner run by 2 elements"), std::string::npos)
      << analysis.reason();
}

TEST_F(PointwiseTest, VectorizationJsonNamesEveryTensor) {
  define(kSeed001Pointwise);
  bind({contiguous(DataType::BFloat16, {16, 128, 1600}), contiguous(DataType::BFloat16, {1600}),
        contiguous(DataType::BFloat16, {1600})});
  const std::string json = analyzeVectorization(fusion(), info()).toJson().dump(-1);
  EXPECT_NE(json.find("\"factor\":8"), std::string::npos) << json;
  EXPECT_NE(json.find("\"tensor\":\"" + irName("T2") + "\""), std::string::npos);
}

}  // namespace
}  // namespace fuserlab::scheduler::test
