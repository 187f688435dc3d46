// The benchmark (core/runtime/benchmark.h) on a GPU: the executor's launch
// hooks see every launch, benchmarkFusion times every sample and launch,
// and the copy bandwidth is measured. Skips without a GPU.
#include "tests/gpu/gpu_fixture.h"

#include "core/runtime/benchmark.h"
#include "core/runtime/cuda_memory.h"

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
  EXPECT_GE(bench.runWallMicroseconds.median, bench.hostMicroseconds.median);
  // The executor compiled already (runAndCheck): the benchmark's first run
  // is a cached one.
  EXPECT_EQ(bench.firstRun.kernelsBuilt, 0);
}

TEST_F(GpuBenchmarkTest, CopyBandwidthIsMeasured) {
  const runtime::CopyBandwidth copy = runtime::measureCopyBandwidth(0, int64_t{64} << 20, 3);
  EXPECT_EQ(copy.bytes, int64_t{64} << 20);
  EXPECT_EQ(copy.microseconds.count, 3);
  EXPECT_GT(copy.bytesPerSecond, 1e11);
  EXPECT_LT(copy.bytesPerSecond, 20e12);
}

}  // namespace
}  // namespace fuserlab::gpu_test
