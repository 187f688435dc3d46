// The benchmark's CPU parts: median / p20 / p80 of timing samples, and the
// bytes a fusion must move (each input read once, each output written once).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/ir/error.h"
#include "measure/benchmark.h"
#include "measure/sample_statistics.h"

namespace {

using fuserlab::runtime::quantile;
using fuserlab::runtime::summarizeSamples;

TEST(SampleStatisticsTest, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(summarizeSamples({3, 1, 2}).median, 2);
  EXPECT_DOUBLE_EQ(summarizeSamples({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(summarizeSamples({7}).median, 7);
}

TEST(SampleStatisticsTest, PercentilesInterpolateBetweenRanks) {
  // 1..11: rank 0.2 * 10 = 2 -> 3, rank 0.8 * 10 = 8 -> 9.
  std::vector<double> samples;
  for (int i = 11; i >= 1; --i) samples.push_back(i);
  const auto s = summarizeSamples(samples);
  EXPECT_EQ(s.count, 11);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p20, 3);
  EXPECT_DOUBLE_EQ(s.median, 6);
  EXPECT_DOUBLE_EQ(s.p80, 9);
  EXPECT_DOUBLE_EQ(s.max, 11);
  // 10, 20, 30, 40: rank 0.2 * 3 = 0.6 -> 16, rank 2.4 -> 34.
  const auto t = summarizeSamples({40, 10, 30, 20});
  EXPECT_NEAR(t.p20, 16, 1e-12);
  EXPECT_NEAR(t.p80, 34, 1e-12);
  EXPECT_DOUBLE_EQ(quantile({40, 10, 30, 20}, 0), 10);
  EXPECT_DOUBLE_EQ(quantile({40, 10, 30, 20}, 1), 40);
}

TEST(SampleStatisticsTest, OutliersMoveTheTailsNotTheMedian) {
  std::vector<double> samples(20, 5.0);
  samples[3] = 500;  // one slow sample (a preempted run)
  const auto s = summarizeSamples(samples);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.p80, 5);
  EXPECT_DOUBLE_EQ(s.max, 500);
}

TEST(SampleStatisticsTest, BadSamplesAreUserErrors) {
  EXPECT_THROW(summarizeSamples({}), fuserlab::UserError);
  EXPECT_THROW(summarizeSamples({1, NAN, 2}), fuserlab::UserError);
  EXPECT_THROW(quantile({1, 2}, 1.5), fuserlab::UserError);
}

TEST(FusionBytesTest, InputsReadOnceOutputsWrittenOnce) {
  using fuserlab::ir::DataType;
  using fuserlab::runtime::Tensor;
  fuserlab::runtime::Arguments inputs;
  inputs.emplace_back(Tensor::empty(DataType::BFloat16, {256, 11008}));
  inputs.emplace_back(Tensor::empty(DataType::Float, {4, 8}));
  // A scalar input and a 0-dim CPU tensor move nothing on the GPU.
  inputs.emplace_back(fuserlab::ir::ScalarValue(2.0));
  inputs.emplace_back(Tensor::empty(DataType::Float, {}));
  const std::vector<Tensor> outputs = {Tensor::empty(DataType::BFloat16, {256, 11008})};
  EXPECT_EQ(fuserlab::runtime::fusionBytes(inputs, outputs), 2 * 256 * 11008 * 2 + 4 * 8 * 4);
}

TEST(FusionBytesTest, ABroadcastAxisIsReadOnce) {
  using fuserlab::ir::DataType;
  using fuserlab::runtime::Tensor;
  fuserlab::runtime::Arguments inputs;
  // [1024] expanded to [64, 1024] with stride 0: 1024 distinct elements.
  inputs.emplace_back(Tensor::emptyStrided(DataType::Float, {64, 1024}, {0, 1}));
  EXPECT_EQ(fuserlab::runtime::fusionBytes(inputs, {}), 1024 * 4);
  // A strided slice counts its elements, not the span it lies in.
  fuserlab::runtime::Arguments sliced;
  sliced.emplace_back(Tensor::emptyStrided(DataType::Half, {16, 8}, {32, 1}));
  EXPECT_EQ(fuserlab::runtime::fusionBytes(sliced, {}), 16 * 8 * 2);
}

}  // namespace
