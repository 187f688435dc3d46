#include "tuner/decision.h"

#include <cstdio>

#include "core/ir/error.h"

namespace fuserlab::tuner {

bool beatsBeyondNoise(const Timing& candidate, const Timing& reference, double margin) {
  if (!candidate.ok || !reference.ok) return false;
  const double gain = reference.medianNs - candidate.medianNs;
  return gain > margin * reference.medianNs + reference.noiseNs + candidate.noiseNs;
}

Decision decide(const std::vector<Timing>& timings, double margin) {
  const Timing* base = nullptr;
  for (const Timing& t : timings) {
    if (t.variant == 0) base = &t;
  }
  FL_CHECK(base != nullptr && base->ok,
           "the default variant was not measured successfully, so no variant "
           "can be compared with it");
  Decision decision;
  const Timing* best = nullptr;
  for (const Timing& t : timings) {
    if (t.variant == 0 || !beatsBeyondNoise(t, *base, margin)) continue;
    if (best == nullptr || t.medianNs < best->medianNs) best = &t;
  }
  char text[200];
  if (best == nullptr) {
    std::snprintf(text, sizeof text,
                  "no variant beats the default (%.0f ns) by more than %.0f%% "
                  "plus the measured noise",
                  base->medianNs, margin * 100);
    decision.reason = text;
    return decision;
  }
  decision.chosen = best->variant;
  decision.replacedDefault = true;
  decision.speedup = base->medianNs / best->medianNs;
  std::snprintf(text, sizeof text,
                "variant %zu: %.0f ns against the default's %.0f ns (%.3fx; "
                "noise %.0f + %.0f ns, margin %.0f%%)",
                best->variant, best->medianNs, base->medianNs, decision.speedup, best->noiseNs,
                base->noiseNs, margin * 100);
  decision.reason = text;
  return decision;
}

}  // namespace fuserlab::tuner
