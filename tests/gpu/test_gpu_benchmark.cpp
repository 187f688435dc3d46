// The benchmark (measure/benchmark.h) on a GPU: the executor's launch
// hooks see every launch, benchmarkFusion times every sample and launch,
// and the copy bandwidth is measured. Skips without a GPU.
#include "tests/gpu/gpu_fixture.h"

#include "core/cuda/cuda_memory.h"
#include "core/cuda/kernel_cache.h"
#include "measure/benchmark.h"
#include "measure/kernel_build_timing.h"
#include "measure/kernel_timing.h"

#include <cuda_runtime_api.h>

#include <iostream>
#include <vector>

namespace fuserlab::gpu_test {
namespace {

class GpuBenchmarkTest : public GpuTest {};

constexpr std::string_view kSiluMul = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.silu(T0)
T3 = fd.ops.mul(T2, T1)
fd.add_output(T3)
)";

// Three kernels: exp, a row sum of it, and the exp over that sum (segments
// 0, 2 and 4: the segment_sets between them launch nothing).
constexpr std::string_view kThreeKernels = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.exp(T0)
T2 = fd.ops.segment_set(T1)
T3 = fd.ops.sum(T2, dims=[1], keepdim=True)
T4 = fd.ops.segment_set(T3)
T5 = fd.ops.div(T2, T4)
fd.add_output(T5)
)";

TEST_F(GpuBenchmarkTest, LaunchHooksSeeEveryLaunch) {
  define(kSiluMul);
  const Tensor a = random(DataType::Float, {300, 301});
  const Tensor b = random(DataType::Float, {300, 301});
  runAndCheck({a, b});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor da = runtime::toDevice(a, 0, "a");
  const runtime::DeviceTensor db = runtime::toDevice(b, 0, "b");
  int before = 0;
  std::vector<size_t> indices;
  std::vector<std::string> names;
  runtime::GpuRunOptions options;
  options.beforeLaunches = [&] {
    EXPECT_TRUE(indices.empty()) << "beforeLaunches after a launch";
    ++before;
  };
  options.afterLaunch = [&](size_t index, const std::string& what) {
    indices.push_back(index);
    names.push_back(what);
  };
  const runtime::GpuRunResult result = executor().run({da.tensor, db.tensor}, options);
  EXPECT_EQ(before, 1);
  ASSERT_EQ(indices.size(), size_t(result.stats.kernelLaunches));
  for (size_t i = 0; i < indices.size(); ++i) {
    EXPECT_EQ(indices[i], i);
    EXPECT_NE(names[i].find("kernel"), std::string::npos) << names[i];
  }
}

TEST_F(GpuBenchmarkTest, BenchmarkTimesEverySampleAndLaunch) {
  define(kSiluMul);
  const Tensor a = random(DataType::Float, {1024, 4096});
  const Tensor b = random(DataType::Float, {1024, 4096});
  runAndCheck({a, b});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor da = runtime::toDevice(a, 0, "a");
  const runtime::DeviceTensor db = runtime::toDevice(b, 0, "b");
  runtime::BenchmarkOptions options;
  options.samples = 21;
  options.warmup = 2;
  const runtime::FusionBenchmark bench =
      runtime::benchmarkFusion(executor(), {da.tensor, db.tensor}, options);
  ASSERT_EQ(bench.samplesMicroseconds.size(), 21u);
  EXPECT_GT(bench.gpuMicroseconds.median, 0);
  EXPECT_LE(bench.gpuMicroseconds.p20, bench.gpuMicroseconds.median);
  EXPECT_GE(bench.gpuMicroseconds.p80, bench.gpuMicroseconds.median);
  EXPECT_EQ(bench.launches.size(), size_t(bench.kernelLaunches));
  EXPECT_GE(bench.kernelLaunches, 1);
  EXPECT_EQ(bench.bytesMoved, int64_t{3} * 1024 * 4096 * 4);
  EXPECT_EQ(bench.flushBytes, 2 * executor().deviceSpec().l2CacheBytes);
  // 48 MiB over at least a microsecond, and no faster than 20 TB/s.
  EXPECT_GT(bench.effectiveBytesPerSecond, 0);
  EXPECT_LT(bench.effectiveBytesPerSecond, 20e12);
  EXPECT_GT(bench.hostMicrosecondsPerLaunch, 0);
  // The host runs are pooled over rounds, `samples` each.
  EXPECT_EQ(bench.hostMicroseconds.count, runtime::kHostRounds * options.samples);
  EXPECT_GE(bench.runWallMicroseconds.median, bench.hostMicroseconds.median);
  // Binding the replay comes before the launch calls: a part of the host time.
  EXPECT_GT(bench.hostPrepareMicroseconds.median, 0);
  EXPECT_LT(bench.hostPrepareMicroseconds.median, bench.hostMicroseconds.median);
  // Each round's own median, in order, between the pooled samples' extremes;
  // the thread's preemptions over the rounds (Linux).
  ASSERT_EQ(bench.hostRoundMedians.size(), size_t(runtime::kHostRounds));
  for (double median : bench.hostRoundMedians) {
    EXPECT_GE(median, bench.hostMicroseconds.min);
    EXPECT_LE(median, bench.hostMicroseconds.max);
  }
  EXPECT_GE(bench.hostPreemptions, 0);
  // The CPU's own speed beside it: five timings of the reference loop a round.
  EXPECT_EQ(bench.hostReferenceLoopMicroseconds.count, 5 * runtime::kHostRounds);
  EXPECT_GT(bench.hostReferenceLoopMicroseconds.median, 0);
  ASSERT_EQ(bench.hostRoundCpus.size(), size_t(runtime::kHostRounds));
  EXPECT_GE(bench.hostRoundCpus.front(), 0);
  // The executor compiled already (runAndCheck): the benchmark's first run
  // is a cached one.
  EXPECT_EQ(bench.firstRun.kernelsBuilt, 0);
}

// A run's stats say how it got each kernel image: compiled into an empty
// cache, then by a second executor from that cache (its memory), and by a
// third over a new cache of the same directory (its disk); a cached run
// builds nothing.
TEST_F(GpuBenchmarkTest, RunStatsSayWhereEachKernelImageCameFrom) {
  define(kSiluMul);
  const Tensor a = random(DataType::Float, {64, 96});
  const Tensor b = random(DataType::Float, {64, 96});
  runAndCheck({a, b});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor da = runtime::toDevice(a, 0, "a");
  const runtime::DeviceTensor db = runtime::toDevice(b, 0, "b");
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / "fuserlab_gpu_image_stats";
  std::filesystem::remove_all(directory);
  runtime::KernelCache cache(directory);
  runtime::GpuExecutor first(fusion(), 0, compiler::CompileOptions{}, &cache);
  runtime::GpuRunStats stats = first.run({da.tensor, db.tensor}).stats;
  EXPECT_EQ(stats.images.compiled, 1);
  EXPECT_EQ(stats.images.fromCache, 0);
  EXPECT_GT(stats.images.compileMilliseconds, 0);
  EXPECT_EQ(stats.images.cacheMilliseconds, 0);
  stats = first.run({da.tensor, db.tensor}).stats;
  EXPECT_EQ(stats.images.compiled + stats.images.fromCache, 0);
  runtime::GpuExecutor second(fusion(), 0, compiler::CompileOptions{}, &cache);
  stats = second.run({da.tensor, db.tensor}).stats;
  EXPECT_EQ(stats.images.compiled, 0);
  EXPECT_EQ(stats.images.fromCache, 1);
  EXPECT_EQ(cache.stats().memoryHits, 1);
  runtime::KernelCache reopened(directory);
  runtime::GpuExecutor third(fusion(), 0, compiler::CompileOptions{}, &reopened);
  stats = third.run({da.tensor, db.tensor}).stats;
  EXPECT_EQ(stats.images.compiled, 0);
  EXPECT_EQ(stats.images.fromCache, 1);
  EXPECT_GT(stats.images.cacheMilliseconds, 0);
  EXPECT_EQ(reopened.stats().diskHits, 1);
  std::filesystem::remove_all(directory);
}

// Both build times of a three-kernel fusion: every kernel compiled cold,
// every one read back warm, a disk read and a module load far cheaper than
// an NVRTC compile; the temporary cache directory is gone afterwards.
TEST_F(GpuBenchmarkTest, KernelBuildsAreTimedColdAndWarm) {
  define(kThreeKernels);
  const Tensor input = random(DataType::Float, {128, 200});
  runAndCheck({input});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor onDevice = runtime::toDevice(input, 0, "input");
  auto leftovers = [] {
    int count = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
      if (entry.path().filename().string().rfind("fuserlab-kernel-build-", 0) == 0) ++count;
    }
    return count;
  };
  const int before = leftovers();
  const runtime::KernelBuildTimes times = runtime::measureKernelBuilds(
      fusion(), 0, compiler::CompileOptions{}, nullptr, {onDevice.tensor});
  EXPECT_EQ(times.kernels, 3);
  EXPECT_TRUE(times.warmUnavailable.empty()) << times.warmUnavailable;
  EXPECT_GT(times.warmMillisecondsPerKernel, 0);
  EXPECT_GT(times.coldMillisecondsPerKernel, 2 * times.warmMillisecondsPerKernel)
      << "cold " << times.coldMillisecondsPerKernel << " ms, warm "
      << times.warmMillisecondsPerKernel << " ms";
  EXPECT_EQ(leftovers(), before);
}

// bench's CUPTI pass (measure/kernel_timing.h) on a three-kernel fusion that
// replays as one CUDA graph: every kernel of each sample is recorded, in
// the order they ran, though all three carry the correlation id of the one
// cuGraphLaunch (CuptiTimer once kept one kernel per id, and so one of the
// three); the busy time is their durations summed, the span covers them.
TEST_F(GpuBenchmarkTest, CuptiTimesEveryKernelOfAGraphReplay) {
  define(kThreeKernels);
  const Tensor input = random(DataType::Float, {1024, 2000});
  runAndCheck({input});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor onDevice = runtime::toDevice(input, 0, "input");
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  executor.run({onDevice.tensor});
  const runtime::GpuRunStats replay = executor.run({onDevice.tensor}).stats;
  ASSERT_TRUE(replay.graphLaunch) << "the timed runs should replay as one graph";
  ASSERT_EQ(replay.kernelLaunches, 3);
  const tuner::KernelTimes times = tuner::measureKernelTimes(executor, {onDevice.tensor}, 12);
  ASSERT_TRUE(times.unavailable.empty()) << times.unavailable;
  ASSERT_EQ(times.kernels.size(), 3u);
  const char* order[] = {"pointwise_seg0", "reduction_seg2", "pointwise_seg4"};
  double sum = 0;
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(times.kernels[k].name, order[k]) << "kernel " << k;
    EXPECT_EQ(times.kernels[k].microseconds.count, 12);
    EXPECT_GT(times.kernels[k].microseconds.median, 0);
    sum += times.kernels[k].microseconds.median;
  }
  EXPECT_EQ(times.busyMicroseconds.count, 12);
  EXPECT_NEAR(times.busyMicroseconds.median, sum, 0.25 * sum);
  // The span holds every kernel; dependents may overlap the one before by
  // less than a kernel's time.
  EXPECT_GT(times.spanMicroseconds.median, times.kernels[0].microseconds.median);
  EXPECT_GT(times.spanMicroseconds.median, 0.5 * times.busyMicroseconds.median);
  // The run panel's lines: the span, then each kernel by name.
  const std::vector<std::string> lines = tuner::describeKernelTimes(times);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("GPU time (CUPTI, 12 runs", 0), 0u) << lines[0];
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(lines[k + 1].rfind(std::string("  ") + order[k] + ": ", 0), 0u) << lines[k + 1];
  }
}

TEST_F(GpuBenchmarkTest, CopyBandwidthIsMeasured) {
  const runtime::CopyBandwidth copy = runtime::measureCopyBandwidth(0, int64_t{64} << 20, 3);
  EXPECT_EQ(copy.bytes, int64_t{64} << 20);
  EXPECT_EQ(copy.microseconds.count, 3);
  EXPECT_GT(copy.bytesPerSecond, 1e11);
  EXPECT_LT(copy.bytesPerSecond, 20e12);
}

constexpr std::string_view kRowSum = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)";

// The benchmark's flush leaves the L2 clean: a 64 MB row sum timed after it
// is faster than after a flush that only writes, whose dirty lines the
// timed kernel must write back (H100: 25 us against 33 us, ncu counting
// 20 MB of DRAM writes during the kernel after a write-only flush).
TEST_F(GpuBenchmarkTest, FlushLeavesNoWriteBackToTheTimedKernel) {
  define(kRowSum);
  const Tensor x = random(DataType::BFloat16, {8192, 4096});
  runAndCheck({x});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::DeviceTensor dx = runtime::toDevice(x, 0, "x");
  runtime::BenchmarkOptions options;
  options.samples = 31;
  options.warmup = 3;
  const runtime::FusionBenchmark clean = runtime::benchmarkFusion(executor(), {dx.tensor}, options);
  EXPECT_EQ(clean.flushBytes, 2 * executor().deviceSpec().l2CacheBytes);

  // The same kernel after writing the same bytes without the read.
  runtime::DeviceBuffer flush(clean.flushBytes, 0, "a write-only flush");
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  runtime::GpuRunOptions hooks;
  int count = 0;
  hooks.beforeLaunches = [&] {
    ASSERT_EQ(cudaMemsetAsync(flush.data(), 1 + (count++ % 255), static_cast<size_t>(flush.bytes()),
                              nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  };
  hooks.afterLaunch = [&](size_t, const std::string&) {
    ASSERT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
  };
  std::vector<double> dirty;
  for (int i = 0; i < 31; ++i) {
    executor().run({dx.tensor}, hooks);
    float ms = 0;
    ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    dirty.push_back(ms * 1000.0);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const double dirtyMedian = runtime::summarizeSamples(dirty).median;
  std::cout << "row sum 8192x4096 bf16: " << clean.gpuMicroseconds.median
            << " us after the benchmark's flush, " << dirtyMedian
            << " us after a write-only flush\n";
  EXPECT_LT(clean.gpuMicroseconds.median, 0.95 * dirtyMedian);
}

}  // namespace
}  // namespace fuserlab::gpu_test
