#include "tuner/statistics.h"

#include <algorithm>
#include <cmath>

#include "core/ir/error.h"
#include "measure/sample_statistics.h"

namespace fuserlab::tuner {

double medianHalfWidthFromStddev(double stddevNs, int64_t samples) {
  if (samples <= 1) return stddevNs;
  return 1.96 * 1.2533 * stddevNs / std::sqrt(static_cast<double>(samples));
}

SampleStats summarize(std::vector<double> samplesNs) {
  FL_ASSERT(!samplesNs.empty(), "statistics of no samples");
  std::sort(samplesNs.begin(), samplesNs.end());
  SampleStats s;
  const auto n = static_cast<int64_t>(samplesNs.size());
  s.samples = n;
  // The quantiles are the benchmark's (one implementation, measure/).
  const runtime::SampleSummary summary = runtime::summarizeSamples(samplesNs);
  s.medianNs = summary.median;
  s.p20Ns = summary.p20;
  s.p80Ns = summary.p80;
  s.minNs = summary.min;
  s.maxNs = summary.max;
  double sum = 0;
  for (double v : samplesNs) sum += v;
  s.meanNs = sum / static_cast<double>(n);
  double squares = 0;
  for (double v : samplesNs) squares += (v - s.meanNs) * (v - s.meanNs);
  s.stddevNs = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0;
  // Ranks n/2 -+ 0.98 sqrt(n) bound the median with ~95% confidence.
  const double reach = 0.98 * std::sqrt(static_cast<double>(n));
  const double mid = static_cast<double>(n - 1) / 2;
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(mid - reach)));
  const auto hi = static_cast<size_t>(std::min(static_cast<double>(n - 1), std::ceil(mid + reach)));
  s.medianHalfWidthNs = (samplesNs[hi] - samplesNs[lo]) / 2;
  return s;
}

}  // namespace fuserlab::tuner
