// Fusion measurement: everything `bench` measures of one fusion on one GPU,
// in the order that keeps the figures clean — the timed samples (events,
// each launch, the host), each kernel's build cold and warm, the kernels'
// own GPU time from CUPTI's records, then (the inputs freed) the copy
// bandwidth the ratios are taken against — and the figures as JSON. The CLI
// parses options and prints; the workbench and scripts read the same JSON.
#pragma once

#include "core/report/json.h"
#include "core/runtime/gpu_executor.h"
#include "measure/benchmark.h"
#include "measure/kernel_build_timing.h"
#include "measure/kernel_timing.h"

namespace fuserlab::runtime {

struct FusionMeasurement {
  BenchmarkOptions options;
  FusionBenchmark run;
  KernelBuildTimes builds;
  tuner::KernelTimes kernels;
  CopyBandwidth copy;
  //! The effective bandwidth over the events' median, against `copy`.
  double bandwidthRatio = 0;
  //! The same bytes over the kernels' span (CUPTI), and against `copy`;
  //! 0 where CUPTI gave no records.
  double kernelBytesPerSecond = 0;
  double kernelBandwidthRatio = 0;

  bool kernelsTimed() const { return kernels.unavailable.empty(); }
};

//! Measures `fusion` through `executor` (built for it on GPU `device` with
//! `compileOptions` and `provider`) on `inputs`, which it frees before the
//! copy's 2 GiB.
FusionMeasurement measureFusion(const ir::Fusion& fusion, GpuExecutor& executor, int device,
                                const compiler::CompileOptions& compileOptions,
                                const scheduler::HeuristicProvider* provider,
                                DeviceArguments inputs, const BenchmarkOptions& options);

//! A sample summary as JSON: median, p20, p80, min, max, count.
report::Json summaryJson(const SampleSummary& summary);

//! The measurement's figures, appended to `root` in `bench --json`'s order
//! and names (samples, warmup, l2_flush_bytes, gpu_us, ..., compile_us).
void appendMeasurementJson(const FusionMeasurement& m, report::Json& root);

}  // namespace fuserlab::runtime
