// The fixture of the persistent schedulers' tests
// (test_persistent_schedulers.cpp, test_outer_persistent_scheduler.cpp):
// which of reduction, inner_persistent and outer_persistent takes a segment,
// their report properties, and their heuristics' params (checked against
// their own rejectParams).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/scheduler/persistent/inner_persistent_scheduler.h"
#include "core/scheduler/persistent/outer_persistent_scheduler.h"
#include "core/scheduler/reduction/reduction_scheduler.h"
#include "tests/scheduler/persistent/bound_segment.h"

namespace fuserlab::scheduler::persistent_test {

class PersistentSchedulerTest : public ::testing::Test {
 protected:
  //! The first of reduction, inner_persistent, outer_persistent (their
  //! priority order) to accept, with every refusal before it.
  static std::string choose(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                            std::vector<std::string>* refusals = nullptr) {
    static const ReductionScheduler reduction;
    static const InnerPersistentScheduler inner;
    static const OuterPersistentScheduler outer;
    for (const Scheduler* s : std::vector<const Scheduler*>{&reduction, &inner, &outer}) {
      auto reason = s->rejectCompileTime(segment);
      if (!reason) reason = s->rejectRunTime(segment, info);
      if (!reason) return std::string(toString(s->type()));
      if (refusals) refusals->push_back(std::string(toString(s->type())) + ": " + *reason);
    }
    return "none";
  }

  //! The scheduler's report properties for the segment, as compact JSON.
  static std::string propertiesText(const Scheduler& s, const BoundSegment& b) {
    return s.properties(b.fusion(), b.info()).dump(-1);
  }

  static ReductionParams heuristic(const Scheduler& s, const BoundSegment& b) {
    const HeuristicParams params = s.computeHeuristics(b.fusion(), b.info());
    EXPECT_EQ(s.rejectParams(b.fusion(), b.info(), params), std::nullopt);
    return std::get<ReductionParams>(params);
  }

  InnerPersistentScheduler inner_;
  OuterPersistentScheduler outer_;
};

inline std::string refusalsText(const std::vector<std::string>& refusals) {
  std::string out;
  for (const auto& r : refusals) out += r + "\n";
  return out;
}

}  // namespace fuserlab::scheduler::persistent_test
