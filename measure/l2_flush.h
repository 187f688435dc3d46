// L2Flush: what a benchmark runs before each timed sample so that the sample
// starts from a cold and clean L2 cache.
//
// It writes a buffer of twice the L2 size (every line the previous sample
// left is evicted, its dirty outputs written back now), then reads the whole
// buffer with a read-only kernel: the read evicts the flush's own dirty
// lines, so the L2 ends holding clean lines of a buffer no fusion touches.
// Without the read, the timed kernels would write back up to an L2's worth
// of the flush's lines while they run: on an H100, 20 MB of DRAM writes
// during a 67 MB row sum, 25 us becoming 33 us (ncu in situ, see
// docs/performance.md). ncu's cache control and compare_torch.py's timer
// (a write, then a long GPU sleep) also start kernels from a clean L2.
#pragma once

#include <cstdint>
#include <memory>

#include "core/cuda/cuda_memory.h"
#include "core/cuda/cuda_module.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::runtime {

class L2Flush {
 public:
  //! A buffer of twice `spec`'s L2 size (128 MB when the spec has none) on
  //! `device` (the current device, which `spec` describes) and the read
  //! kernel, compiled with NVRTC for its compute capability.
  L2Flush(const scheduler::DeviceSpec& spec, int device);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  //! Queues the write and the read on the legacy default stream.
  void enqueue();

  int64_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  //! A word the read kernel writes only when its fold of the buffer is
  //! one, which it never is; it keeps the compiler from dropping the loads.
  DeviceBuffer sink_;
  std::unique_ptr<CudaModule> module_;
  CudaKernel read_;
  int64_t blocks_ = 1;
  int count_ = 0;
};

}  // namespace fuserlab::runtime
