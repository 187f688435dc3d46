// The bandwidth floor of a segment, and the sound early stop built on it.
// A segment's kernel must read each of its inputs and write each of its
// outputs at least once (distinct elements: a broadcast or expanded axis
// counts once), and the tuner times every sample from a cold, clean L2, so no
// variant can take less than
//   floor = bytes / (copy bandwidth * kFloorBandwidthFactor)
// where the copy bandwidth is the device-to-device cudaMemcpy bandwidth bench
// measures (measure/benchmark.h: measureCopyBandwidth), measured by each
// tuning worker on its own GPU. The factor is a safety margin: measured
// kernels have reached up to ~107% of the 1 GiB copy's bandwidth (L2 keeps
// part of a small output, written back after the kernel ends), so 1.10 keeps
// the floor below every time seen. Inputs count only when every op of the
// segment reads the whole of its inputs: a slice, gather, index_select (...)
// may read part of one, and then only the outputs count.
//
// Early stop: when the best measured variant's median is within the decision
// rule's margin plus its own noise of the floor (best - floor <= margin *
// best + noise(best)), no variant still unmeasured can beat it by the rule
// (decision.h), which asks for a gain of more than margin * best + both
// noises: the sweep of that segment stops. A variant measured below the
// floor disproves the floor for this segment, and then nothing stops early.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tuner/tuning_target.h"

namespace fuserlab::tuner {

//! The copy bandwidth is multiplied by this for the floor (see above).
inline constexpr double kFloorBandwidthFactor = 1.10;

//! Bytes segment `target` must move at least: each output written once and,
//! when every op reads all of its inputs, each input read once.
int64_t segmentBytesMoved(const TuningTarget& target);

struct BandwidthFloor {
  int64_t bytes = 0;
  double copyBytesPerSecond = 0;  //!< measured on the worker's GPU
  double factor = kFloorBandwidthFactor;
  double floorNs = 0;  //!< bytes / (copyBytesPerSecond * factor)
};

//! The floor of `bytes` at `copyBytesPerSecond`; nullopt without bytes or a
//! bandwidth.
std::optional<BandwidthFloor> bandwidthFloor(int64_t bytes, double copyBytesPerSecond,
                                             double factor = kFloorBandwidthFactor);

struct EarlyStop {
  size_t variant = 0;  //!< the best variant when it stopped
  double bestNs = 0;
  double floorNs = 0;
  //! (best / floor - 1) in percent.
  double abovePercent = 0;
  //! "early stop: best 5.20 us is within 1.6% of the bandwidth floor 5.12 us".
  std::string message;
};

//! Whether a variant with `medianNs` and `noiseNs` (its median's confidence
//! half-width) stops the sweep under `floor` and `margin`: see the file
//! comment. nullopt when it does not, or when it lies below the floor.
std::optional<EarlyStop> earlyStopAt(const BandwidthFloor& floor, size_t variant, double medianNs,
                                     double noiseNs, double margin);

}  // namespace fuserlab::tuner
