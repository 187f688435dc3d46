// SampleSummary: the median and the 20th / 80th percentiles of timing
// samples, as the benchmark (measure/benchmark.h) reports them. Pure
// CPU code, so it is tested without a GPU.
#pragma once

#include <vector>

namespace fuserlab::runtime {

struct SampleSummary {
  int count = 0;
  double min = 0;
  double p20 = 0;
  double median = 0;
  double p80 = 0;
  double max = 0;
};

//! The `fraction` quantile (0..1) of `samples`, linearly interpolated
//! between the two nearest ranks (rank fraction * (n - 1) of the sorted
//! samples, as numpy's default). A UserError for no samples, a NaN sample
//! or a fraction outside [0, 1].
double quantile(std::vector<double> samples, double fraction);

//! count, min, p20, median, p80 and max of `samples` (same rules as
//! quantile()).
SampleSummary summarizeSamples(const std::vector<double>& samples);

}  // namespace fuserlab::runtime
