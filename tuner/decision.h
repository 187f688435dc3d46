// The decision rule: a variant replaces the heuristic's default only when it
// is faster by more than the measured noise plus a margin, so the database
// never records a "win" that is a coin toss:
//   default.median - candidate.median > margin * default.median
//                                       + noise(default) + noise(candidate)
// where noise is the half-width of each median's 95% confidence interval.
// Failed (faulting or wrong) variants are never chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuserlab::tuner {

inline constexpr double kDefaultMargin = 0.02;

//! What the rule reads of one variant's measurement.
struct Timing {
  size_t variant = 0;
  bool ok = false;  //!< measured and validated
  double medianNs = 0;
  double noiseNs = 0;  //!< the median's confidence half-width
};

struct Decision {
  size_t chosen = 0;  //!< the default (0) unless a variant beat it
  bool replacedDefault = false;
  //! chosen's median / default's median speedup (1 when the default stays).
  double speedup = 1;
  std::string reason;  //!< one sentence for the log
};

//! Whether `candidate` beats `reference` by the rule above.
bool beatsBeyondNoise(const Timing& candidate, const Timing& reference,
                      double margin = kDefaultMargin);

//! The fastest variant that beats the default (variant 0, which must be in
//! `timings` and ok); the default otherwise. A UserError when the default
//! itself failed: nothing can be compared with it.
Decision decide(const std::vector<Timing>& timings, double margin = kDefaultMargin);

}  // namespace fuserlab::tuner
