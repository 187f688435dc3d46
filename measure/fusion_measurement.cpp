#include "measure/fusion_measurement.h"

#include <utility>

namespace fuserlab::runtime {

using report::Json;

FusionMeasurement measureFusion(const ir::Fusion& fusion, GpuExecutor& executor, int device,
                                const compiler::CompileOptions& compileOptions,
                                const scheduler::HeuristicProvider* provider,
                                DeviceArguments inputs, const BenchmarkOptions& options) {
  FusionMeasurement m;
  m.options = options;
  const Arguments& deviceInputs = inputs.arguments;
  m.run = benchmarkFusion(executor, deviceInputs, options);
  m.builds = measureKernelBuilds(fusion, device, compileOptions, provider, deviceInputs);
  m.kernels = tuner::measureKernelTimes(executor, deviceInputs, options.samples);
  inputs = {};  // the inputs' memory back before the copy's 2 GiB
  m.copy = measureCopyBandwidth(device);
  m.bandwidthRatio =
      m.copy.bytesPerSecond > 0 ? m.run.effectiveBytesPerSecond / m.copy.bytesPerSecond : 0;
  m.kernelBytesPerSecond =
      m.kernelsTimed() && m.kernels.spanMicroseconds.median > 0
          ? double(m.run.bytesMoved) / (m.kernels.spanMicroseconds.median * 1e-6)
          : 0;
  m.kernelBandwidthRatio =
      m.copy.bytesPerSecond > 0 ? m.kernelBytesPerSecond / m.copy.bytesPerSecond : 0;
  return m;
}

Json summaryJson(const SampleSummary& s) {
  Json j = Json::object();
  j.set("median", s.median);
  j.set("p20", s.p20);
  j.set("p80", s.p80);
  j.set("min", s.min);
  j.set("max", s.max);
  j.set("count", s.count);
  return j;
}

void appendMeasurementJson(const FusionMeasurement& m, Json& root) {
  root.set("samples", m.options.samples);
  root.set("warmup", m.options.warmup);
  root.set("l2_flush_bytes", m.run.flushBytes);
  root.set("gpu_us", summaryJson(m.run.gpuMicroseconds));
  root.set("samples_us", Json::arrayOf(m.run.samplesMicroseconds));
  Json launches = Json::array();
  for (const runtime::LaunchTiming& launch : m.run.launches) {
    Json l = Json::object();
    l.set("what", launch.what);
    l.set("us", summaryJson(launch.microseconds));
    launches.push(std::move(l));
  }
  root.set("launches", std::move(launches));
  root.set("kernel_launches", m.run.kernelLaunches);
  root.set("dependent_launches", m.run.firstRun.dependentLaunches);
  root.set("bytes_moved", m.run.bytesMoved);
  root.set("effective_bandwidth_bytes_per_s", m.run.effectiveBytesPerSecond);
  Json copyJson = Json::object();
  copyJson.set("bytes", m.copy.bytes);
  copyJson.set("us", summaryJson(m.copy.microseconds));
  copyJson.set("bandwidth_bytes_per_s", m.copy.bytesPerSecond);
  root.set("copy", std::move(copyJson));
  root.set("bandwidth_ratio", m.bandwidthRatio);
  Json kernelJson = Json::object();
  if (m.kernelsTimed()) {
    kernelJson.set("span_us", summaryJson(m.kernels.spanMicroseconds));
    kernelJson.set("busy_us", summaryJson(m.kernels.busyMicroseconds));
    Json each = Json::array();
    for (const tuner::KernelTimes::Kernel& k : m.kernels.kernels) {
      Json one = Json::object();
      one.set("name", k.name);
      one.set("us", summaryJson(k.microseconds));
      each.push(std::move(one));
    }
    kernelJson.set("kernels", std::move(each));
    kernelJson.set("bandwidth_bytes_per_s", m.kernelBytesPerSecond);
    kernelJson.set("bandwidth_ratio", m.kernelBandwidthRatio);
  } else {
    kernelJson.set("unavailable", m.kernels.unavailable);
  }
  root.set("cupti_kernels", std::move(kernelJson));
  root.set("host_us", summaryJson(m.run.hostMicroseconds));
  root.set("host_us_per_launch", m.run.hostMicrosecondsPerLaunch);
  root.set("host_prepare_us", summaryJson(m.run.hostPrepareMicroseconds));
  Json rounds = Json::array();
  for (double median : m.run.hostRoundMedians) rounds.push(Json(median));
  root.set("host_round_medians_us", std::move(rounds));
  root.set("host_preemptions", m.run.hostPreemptions >= 0 ? Json(m.run.hostPreemptions) : Json());
  root.set("host_reference_loop_us", summaryJson(m.run.hostReferenceLoopMicroseconds));
  Json cpus = Json::array();
  for (int cpu : m.run.hostRoundCpus) cpus.push(Json(cpu));
  root.set("host_round_cpus", std::move(cpus));
  root.set("cached_run_replayed", m.run.cachedRun.replayed);
  root.set("cached_run_graph_launch", m.run.cachedRun.graphLaunch);
  root.set("run_wall_us", summaryJson(m.run.runWallMicroseconds));
  root.set("first_run_ms", m.run.firstRunMilliseconds);
  root.set("compile_ms", m.run.firstRun.compileMilliseconds);
  root.set("kernels_built", m.run.firstRun.kernelsBuilt);
  root.set("compile_ms_per_kernel",
           m.run.firstRun.kernelsBuilt > 0
               ? Json(m.run.firstRun.compileMilliseconds / m.run.firstRun.kernelsBuilt)
               : Json());
  Json imagesJson = Json::object();
  imagesJson.set("compiled", m.run.firstRun.images.compiled);
  imagesJson.set("from_cache", m.run.firstRun.images.fromCache);
  imagesJson.set("compile_ms", m.run.firstRun.images.compileMilliseconds);
  imagesJson.set("nvrtc_ms", m.run.firstRun.images.compilerMilliseconds);
  imagesJson.set("cache_ms", m.run.firstRun.images.cacheMilliseconds);
  root.set("first_run_images", std::move(imagesJson));
  Json buildJson = Json::object();
  buildJson.set("kernels", m.builds.kernels);
  buildJson.set("cold_ms_per_kernel",
                m.builds.kernels > 0 ? Json(m.builds.coldMillisecondsPerKernel) : Json());
  buildJson.set("warm_ms_per_kernel", m.builds.kernels > 0 && m.builds.warmUnavailable.empty()
                                          ? Json(m.builds.warmMillisecondsPerKernel)
                                          : Json());
  if (!m.builds.warmUnavailable.empty())
    buildJson.set("warm_unavailable", m.builds.warmUnavailable);
  root.set("kernel_build", std::move(buildJson));
  root.set("compile_us", m.run.compileMicroseconds);
}

}  // namespace fuserlab::runtime
