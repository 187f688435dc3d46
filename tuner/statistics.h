// Statistics of timed samples: median with the 20th and 80th percentiles,
// mean, extremes and standard deviation, and how well the median is known
// (the half-width of its 95% confidence interval), which both the runner's
// stopping rule and the decision rule read. The quantiles come from
// measure/sample_statistics.h, as the benchmark's do.
#pragma once

#include <cstdint>
#include <vector>

namespace fuserlab::tuner {

struct SampleStats {
  int64_t samples = 0;
  double medianNs = 0;
  double p20Ns = 0;
  double p80Ns = 0;
  double meanNs = 0;
  double minNs = 0;
  double maxNs = 0;
  double stddevNs = 0;
  //! Half-width of the median's 95% confidence interval, from the order
  //! statistics around it (distribution-free).
  double medianHalfWidthNs = 0;

  //! medianHalfWidthNs / medianNs: the runner samples until it is < 1%.
  double relativeSpread() const { return medianNs > 0 ? medianHalfWidthNs / medianNs : 0; }
};

//! The statistics of `samplesNs` (at least one sample).
SampleStats summarize(std::vector<double> samplesNs);

//! The half-width of the median's 95% confidence interval estimated from a
//! standard deviation (1.96 * 1.2533 * stddev / sqrt(n)): for measurements
//! read back from the database, which keep the median and stddev only.
double medianHalfWidthFromStddev(double stddevNs, int64_t samples);

}  // namespace fuserlab::tuner
