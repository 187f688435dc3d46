// AnalysisCacheTest: while an AnalysisCacheScope is open, the reduction
// pattern, the persistent buffers, the run-time persistent buffer analysis
// and the untraced-tensors check of its segment are computed once and served again, identical;
// another segment, other sizes, another pattern or a closed scope are never
// served them.
#include <gtest/gtest.h>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/registry.h"
#include "tests/scheduler/persistent/bound_segment.h"

namespace fuserlab::scheduler {
namespace {

using persistent_test::BoundSegment;
using persistent_test::h100;
using persistent_test::seed000Segment;

std::string analysisJson(const BoundSegment& segment) {
  return analyzePersistentBuffers(segment.fusion(), segment.info()).toJson().dump(-1);
}

TEST(AnalysisCacheTest, ServesRepeatedAnalysesOfTheScopeSegment) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 64 * 1024}}, h100());
  const std::string uncached = analysisJson(segment);
  const AnalysisCacheScope scope(segment.fusion(), segment.info());
  EXPECT_EQ(analysisJson(segment), uncached);
  const int afterFirst = scope.hits();
  EXPECT_EQ(analysisJson(segment), uncached);
  EXPECT_EQ(scope.hits(), afterFirst + 1);  // the whole analysis, served

  const ReductionPatternResult pattern = analyzeReductionPattern(segment.fusion());
  ASSERT_TRUE(pattern.pattern.has_value());
  EXPECT_EQ(scope.hits(), afterFirst + 2);
  const PersistentBufferInfo buffers = findPersistentBuffers(segment.fusion(), *pattern.pattern);
  EXPECT_EQ(scope.hits(), afterFirst + 3);
  ASSERT_EQ(buffers.buffers.size(), 1u);
  EXPECT_EQ(buffers.buffers[0].tv->name(), "T2");
}

// Whether every tensor follows the reference's axes (rejectUntracedTensors,
// which the reduction and both persistent schedulers ask): traced once a
// scope at its own sizes; another evaluator is traced again.
TEST(AnalysisCacheTest, TheUntracedTensorsCheckIsTracedOnceAScope) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100());
  const ReductionPattern pattern = *analyzeReductionPattern(segment.fusion()).pattern;
  const ir::ExpressionEvaluator& evaluator = *segment.info().evaluator;
  const std::optional<std::string> uncached =
      rejectUntracedTensors(segment.fusion(), pattern, evaluator);
  const AnalysisCacheScope scope(segment.fusion(), segment.info());
  EXPECT_EQ(rejectUntracedTensors(segment.fusion(), pattern, evaluator), uncached);
  const int afterFirst = scope.hits();
  EXPECT_EQ(rejectUntracedTensors(segment.fusion(), pattern, evaluator), uncached);
  EXPECT_EQ(scope.hits(), afterFirst + 1);
  const ir::ExpressionEvaluator other = evaluator;
  EXPECT_EQ(rejectUntracedTensors(segment.fusion(), pattern, other), uncached);
  EXPECT_EQ(scope.hits(), afterFirst + 1);
}

TEST(AnalysisCacheTest, OtherSegmentsSizesAndPatternsAreComputed) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100());
  BoundSegment other(seed000Segment("Float"), {{128, 1024}}, h100());
  const std::string otherJson = analysisJson(other);
  const AnalysisCacheScope scope(segment.fusion(), segment.info());
  analysisJson(segment);
  const int hits = scope.hits();

  EXPECT_EQ(analysisJson(other), otherJson);
  EXPECT_EQ(scope.hits(), hits);
  // The same fusion with another SegmentRuntimeInfo (other strides or
  // alignment change the vectorization limit): the run-time analysis is
  // computed again, from the cached compile-time pattern and buffers.
  SegmentRuntimeInfo otherInfo = segment.info();
  otherInfo.inputs[0].alignmentBytes = 4;
  const PersistentBufferAnalysis misaligned = analyzePersistentBuffers(segment.fusion(), otherInfo);
  EXPECT_EQ(misaligned.vectorize.factor, 2);
  EXPECT_EQ(scope.hits(), hits + 2);

  const int beforePattern = scope.hits();
  // A pattern other than the segment's own (its reduction's axes changed).
  ReductionPattern changed = *analyzeReductionPattern(segment.fusion()).pattern;
  const int patternHits = scope.hits();
  EXPECT_EQ(patternHits, beforePattern + 1);
  changed.reductions[0].axes = {0};
  changed.axes = {0};
  findPersistentBuffers(segment.fusion(), changed);
  EXPECT_EQ(scope.hits(), patternHits);
}

TEST(AnalysisCacheTest, NestedScopeHidesTheOuterOneUntilItCloses) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 1024}}, h100());
  BoundSegment other(seed000Segment("Float"), {{128, 1024}}, h100());
  const AnalysisCacheScope outer(segment.fusion(), segment.info());
  analysisJson(segment);
  const int outerHits = outer.hits();
  {
    const AnalysisCacheScope inner(other.fusion(), other.info());
    analysisJson(segment);  // not the inner scope's segment: computed
    EXPECT_EQ(outer.hits(), outerHits);
    analysisJson(other);
    analysisJson(other);
    EXPECT_GE(inner.hits(), 1);
  }
  analysisJson(segment);
  EXPECT_EQ(outer.hits(), outerHits + 1);
}

TEST(AnalysisCacheTest, ChooseSchedulerReusesTheAnalyses) {
  // chooseScheduler opens its own scope: the same choice as the schedulers
  // called one by one without a cache.
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 64 * 1024}}, h100());
  std::vector<Rejection> rejected;
  const auto choice = chooseScheduler(segment.fusion(), segment.info(), nullptr, &rejected);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::InnerPersistent);
  const Scheduler& inner = schedulerFor(SchedulerType::InnerPersistent);
  EXPECT_EQ(paramsToJson(choice->params).dump(-1),
            paramsToJson(inner.computeHeuristics(segment.fusion(), segment.info())).dump(-1));
  EXPECT_EQ(choice->properties.dump(-1),
            inner.properties(segment.fusion(), segment.info()).dump(-1));
}

}  // namespace
}  // namespace fuserlab::scheduler
