// Benchmarking a fusion on a GPU with CUDA events (the CUDA runtime API; no
// CUPTI in core). Per sample: the L2 cache is flushed (L2Flush: a buffer of
// twice its size written, then read, so the sample starts from a cold and
// clean L2), then the whole fusion runs on device-resident inputs; the
// events bracket the launches (recorded through GpuRunOptions' hooks, so
// planning before the first launch and the final synchronization stay out).
// The flush is queued right before the start event, so the GPU is still busy
// with it while the host queues the launches: a run whose host path is
// slower than the flush shows launch gaps in its GPU time (the host time
// per launch says so).
//
// Also: the device's copy bandwidth, measured in the same process with a
// device-to-device cudaMemcpy (2 * bytes / time), so the fusion's effective
// bandwidth is judged against what this GPU achieves, not its data sheet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/cuda_memory.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/argument.h"
#include "measure/sample_statistics.h"

namespace fuserlab::runtime {

//! Rounds of cached runs the host time is taken over (FusionBenchmark).
inline constexpr int kHostRounds = 5;

//! Steps of the reference loop that times the host CPU's speed
//! (FusionBenchmark::hostReferenceLoopMicroseconds).
inline constexpr int kReferenceLoopSteps = 1024;

struct BenchmarkOptions {
  //! Timed samples (at least 1; the CLI asks for at least 20).
  int samples = 50;
  //! Untimed runs before the samples (after the first, compiling run).
  int warmup = 5;
  //! Flush L2 before every sample (and before every warm-up run).
  bool flushL2 = true;
};

//! One launch of the fusion's run (a kernel, copy kernel or cuBLASLt call).
struct LaunchTiming {
  std::string what;
  SampleSummary microseconds;
};

struct FusionBenchmark {
  //! GPU time of the whole fusion per sample, microseconds, in sample order.
  std::vector<double> samplesMicroseconds;
  SampleSummary gpuMicroseconds;
  //! Per launch, from other samples with an event between launches (so a
  //! launch's time includes any gap before it, and the launches do not
  //! overlap: their sum can exceed gpuMicroseconds, which has no event
  //! between launches). One launch: gpuMicroseconds.
  std::vector<LaunchTiming> launches;
  int kernelLaunches = 0;
  //! Bytes the fusion must move: each input read once, each output written
  //! once (fusionBytes()).
  int64_t bytesMoved = 0;
  //! bytesMoved over the median GPU time.
  double effectiveBytesPerSecond = 0;
  //! Bytes of the L2 flush buffer (twice the L2 size); 0 without a flush.
  int64_t flushBytes = 0;
  //! The first (compiling) run: its stats (compileMilliseconds, params
  //! sources) and its wall time.
  GpuRunStats firstRun;
  double firstRunMilliseconds = 0;
  //! Passes + segmentation + heuristics of the first run's compilation (the
  //! report's compile_us).
  double compileMicroseconds = 0;
  //! Cached runs without flush or events (kHostRounds rounds of `samples`
  //! runs, 2 ms apart, pooled): host time from calling GpuExecutor::run
  //! until the last launch is queued, median, and that per launch; and the
  //! wall time of the whole run() (synchronized).
  SampleSummary hostMicroseconds;
  double hostMicrosecondsPerLaunch = 0;
  SampleSummary runWallMicroseconds;
  //! The part of hostMicroseconds before the first launch call (the replay
  //! key, buffers and arguments bound): the rest is the launch calls, the
  //! CUDA driver's share.
  SampleSummary hostPrepareMicroseconds;
  //! hostMicroseconds' median in each of the kHostRounds rounds, in order:
  //! one slow round is a burst of other work on the host; all of them slow,
  //! a slow process or a busy CPU.
  std::vector<double> hostRoundMedians;
  //! Times the benchmarking thread was preempted (involuntary context
  //! switches) during those rounds: another thread or process wanted its
  //! CPU. -1 where the system does not count them.
  int64_t hostPreemptions = -1;
  //! The host CPU's own speed during those rounds, to tell a slow host from
  //! a slow run(): a fixed chain of kReferenceLoopSteps dependent integer
  //! multiply-adds (about 4 cycles each, ~1.2 us at 3.5 GHz), timed five
  //! times before each round.
  SampleSummary hostReferenceLoopMicroseconds;
  //! The CPU the thread was on at the start of each round (-1 unknown).
  std::vector<int> hostRoundCpus;
  //! The last of those cached runs: whether it replayed a traced plan and
  //! queued its launches as one CUDA graph.
  GpuRunStats cachedRun;
};

//! Runs `executor` on `inputs` (device tensors on the executor's GPU, as
//! GpuExecutor::run takes them): once to compile, `warmup` times, then
//! `samples` timed runs. An output that aliases an input updates it on every
//! run (the values drift; the work per run does not).
FusionBenchmark benchmarkFusion(GpuExecutor& executor, const Arguments& inputs,
                                const BenchmarkOptions& options = {});

//! Bytes a fusion must move: each tensor input read once and each tensor
//! output written once, counting distinct elements (a stride-0 axis of an
//! expanded input counts once). Scalars and 0-dim CPU tensors count 0.
int64_t fusionBytes(const Arguments& inputs, const std::vector<Tensor>& outputs);

struct CopyBandwidth {
  int64_t bytes = 0;  //!< size of the copied buffer
  SampleSummary microseconds;
  //! 2 * bytes (read + write) over the median time.
  double bytesPerSecond = 0;
};

//! Times cudaMemcpy device-to-device of a buffer of `maxBytes` (smaller when
//! a quarter of the free memory is less) on GPU `device`: one untimed copy,
//! then `samples` copies timed with events.
CopyBandwidth measureCopyBandwidth(int device, int64_t maxBytes = int64_t{1} << 30,
                                   int samples = 10);

}  // namespace fuserlab::runtime
