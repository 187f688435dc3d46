#include "measure/kernel_build_timing.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <system_error>

#include "core/cuda/kernel_cache.h"
#include "core/ir/error.h"
#include "core/runtime/gpu_executor.h"

namespace fuserlab::runtime {
namespace {

namespace fs = std::filesystem;

//! A fresh directory under the system's temporary one, removed with the
//! object; empty when it cannot be made (the caches are then memory-only).
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    static std::atomic<int> counter{0};
    std::error_code error;
    const fs::path base = fs::temp_directory_path(error);
    if (error) return;
    const fs::path path = base / ("fuserlab-kernel-build-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(counter++));
    fs::remove_all(path, error);
    if (fs::create_directories(path, error) && !error) path_ = path;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

//! The first run of a fresh executor over `cache`: how it got its images.
KernelImageLoads firstRun(const ir::Fusion& fusion, int device,
                          const compiler::CompileOptions& options,
                          const scheduler::HeuristicProvider* provider, const Arguments& inputs,
                          KernelCache& cache) {
  GpuExecutor executor(fusion, device, options, &cache);
  executor.setHeuristicProvider(provider);
  return executor.run(inputs).stats.images;
}

}  // namespace

KernelBuildTimes measureKernelBuilds(const ir::Fusion& fusion, int device,
                                     const compiler::CompileOptions& options,
                                     const scheduler::HeuristicProvider* provider,
                                     const Arguments& inputs) {
  KernelBuildTimes times;
  const TemporaryDirectory directory;
  KernelCache coldCache(directory.path());
  const KernelImageLoads cold = firstRun(fusion, device, options, provider, inputs, coldCache);
  FL_ASSERT(cold.fromCache == 0, "an empty kernel cache handed back ", cold.fromCache, " image(s)");
  times.kernels = cold.compiled;
  if (cold.compiled == 0) return times;
  times.coldMillisecondsPerKernel = cold.compileMilliseconds / cold.compiled;
  if (directory.path().empty()) {
    times.warmUnavailable = "no temporary directory for the kernel cache";
    return times;
  }
  if (coldCache.stats().writeFailures > 0) {
    times.warmUnavailable =
        "the temporary kernel cache could not be written: " + coldCache.lastWriteError();
    return times;
  }
  KernelCache warmCache(directory.path());
  const KernelImageLoads warm = firstRun(fusion, device, options, provider, inputs, warmCache);
  FL_ASSERT(warm.compiled == 0 && warm.fromCache == cold.compiled,
            "the kernel cache written by the cold run held ", warm.fromCache, " of ", cold.compiled,
            " image(s)");
  times.warmMillisecondsPerKernel = warm.cacheMilliseconds / warm.fromCache;
  return times;
}

}  // namespace fuserlab::runtime
