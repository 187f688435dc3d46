// What building a fusion's kernels costs the first run of a process, both
// ways it can go (issue 6: cold NVRTC compile and warm disk-cache load time
// per kernel): a fresh executor over an empty kernel cache compiles every
// image with NVRTC, writes it to the cache's directory and loads it; a later
// fresh executor, over a new cache of the same directory (as the next
// process would open it), reads every image back from disk and loads it.
// Each runs the fusion once on the caller's inputs. The directories are
// temporary, removed afterwards; the user's kernel cache is not touched.
//
// The cold pass runs twice, over two empty caches, and both figures are
// kept: NVRTC's first compiles in a process can take several times its later
// ones (H100 host: a first run compiling right at process start spent 3 to
// 20 times these passes' per-kernel time in NVRTC; a bare NVRTC process took
// 204 to 912 ms for its first kernel, 16 to 40 ms for each after, whatever
// ran before it; yet the first pass of a process whose first run came from
// the cache ran at the second's speed). docs/performance.md has the figures.
#pragma once

#include <string>

#include "core/passes/compile_options.h"
#include "core/runtime/argument.h"

namespace fuserlab::ir {
class Fusion;
}
namespace fuserlab::scheduler {
class HeuristicProvider;
}

namespace fuserlab::runtime {

struct KernelBuildTimes {
  //! Kernel images the fusion's first run builds (generated and copy
  //! kernels; a cuBLASLt call has none).
  int kernels = 0;
  //! Host time per kernel, milliseconds: NVRTC, the cache write and the
  //! module load (cold, the second pass; the first pass apart, which holds
  //! the process's first compiles where nothing compiled before it); the
  //! disk read and the module load (warm).
  double coldMillisecondsPerKernel = 0;
  double firstColdMillisecondsPerKernel = 0;
  double warmMillisecondsPerKernel = 0;
  //! Why the warm figure is missing (the temporary cache could not be
  //! written); empty when both were measured.
  std::string warmUnavailable;
};

//! Measures both ways on GPU `device`, with `provider`'s params (may be
//! null) as the caller's executor would take them. `inputs` as
//! GpuExecutor::run takes them.
KernelBuildTimes measureKernelBuilds(const ir::Fusion& fusion, int device,
                                     const passes::CompileOptions& options,
                                     const scheduler::HeuristicProvider* provider,
                                     const Arguments& inputs);

}  // namespace fuserlab::runtime
