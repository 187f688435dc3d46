#include "measure/sample_statistics.h"

#include <algorithm>
#include <cmath>

#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

void checkSamples(const std::vector<double>& samples) {
  FL_CHECK(!samples.empty(), "timing statistics need at least one sample");
  for (size_t i = 0; i < samples.size(); ++i) {
    FL_CHECK(!std::isnan(samples[i]), "timing sample ", i, " is NaN");
  }
}

// The quantile of sorted, checked samples.
double sortedQuantile(const std::vector<double>& sorted, double fraction) {
  const double rank = fraction * double(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = rank - double(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

}  // namespace

double quantile(std::vector<double> samples, double fraction) {
  checkSamples(samples);
  FL_CHECK(fraction >= 0 && fraction <= 1, "a quantile is between 0 and 1, found ", fraction);
  std::sort(samples.begin(), samples.end());
  return sortedQuantile(samples, fraction);
}

SampleSummary summarizeSamples(const std::vector<double>& samples) {
  checkSamples(samples);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  SampleSummary summary;
  summary.count = static_cast<int>(sorted.size());
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.p20 = sortedQuantile(sorted, 0.2);
  summary.median = sortedQuantile(sorted, 0.5);
  summary.p80 = sortedQuantile(sorted, 0.8);
  return summary;
}

}  // namespace fuserlab::runtime
