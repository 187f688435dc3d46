// Builder: generates each variant's kernel and compiles it with NVRTC on a
// pool of CPU threads, into the KernelCache under the key the GpuExecutor
// looks images up by, so the worker that runs a variant loads its cubin
// instead of compiling it. Variants already in the cache cost a lookup.
// Code generation runs on the calling thread (it reads the IR); only the
// NVRTC compiles, which share nothing, run in parallel.
#pragma once

#include <string>
#include <vector>

#include "core/cuda/kernel_cache.h"
#include "tuner/search_space.h"
#include "tuner/tuning_target.h"

namespace fuserlab::tuner {

struct BuildResult {
  size_t variant = 0;
  bool ok = false;
  bool cached = false;  //!< found in the cache, not compiled
  double compileMilliseconds = 0;
  std::string error;  //!< code generation's or NVRTC's message
};

class Builder {
 public:
  //! `threads` 0: std::thread::hardware_concurrency().
  Builder(runtime::KernelCache& cache, unsigned threads = 0);

  //! Builds `variants` of `target`'s space, one result per variant in order.
  std::vector<BuildResult> build(const TuningTarget& target, const SearchSpace& space,
                                 const std::vector<size_t>& variants);

  unsigned threads() const { return threads_; }

 private:
  runtime::KernelCache& cache_;
  unsigned threads_;
};

}  // namespace fuserlab::tuner
