// CuptiTimer: kernel durations from CUPTI's activity API. Concurrent-kernel
// records carry the GPU's own start and end timestamps; each sample's
// launches are tagged with an external correlation id (the sample number),
// and CUPTI's external-correlation records map each kernel record's
// correlation id to it. beginSample() also drains what CUPTI holds, so a
// kernel record that arrives without an external-correlation record (some
// driver and CUPTI versions emit them only with API tracing on) belongs to
// the sample begun last: the caller synchronizes before collect(). Every
// kernel of a graph launch carries the cuGraphLaunch's correlation id, so
// one id can stand for several kernels, each its own record.
//
// libcupti is opened with dlopen at first use, not linked: binaries start on
// machines without it (and without a GPU); create() says why it is not
// available instead. CUPTI stays inside tuner/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fuserlab::tuner {

struct KernelRecord {
  std::string name;
  uint64_t sample = 0;  //!< the sample it was launched in
  //! Whether CUPTI's external-correlation record named the sample (else
  //! the record arrived after the sample's drain without one).
  bool correlated = false;
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  double durationNs() const { return static_cast<double>(endNs - startNs); }
};

class CuptiTimer {
 public:
  //! The timer, or null with `why` set when libcupti cannot be loaded or
  //! refuses the activity kinds.
  static std::unique_ptr<CuptiTimer> create(std::string* why);
  ~CuptiTimer();
  CuptiTimer(const CuptiTimer&) = delete;
  CuptiTimer& operator=(const CuptiTimer&) = delete;

  //! Launches until endSample() belong to sample `id`. Drops every record
  //! CUPTI holds from before (warm-up and validation launches).
  void beginSample(uint64_t id);
  void endSample();
  //! Flushes CUPTI's buffers (after a synchronize) and returns the kernel
  //! records completed since the last call, attributed to their samples.
  std::vector<KernelRecord> collect();

 private:
  CuptiTimer() = default;
  uint64_t current_ = 0;
};

}  // namespace fuserlab::tuner
