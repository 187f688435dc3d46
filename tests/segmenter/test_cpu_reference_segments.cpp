// Ops without a GPU kernel (embedding_fwd with max_norm, sdpfa_bwd; argsort
// and topk of lines too long for the sort kernel) in the segmenter: each is
// sealed in an expr_eval segment of its own that says it runs on the CPU
// reference only, the ops around it still go to kernels, and every other
// scheduler's refusal names the op. argsort and topk otherwise, scatter and
// index_put_accumulate are kernel segments of their own.
#include <gtest/gtest.h>

#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/pointwise/sort_segment.h"
#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using ir::DataType;
using scheduler::SchedulerType;
using testing_support::countExprs;
using testing_support::shape;

class CpuReferenceSegmentsTest : public testing_support::SegmenterFixture {};

constexpr std::string_view kTopkBetweenPointwise =
    R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    T2, T3 = fd.ops.topk(T1, 4, dim=1)
    T4 = fd.ops.mul(T2, 2.0)
    fd.add_output(T4)
    fd.add_output(T3)
with FusionDefinition() as fd:
    fusion_func(fd)
)";

// topk and argsort have a GPU kernel (the sort kernel, for lines of up to
// kMaxSortRow): a pointwise segment of their own (decision "sort").
TEST_F(CpuReferenceSegmentsTest, TopkIsAKernelSegmentOfItsOwn) {
  const SegmentedFusion segmented =
      segment(kTopkBetweenPointwise, {shape(DataType::Float, {8, 32})});
  ASSERT_EQ(segmented.groups().size(), 3u) << segmented.toString();
  int topkGroups = 0;
  for (const SegmentedGroup& group : segmented.groups()) {
    EXPECT_EQ(group.choice.type, SchedulerType::Pointwise) << segmented.toString();
    if (countExprs(group, ir::ExprType::TopK) == 0) continue;
    ++topkGroups;
    EXPECT_EQ(group.exprs.size(), 1u);
    const report::Json* sort = group.choice.properties.get("sort");
    ASSERT_NE(sort, nullptr);
    EXPECT_NE(sort->asString().find("topk"), std::string::npos);
  }
  EXPECT_EQ(topkGroups, 1);
  ASSERT_EQ(decisions("sort").size(), 1u);
  EXPECT_NE(decisions("sort")[0].reason.find("topk"), std::string::npos);
  EXPECT_TRUE(decisions("cpu_reference_only").empty());
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::TopK));
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::Argsort));
}

constexpr std::string_view kOneArgsort = R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)
    T1 = fd.ops.argsort(T0, dim=0, descending=True)
    fd.add_output(T1)
with FusionDefinition() as fd:
    fusion_func(fd)
)";

TEST_F(CpuReferenceSegmentsTest, AFusionOfOneArgsortIsOneSortKernelSegment) {
  const SegmentedFusion segmented = segment(kOneArgsort, {shape(DataType::Half, {100})});
  ASSERT_EQ(segmented.groups().size(), 1u);
  EXPECT_EQ(segmented.groups()[0].choice.type, SchedulerType::Pointwise);
  const report::Json* length = segmented.groups()[0].choice.properties.get("line_length");
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length->asInt(), 100);
}

// A line longer than the sort kernel holds in shared memory stays on the CPU
// reference: expr_eval takes it, and pointwise is never asked.
TEST_F(CpuReferenceSegmentsTest, AnArgsortOfLinesTooLongForTheKernelIsAnExprEvalSegment) {
  const SegmentedFusion segmented =
      segment(kOneArgsort, {shape(DataType::Half, {scheduler::kMaxSortRow + 1})});
  ASSERT_EQ(segmented.groups().size(), 1u);
  const SegmentedGroup& group = segmented.groups()[0];
  EXPECT_EQ(group.choice.type, SchedulerType::ExprEval);
  const report::Json* evaluation = group.choice.properties.get("evaluation");
  ASSERT_NE(evaluation, nullptr);
  EXPECT_EQ(evaluation->asString(), "cpu_reference_only");
  EXPECT_EQ(scheduler::noSortKernelMessage(*group.exprs[0], scheduler::kMaxSortRow + 1),
            "fd.ops.argsort (T1 = argsort(T0)) sorts lines of 4097 "
            "elements, more than the 4096 that FuserLab's GPU sort kernel holds in shared "
            "memory; it runs on the CPU reference backend (run --backend cpu)");
}

TEST_F(CpuReferenceSegmentsTest, KernelSchedulersRefuseTheOpByName) {
  // The whole fusion (embedding_fwd with max_norm, exp) as one segment:
  // every scheduler refuses it, each kernel scheduler because of the
  // embedding.
  segment(R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    I0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T2 = fd.ops.embedding_fwd(I0, T1, max_norm=1.0)
    T3 = fd.ops.exp(T2)
    fd.add_output(T3)
with FusionDefinition() as fd:
    fusion_func(fd)
)",
          {shape(DataType::Int, {3, 7}), shape(DataType::Float, {50, 24})});
  const std::vector<SegmenterDecision> whole = decisions("whole_fusion");
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_FALSE(whole[0].accepted);
  const std::string& reason = whole[0].reason;
  for (const char* scheduler : {"pointwise", "reduction", "inner_persistent"}) {
    EXPECT_NE(reason.find(std::string(scheduler) + ": T2 = embedding_fwd("), std::string::npos)
        << scheduler << " in: " << reason;
  }
  EXPECT_NE(reason.find("has no GPU kernel"), std::string::npos) << reason;
  EXPECT_NE(reason.find("expr_eval takes it only in a segment of its own"), std::string::npos)
      << reason;
}

// embedding_fwd without max_norm is an index_select and reshapes: a kernel
// scheduler takes it (here with the scale after it, in one pointwise
// segment); with max_norm it stays an expr_eval segment of its own.
TEST_F(CpuReferenceSegmentsTest, EmbeddingWithoutMaxNormRunsInAKernel) {
  const std::string_view script = R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    I0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.ops.embedding_fwd(I0, T1, padding_idx=0)
    T3 = fd.ops.mul(fd.ops.cast(T2, dtype=DataType.Float), 2.0)
    fd.add_output(T3)
with FusionDefinition() as fd:
    fusion_func(fd)
)";
  const runtime::Arguments inputs = {shape(DataType::Int, {3, 7}),
                                     shape(DataType::BFloat16, {50, 24})};
  const SegmentedFusion segmented = segment(script, inputs);
  ASSERT_EQ(segmented.groups().size(), 1u) << segmented.toString();
  EXPECT_EQ(segmented.groups()[0].choice.type, SchedulerType::Pointwise) << segmented.toString();
  EXPECT_EQ(countExprs(segmented.groups()[0], ir::ExprType::IndexSelect), 1);
  EXPECT_TRUE(decisions("cpu_reference_only").empty());

  std::string withMaxNorm(script);
  withMaxNorm.replace(withMaxNorm.find("padding_idx=0"), 13, "max_norm=1.0");
  const SegmentedFusion renormed = segment(withMaxNorm, inputs);
  int embeddingGroups = 0;
  for (const SegmentedGroup& group : renormed.groups()) {
    if (countExprs(group, ir::ExprType::Embedding) == 0) continue;
    ++embeddingGroups;
    EXPECT_EQ(group.choice.type, SchedulerType::ExprEval) << renormed.toString();
  }
  EXPECT_EQ(embeddingGroups, 1) << renormed.toString();
}

// scatter and index_put_accumulate have a GPU kernel: each is a pointwise
// segment of its own (decision "indexed_write"), not an expr_eval one.
TEST_F(CpuReferenceSegmentsTest, ScatterAndIndexPutAccumulateAreKernelSegmentsOfTheirOwn) {
  const SegmentedFusion segmented = segment(
      R"(from nvfuser import FusionDefinition, DataType
def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    I1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
    I2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    T3 = fd.ops.exp(T0)
    T4 = fd.ops.scatter(T3, I1, 1.0, dim=0)
    T5 = fd.ops.index_put_accumulate(T4, I2, T0)
    T6 = fd.ops.add(T5, T0)
    fd.add_output(T6)
with FusionDefinition() as fd:
    fusion_func(fd)
)",
      {shape(DataType::Float, {8, 4}), shape(DataType::Int, {2, 4}), shape(DataType::Int, {8})});
  int writes = 0;
  for (const SegmentedGroup& group : segmented.groups()) {
    EXPECT_EQ(group.choice.type, SchedulerType::Pointwise) << segmented.toString();
    const int here = countExprs(group, ir::ExprType::Scatter) +
                     countExprs(group, ir::ExprType::IndexPutAccumulate);
    if (here == 0) continue;
    writes += here;
    EXPECT_EQ(group.exprs.size(), 1u) << segmented.toString();
  }
  EXPECT_EQ(writes, 2);
  EXPECT_EQ(decisions("indexed_write").size(), 2u);
  EXPECT_TRUE(decisions("cpu_reference_only").empty());
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::Scatter));
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::IndexPutAccumulate));
}

TEST(CpuReferenceOpsTest, TheMessageNamesTheOpAndTheBackend) {
  ir::Fusion fusion;
  ir::TensorView* x = fusion.newTensorView(
      {fusion.newIterDomain(fusion.constInt(4), ir::IterType::Iteration)}, DataType::Float);
  fusion.addInput(x);
  ir::TensorView* y = fusion.newTensorView(
      {fusion.newIterDomain(fusion.constInt(4), ir::IterType::Iteration)}, DataType::Int);
  ir::ExprAttrs attrs;
  attrs.flags = {false, false};
  const ir::Expr* argsort = fusion.newExpr(ir::ExprType::Argsort, {x}, {y}, attrs);
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::Argsort));
  EXPECT_TRUE(scheduler::isCpuReferenceOnly(ir::ExprType::Embedding));
  EXPECT_TRUE(scheduler::isCpuReferenceOnly(ir::ExprType::SdpaBwd));
  EXPECT_FALSE(scheduler::isCpuReferenceOnly(ir::ExprType::IndexSelect));
  // The message is built for any expr (here an argsort's).
  EXPECT_EQ(scheduler::noGpuKernelMessage(*argsort),
            "fd.ops.argsort (T1 = argsort(T0)) has no GPU kernel in FuserLab "
            "yet; it runs on the CPU reference backend (run --backend cpu)");
}

}  // namespace
}  // namespace fuserlab::segmenter
