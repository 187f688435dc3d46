// The merger's pointwise shortcut (pointwiseTakesWithoutExtraction) decides a
// merge on the complete fusion instead of an extracted segment. It must say
// "pointwise takes it" exactly where asking the pointwise scheduler about the
// extracted segment says so: here on every run of consecutive exprs of a
// fusion with broadcasts, an expand, a reduction's broadcast result read from
// outside the group, fusion outputs read inside it, and a second chain over
// other extents (groups holding both are refused: not one reference covers
// them), and every pair and triple of exprs. The segmenter's decisions with and without the
// shortcut are compared in test_merge_guess.cpp.
#include <gtest/gtest.h>

#include "core/scheduler/registry.h"
#include "core/segmenter/pointwise_merge_check.h"
#include "core/segmenter/segment_extraction.h"
#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using ir::DataType;
using testing_support::readFusion;
using testing_support::shape;

// T0 [N, M], T1 [M], T2 [K]: T3..T6 and T10..T13 are over [N, M], T7 and
// T14 over [K]; T8 is a row sum, so T9's broadcast reads a reduction result.
constexpr std::string_view kScript = R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.exp(T0)
    T4 = fd.ops.broadcast(T1, is_broadcast_dim=[True, False])
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.mul(T5, 0.5)
    T7 = fd.ops.neg(T2)
    T8 = fd.ops.sum(T6, dims=[1], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.broadcast(T8, is_broadcast_dim=[False, True])
    T10 = fd.ops.sub(T6, T9)
    T11 = fd.ops.expand(T4, shape=[64, 128])
    T12 = fd.ops.mul(T10, T11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    T14 = fd.ops.mul(T7, 2.0)
    fd.add_output(T6)
    fd.add_output(T13)
    fd.add_output(T14)
)";

TEST(PointwiseShortcutTest, AgreesWithTheExtractedSegment) {
  std::unique_ptr<ir::Fusion> fusion = readFusion(kScript);
  const CompleteFusionIndex index(*fusion);
  const scheduler::DeviceSpec device = *scheduler::findBuiltinDevice("h100");
  ir::ExpressionEvaluator evaluator;
  SegmenterContext context;
  context.device = &device;
  context.evaluator = &evaluator;
  context.inputs =
      runtime::describeInputs(*fusion,
                              {shape(DataType::Float, {64, 128}), shape(DataType::Float, {128}),
                               shape(DataType::Float, {100})},
                              evaluator);

  // Every run of consecutive exprs, and every pair and triple (groups with
  // holes: a merge can join two groups whose path goes through a third).
  const std::vector<ir::Expr*>& exprs = index.exprs();
  std::vector<std::vector<ir::Expr*>> groups;
  for (size_t begin = 0; begin < exprs.size(); ++begin) {
    for (size_t end = begin + 1; end <= exprs.size(); ++end) {
      groups.emplace_back(exprs.begin() + begin, exprs.begin() + end);
    }
  }
  for (size_t a = 0; a < exprs.size(); ++a) {
    for (size_t b = a + 2; b < exprs.size(); ++b) {
      groups.push_back({exprs[a], exprs[b]});
      for (size_t c = b + 1; c < exprs.size(); ++c) {
        groups.push_back({exprs[a], exprs[b], exprs[c]});
      }
    }
  }
  int taken = 0;
  int refused = 0;
  int notPlain = 0;
  for (const std::vector<ir::Expr*>& group : groups) {
    std::string names;
    for (const ir::Expr* e : group) names += e->output(0)->name() + " ";
    SCOPED_TRACE("group " + names);
    const bool quick = pointwiseTakesWithoutExtraction(index, group, &evaluator);
    const bool reduces = std::any_of(group.begin(), group.end(), [](const ir::Expr* e) {
      return e->type() == ir::ExprType::Reduction;
    });
    if (reduces) {
      EXPECT_FALSE(quick);  // only plain pointwise ops are decided here
      ++notPlain;
      continue;
    }
    SegmentExtraction segment = extractSegment(index, group, /*withCloneMap=*/false);
    SegmentRuntime runtime = makeSegmentRuntime(*fusion, segment, context);
    std::vector<scheduler::Rejection> rejected;
    const auto accepted = scheduler::findAcceptingScheduler(
        *segment.fusion, runtime.info, {scheduler::SchedulerType::Pointwise}, &rejected);
    const bool pointwise = accepted == scheduler::SchedulerType::Pointwise;
    EXPECT_EQ(quick, pointwise);
    pointwise ? ++taken : ++refused;
  }
  // Both answers occur, and groups it must leave to the full path.
  EXPECT_GT(taken, 10);
  EXPECT_GT(refused, 10);
  EXPECT_GT(notPlain, 0);
}

TEST(PointwiseShortcutTest, LeavesGroupsWithoutSizesToTheFullPath) {
  std::unique_ptr<ir::Fusion> fusion = readFusion(kScript);
  const CompleteFusionIndex index(*fusion);
  const std::vector<ir::Expr*> first(index.exprs().begin(), index.exprs().begin() + 1);
  EXPECT_FALSE(pointwiseTakesWithoutExtraction(index, first, nullptr));
  EXPECT_FALSE(pointwiseTakesWithoutExtraction(index, {}, nullptr));
}

}  // namespace
}  // namespace fuserlab::segmenter
