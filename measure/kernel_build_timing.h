// What building a fusion's kernels costs the first run of a process, both
// ways it can go (issue 6: cold NVRTC compile and warm disk-cache load time
// per kernel): a fresh executor over an empty kernel cache compiles every
// image with NVRTC, writes it to the cache's directory and loads it; a later
// fresh executor, over a new cache of the same directory (as the next
// process would open it), reads every image back from disk and loads it.
// Each runs the fusion once on the caller's inputs. The directory is
// temporary, removed afterwards; the user's kernel cache is not touched.
//
// On a freshly started machine the first compile of each kind of kernel
// costs more, by all the measurements reading NVRTC's code from disk (a cold
// page cache): H100 hosts, the
// first run of a new machine's first processes 76 to 1322 ms where these
// passes take 16 to 43 ms a kernel (docs/performance.md, "Kernel build
// time"). The cold pass here runs after the first run, so it is the figure
// of a machine in use.
#pragma once

#include <string>

#include "core/compiler/compile_options.h"
#include "core/tensor/argument.h"

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
  //! module load (cold); the disk read and the module load (warm).
  double coldMillisecondsPerKernel = 0;
  double warmMillisecondsPerKernel = 0;
  //! Why the warm figure is missing (the temporary cache could not be
  //! written); empty when both were measured.
  std::string warmUnavailable;
};

//! Measures both ways on GPU `device`, with `provider`'s params (may be
//! null) as the caller's executor would take them. `inputs` as
//! GpuExecutor::run takes them.
KernelBuildTimes measureKernelBuilds(const ir::Fusion& fusion, int device,
                                     const compiler::CompileOptions& options,
                                     const scheduler::HeuristicProvider* provider,
                                     const Arguments& inputs);

}  // namespace fuserlab::runtime
