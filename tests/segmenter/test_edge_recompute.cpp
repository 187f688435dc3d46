// Edge recomputation and sibling reductions (issue 45, item 1): a LayerNorm
// backward with weight and bias gradients, as Thunder writes it, was three
// kernels with a float xhat passed between two of them; it is two now, with
// no tensor passed between segments.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduler/scheduler_type.h"
#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using ir::DataType;
using scheduler::SchedulerType;
using testing_support::countScheduler;
using testing_support::shape;

// grad_out T0, x T1, mean T2, rstd T3 ([T, 1] float), weight T4; outputs
// dx (T26), dw (T29) and db (T31), each cast to bf16.
constexpr const char* kLayerNormBackward = R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T9 = fd.ops.sub(T6, T2)
    T10 = fd.ops.mul(T9, T3)
    T11 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[1])
    T12 = fd.ops.cast(T11, dtype=DataType.Float)
    T13 = fd.ops.mul(T5, T12)
    T14 = fd.ops.sum(T13, dims=[1], keepdim=True, dtype=DataType.Null)
    T15 = fd.ops.mul(T13, T10)
    T16 = fd.ops.sum(T15, dims=[1], keepdim=True, dtype=DataType.Null)
    S17 = fd.define_scalar(0.0009765625, dtype=DataType.Double)
    T18 = fd.ops.mul(T14, S17)
    T19 = fd.ops.mul(T16, S17)
    T22 = fd.ops.sub(T13, T18)
    T23 = fd.ops.mul(T10, T19)
    T24 = fd.ops.sub(T22, T23)
    T25 = fd.ops.mul(T24, T3)
    T26 = fd.ops.cast(T25, dtype=DataType.BFloat16)
    fd.add_output(T26)
    T27 = fd.ops.mul(T5, T10)
    T28 = fd.ops.sum(T27, dims=[0], keepdim=False, dtype=DataType.Null)
    T29 = fd.ops.cast(T28, dtype=DataType.BFloat16)
    fd.add_output(T29)
    T30 = fd.ops.sum(T5, dims=[0], keepdim=False, dtype=DataType.Null)
    T31 = fd.ops.cast(T30, dtype=DataType.BFloat16)
    fd.add_output(T31)
)";

class EdgeRecomputeTest : public testing_support::SegmenterFixture {
 protected:
  SegmentedFusion layerNormBackward(int64_t rows, int64_t hidden) {
    return segment(kLayerNormBackward,
                   {shape(DataType::BFloat16, {rows, hidden}),
                    shape(DataType::BFloat16, {rows, hidden}), shape(DataType::Float, {rows, 1}),
                    shape(DataType::Float, {rows, 1}), shape(DataType::BFloat16, {hidden})});
  }
};

TEST_F(EdgeRecomputeTest, LayerNormBackwardIsOneCombinedKernel) {
  const SegmentedFusion segmented = layerNormBackward(8192, 1024);
  // dx with dw and db, two column sums of the same inputs, in one inner
  // persistent kernel (issue 45 item 1): no edge, xhat computed once.
  ASSERT_EQ(segmented.groups().size(), 1u) << segmented.toString();
  EXPECT_EQ(countScheduler(segmented, SchedulerType::InnerPersistent), 1);
  EXPECT_TRUE(segmented.edges().empty()) << segmented.toString();
}

// Rows too long to keep resident (256 Ki bf16 elements, 1 MiB of x and dy
// a row): no combined kernel. dw and db, two column sums of the same
// inputs, share one reduction kernel, and xhat is recomputed in it from x
// rather than passed along as a float edge.
TEST_F(EdgeRecomputeTest, LayerNormBackwardOfLongRowsRecomputesXhatAndCombinesItsColumnSums) {
  const SegmentedFusion segmented = layerNormBackward(64, 262144);
  EXPECT_EQ(countScheduler(segmented, SchedulerType::InnerPersistent), 0) << segmented.toString();
  const auto recompute = decisions("recompute");
  ASSERT_FALSE(recompute.empty());
  EXPECT_TRUE(recompute[0].accepted) << recompute[0].reason;
  // xhat: [64, 262144] float, read instead as x in bf16.
  EXPECT_NE(recompute[0].reason.find("(64 MiB, 3 pointwise ops of fusion inputs and their views)"),
            std::string::npos)
      << recompute[0].reason;
  EXPECT_NE(recompute[0].reason.find("32 MiB more read"), std::string::npos) << recompute[0].reason;
  bool siblingsMerged = false;
  for (const auto& d : decisions("sibling_merge")) siblingsMerged |= d.accepted;
  EXPECT_TRUE(siblingsMerged);
}

TEST_F(EdgeRecomputeTest, AnEdgeCheaperToPassThanToRecomputeStaysAnEdge) {
  // E = a + b + c in float: recomputing it would read three bf16 inputs
  // (6 bytes an element, 24 MiB) where the edge moves 4 (16 MiB); the
  // column sum reads E.
  const SegmentedFusion segmented =
      segment(R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.cast(T2, dtype=DataType.Float)
    T6 = fd.ops.add(T3, T4)
    T7 = fd.ops.add(T6, T5)
    T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T8)
    T9 = fd.ops.sum(T7, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T9)
)",
              {shape(DataType::BFloat16, {4096, 1024}), shape(DataType::BFloat16, {4096, 1024}),
               shape(DataType::BFloat16, {4096, 1024})});
  ASSERT_EQ(segmented.groups().size(), 2u) << segmented.toString();
  ASSERT_EQ(segmented.edges().size(), 1u) << segmented.toString();
  EXPECT_EQ(segmented.edges()[0].val->dtype(), DataType::Float);
  const auto recompute = decisions("recompute");
  ASSERT_EQ(recompute.size(), 1u);
  EXPECT_FALSE(recompute[0].accepted);
  EXPECT_NE(recompute[0].reason.find("(16 MiB, 5 pointwise ops of fusion inputs and their views)"),
            std::string::npos)
      << recompute[0].reason;
  EXPECT_NE(recompute[0].reason.find("it would read 24 MiB of inputs it does not read yet"),
            std::string::npos)
      << recompute[0].reason;
}

// The group computing an edge may stop being schedulable when its readers
// recompute the edge and it no longer writes it (the differential tester's
// seed 736269): here the cast's output was the pointwise reference of the
// group {cast, slice, mul}; without it the sliced product is, and the input
// is not indexed from it. The recompute is refused, and every segment
// keeps a scheduler (before the fix, the compile failed).
TEST_F(EdgeRecomputeTest, AnEdgeWhoseProducerNeedsItStaysAnEdge) {
  const SegmentedFusion segmented =
      segment(R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Bool, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int32, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Int32)
    T3 = fd.ops.slice(T2, start_indices=[23, 0, 1], end_indices=[186, 3, 2])
    T4 = fd.ops.mul(T3, T1)
    fd.add_output(T4)
    T5 = fd.ops.segment_set(T2)
    T6 = fd.ops.permute(T5, dims=[1, 0, 2])
    fd.add_output(T6)
)",
              {shape(DataType::Bool, {256, 3, 2}), shape(DataType::Int32, {})});
  for (const auto& group : segmented.groups()) {
    EXPECT_TRUE(group.segment != nullptr) << segmented.toString();
  }
  const auto recompute = decisions("recompute");
  ASSERT_FALSE(recompute.empty()) << segmented.toString();
  EXPECT_FALSE(recompute.back().accepted) << recompute.back().reason;
  EXPECT_NE(recompute.back().reason.find("no scheduler takes group"), std::string::npos)
      << recompute.back().reason;
}

TEST_F(EdgeRecomputeTest, ReductionsOfDifferentInputsStayApart) {
  // Column sums of two unrelated inputs share no read: nothing to save.
  const SegmentedFusion segmented =
      segment(R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T2)
    fd.add_output(T3)
)",
              {shape(DataType::Float, {512, 256}), shape(DataType::Float, {512, 256})});
  EXPECT_EQ(segmented.groups().size(), 2u) << segmented.toString();
  EXPECT_TRUE(decisions("sibling_merge").empty());
}

}  // namespace
}  // namespace fuserlab::segmenter
