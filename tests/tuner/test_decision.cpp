#include <gtest/gtest.h>

#include "core/ir/error.h"
#include "tuner/decision.h"
#include "tuner/statistics.h"

namespace fuserlab::tuner {
namespace {

Timing timing(size_t id, double median, double noise, bool ok = true) {
  return {id, ok, median, noise};
}

TEST(DecisionTest, FasterWithinMarginKeepsTheDefault) {
  // 1.5% faster, no noise: under the 2% margin.
  const Decision d = decide({timing(0, 1000, 0), timing(1, 985, 0)});
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_FALSE(d.replacedDefault);
}

TEST(DecisionTest, FasterBeyondMarginButWithinNoiseKeepsTheDefault) {
  // 5% faster, but each median is only known to +-20 ns.
  EXPECT_EQ(decide({timing(0, 1000, 20), timing(1, 950, 20)}).chosen, 0u);
  // The same gain with 10 ns of noise each clears 20 + 10 + 10.
  const Decision d = decide({timing(0, 1000, 10), timing(1, 950, 10)});
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_NEAR(d.speedup, 1000.0 / 950, 1e-9);
}

TEST(DecisionTest, FastestQualifyingVariantWinsAndFailedOnesNever) {
  const Decision d =
      decide({timing(0, 1000, 1), timing(1, 900, 1), timing(2, 500, 1, false), timing(3, 800, 1)});
  EXPECT_EQ(d.chosen, 3u);
  EXPECT_TRUE(d.replacedDefault);
}

TEST(DecisionTest, FailedDefaultIsAnError) {
  EXPECT_THROW(decide({timing(0, 0, 0, false), timing(1, 10, 0)}), UserError);
}

TEST(StatisticsTest, MedianPercentilesAndSpread) {
  std::vector<double> samples;
  for (int i = 1; i <= 101; ++i) samples.push_back(i);
  const SampleStats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.medianNs, 51);
  EXPECT_DOUBLE_EQ(s.p20Ns, 21);
  EXPECT_DOUBLE_EQ(s.p80Ns, 81);
  EXPECT_DOUBLE_EQ(s.minNs, 1);
  EXPECT_DOUBLE_EQ(s.maxNs, 101);
  EXPECT_GT(s.medianHalfWidthNs, 5);
  EXPECT_LT(s.medianHalfWidthNs, 15);
  const SampleStats tight = summarize(std::vector<double>(30, 1000.0));
  EXPECT_EQ(tight.relativeSpread(), 0);
}

}  // namespace
}  // namespace fuserlab::tuner
