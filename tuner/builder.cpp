#include "tuner/builder.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "core/ir/error.h"
#include "core/runtime/gpu_executor.h"

namespace fuserlab::tuner {

Builder::Builder(runtime::KernelCache& cache, unsigned threads)
    : cache_(cache),
      threads_(threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

std::vector<BuildResult> Builder::build(const TuningTarget& target, const SearchSpace& space,
                                        const std::vector<size_t>& variants) {
  std::vector<BuildResult> results(variants.size());
  std::vector<std::optional<codegen::GeneratedKernel>> kernels(variants.size());
  const runtime::KernelCompiler compiler = runtime::nvrtcKernelCompiler();
  for (size_t i = 0; i < variants.size(); ++i) {
    results[i].variant = variants[i];
    FL_ASSERT(variants[i] < space.variants.size(), "variant ", variants[i], " is not in the space");
    try {
      kernels[i] = target.generate(space.variants[variants[i]].params);
    } catch (const UserError& error) {
      results[i].error = "code generation: " + error.message();
    }
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < variants.size(); i = next++) {
      if (!kernels[i]) continue;
      BuildResult& result = results[i];
      // Nothing may escape a worker thread: every error lands in its result.
      try {
        const std::string key = runtime::kernelImageKey(*kernels[i], target.device, compiler);
        bool compiled = false;
        const auto start = std::chrono::steady_clock::now();
        cache_.getOrCompile(key, [&] {
          compiled = true;
          return compiler.compile(*kernels[i], target.device);
        });
        result.compileMilliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        result.cached = !compiled;
        result.ok = true;
      } catch (const std::exception& error) {
        result.error = std::string("NVRTC: ") + error.what();
      }
    }
  };
  const unsigned count = std::min<unsigned>(threads_, static_cast<unsigned>(variants.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return results;
}

}  // namespace fuserlab::tuner
