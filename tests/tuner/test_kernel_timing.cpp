// describeKernelTimes (measure/kernel_timing.h), the run panel's lines, on
// hand-made timings: no GPU needed. measureKernelTimes itself is tested on
// a GPU (GpuBenchmarkTest.CuptiTimesEveryKernelOfAGraphReplay).
#include <gtest/gtest.h>

#include "measure/kernel_timing.h"

namespace fuserlab::tuner {
namespace {

runtime::SampleSummary summary(double median, int count = 20) {
  runtime::SampleSummary s;
  s.count = count;
  s.min = s.p20 = median - 0.25;
  s.median = median;
  s.p80 = s.max = median + 0.5;
  return s;
}

TEST(KernelTimingTest, OneKernelIsOneLineWithItsSpread) {
  KernelTimes times;
  times.spanMicroseconds = times.busyMicroseconds = summary(24.16);
  times.kernels = {{"reduction_seg0", summary(24.16)}};
  const std::vector<std::string> lines = describeKernelTimes(times);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "GPU time (CUPTI, 20 runs, L2 flushed before each): 24.16 us median "
            "(p20 23.91, p80 24.66), first kernel start to last kernel end");
}

TEST(KernelTimingTest, SeveralKernelsAreEachNamed) {
  KernelTimes times;
  times.spanMicroseconds = summary(11.26);
  times.busyMicroseconds = summary(11.31);
  times.kernels = {{"matmul_seg0", summary(8.82)}, {"pointwise_seg1", summary(2.46)}};
  const std::vector<std::string> lines = describeKernelTimes(times);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("11.26 us median"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1], "  matmul_seg0: 8.82 us");
  EXPECT_EQ(lines[2], "  pointwise_seg1: 2.46 us");
}

TEST(KernelTimingTest, UnavailableSaysWhy) {
  KernelTimes times;
  times.unavailable = "libcupti could not be loaded";
  EXPECT_EQ(describeKernelTimes(times),
            std::vector<std::string>{"GPU time not measured: libcupti could not be loaded"});
}

}  // namespace
}  // namespace fuserlab::tuner
