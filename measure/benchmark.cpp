#include "measure/benchmark.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#endif

#include "core/cuda/cuda_error.h"
#include "core/ir/error.h"
#include "measure/l2_flush.h"

namespace fuserlab::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double microsecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

//! One timing of kReferenceLoopSteps dependent multiply-adds, microseconds.
double referenceLoopMicroseconds() {
  static volatile uint64_t seed = 0x9E3779B97F4A7C15ull;
  uint64_t x = seed;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < kReferenceLoopSteps; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
#if defined(__GNUC__)
    asm volatile("" : "+r"(x));  // one step at a time: no closed form
#endif
  }
  const double micros = microsecondsSince(start);
  seed = x;
  return micros;
}

int currentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

//! How often the calling thread has been preempted so far (its involuntary
//! context switches); -1 where the system does not count them.
int64_t threadPreemptions() {
#if defined(__linux__) && defined(RUSAGE_THREAD)
  struct rusage r {};
  if (getrusage(RUSAGE_THREAD, &r) == 0) return r.ru_nivcsw;
#endif
  return -1;
}

//! A CUDA event with timing, destroyed with the object.
class CudaEvent {
 public:
  explicit CudaEvent(std::string_view what) {
    checkCuda(cudaEventCreate(&event_), "cudaEventCreate", what);
  }
  ~CudaEvent() {
    if (event_ != nullptr && cudaEventDestroy(event_) != cudaSuccess) {
      (void)cudaGetLastError();
    }
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  //! Records on the legacy default stream, where the executor launches.
  void record(std::string_view what) const {
    checkCuda(cudaEventRecord(event_, nullptr), "cudaEventRecord", what);
  }
  //! Milliseconds from `start` to this event (both complete).
  double millisecondsSince(const CudaEvent& start, std::string_view what) const {
    float ms = 0;
    checkCuda(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime", what);
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// Distinct elements of a tensor laid out without overlap: the product of
// the sizes of axes with a non-zero stride (a stride-0 axis repeats them).
int64_t distinctElements(const Tensor& tensor) {
  int64_t count = 1;
  for (int64_t d = 0; d < tensor.dim(); ++d) {
    const int64_t size = tensor.sizes()[d];
    if (size == 0) return 0;
    if (tensor.strides()[d] != 0) count *= size;
  }
  return count;
}

int64_t tensorBytes(const Tensor& tensor) {
  if (tensor.dim() == 0 && tensor.device().kind != DeviceKind::Cuda) return 0;
  return distinctElements(tensor) * ir::sizeInBytes(tensor.dtype());
}

// Events for a timed run: a start and one after each launch (reused by
// every sample).
struct RunEvents {
  CudaEvent start{"benchmark start event"};
  std::vector<std::unique_ptr<CudaEvent>> afterLaunch;
  std::vector<std::string> names;
};

// `flush` runs right before the start event is recorded, once the run is
// planned: the GPU is still busy with the flush while the host queues the
// start event and the launches, so the events time the kernels, not the
// host's way to them. `everyLaunch`: an event after each launch (the
// per-launch breakdown); otherwise only after the last one, `launches` - 1,
// so nothing stands between two launches (an event there would keep a
// programmatic dependent launch from overlapping the kernel before it).
GpuRunOptions recordingOptions(RunEvents& events, std::function<void()> flush, bool everyLaunch,
                               size_t launches) {
  GpuRunOptions options;
  options.beforeLaunches = [&events, flush = std::move(flush)] {
    flush();
    events.start.record("benchmark start");
  };
  options.afterLaunch = [&events, everyLaunch, launches](size_t index, const std::string& what) {
    if (!everyLaunch && index + 1 != launches) return;
    if (!everyLaunch) index = 0;
    while (events.afterLaunch.size() <= index) {
      events.afterLaunch.push_back(std::make_unique<CudaEvent>("benchmark launch event"));
      events.names.emplace_back();
    }
    events.names[index] = what;
    events.afterLaunch[index]->record(what);
  };
  // An event between two launches needs each launch queued on its own (no
  // CUDA graph); the whole run's events go around the graph.
  options.launchEachApart = everyLaunch;
  return options;
}

}  // namespace

int64_t fusionBytes(const Arguments& inputs, const std::vector<Tensor>& outputs) {
  int64_t bytes = 0;
  for (const Argument& arg : inputs) {
    if (const auto* t = std::get_if<Tensor>(&arg)) bytes += tensorBytes(*t);
  }
  for (const Tensor& out : outputs) bytes += tensorBytes(out);
  return bytes;
}

FusionBenchmark benchmarkFusion(GpuExecutor& executor, const Arguments& inputs,
                                const BenchmarkOptions& options) {
  FL_CHECK(options.samples >= 1, "the benchmark needs at least one sample, found ",
           options.samples);
  FL_CHECK(options.warmup >= 0, "warm-up runs cannot be negative, found ", options.warmup);
  FusionBenchmark result;
  const int device = executor.device();

  // The first run compiles (passes, segmentation, heuristics, NVRTC).
  const auto firstStart = Clock::now();
  GpuRunResult first = executor.run(inputs);
  result.firstRunMilliseconds = microsecondsSince(firstStart) / 1000.0;
  result.firstRun = first.stats;
  if (const report::CompileReport* report = executor.lastReport()) {
    result.compileMicroseconds = report->compileMicroseconds;
  }
  result.kernelLaunches = first.stats.kernelLaunches;
  std::vector<Tensor> outputs;
  for (const DeviceTensor& out : first.outputs) outputs.push_back(out.tensor);
  result.bytesMoved = fusionBytes(inputs, outputs);
  first.outputs.clear();

  std::optional<L2Flush> flush;
  if (options.flushL2) {
    flush.emplace(executor.deviceSpec(), device);
    result.flushBytes = flush->bytes();
  }
  auto flushL2 = [&] {
    if (flush) flush->enqueue();
  };

  for (int i = 0; i < options.warmup; ++i) {
    flushL2();
    executor.run(inputs);
  }

  // The whole fusion: events before the first launch and after the last.
  // Created once: creating an event inside the timed launches would add
  // host time between them.
  const auto launches = static_cast<size_t>(result.kernelLaunches);
  RunEvents whole;
  whole.afterLaunch.push_back(std::make_unique<CudaEvent>("benchmark end event"));
  whole.names.emplace_back();
  const GpuRunOptions recordWhole = recordingOptions(whole, flushL2, false, launches);
  for (int i = 0; i < options.samples; ++i) {
    executor.run(inputs, recordWhole);
    // run() synchronized: every event has completed.
    result.samplesMicroseconds.push_back(
        launches == 0
            ? 0.0
            : whole.afterLaunch[0]->millisecondsSince(whole.start, "timing a sample") * 1000.0);
  }
  result.gpuMicroseconds = summarizeSamples(result.samplesMicroseconds);

  // Per launch: more samples, with an event after each launch. One launch
  // is the whole fusion.
  if (launches == 1) result.launches.push_back({whole.names[0], result.gpuMicroseconds});
  if (launches > 1) {
    RunEvents events;
    for (size_t k = 0; k < launches; ++k) {
      events.afterLaunch.push_back(std::make_unique<CudaEvent>("benchmark launch event"));
      events.names.emplace_back();
    }
    const GpuRunOptions recordEach = recordingOptions(events, flushL2, true, launches);
    std::vector<std::vector<double>> perLaunch(launches);
    for (int i = 0; i < options.samples; ++i) {
      executor.run(inputs, recordEach);
      double previous = 0;
      for (size_t k = 0; k < launches; ++k) {
        const double ms = events.afterLaunch[k]->millisecondsSince(events.start, "timing a launch");
        perLaunch[k].push_back((ms - previous) * 1000.0);
        previous = ms;
      }
    }
    for (size_t k = 0; k < launches; ++k) {
      result.launches.push_back({events.names[k], summarizeSamples(perLaunch[k])});
    }
  }
  if (result.gpuMicroseconds.median > 0) {
    result.effectiveBytesPerSecond =
        double(result.bytesMoved) / (result.gpuMicroseconds.median * 1e-6);
  }

  // Host path of a cached run: no flush, no events, back to back, in
  // kHostRounds rounds of `samples` runs with a pause between them. One
  // round lasts well under a millisecond, so a burst of work elsewhere on
  // the host (another process's compile threads) could take a whole round:
  // spread over rounds, it takes a fifth of the pooled samples, and the
  // median stands (a compare_torch.py run once put seed 000 at 6.3 us per
  // launch where four later processes measured 2.7 to 2.9).
  std::vector<double> host, wall, prepare;
  std::vector<double> referenceLoop;
  const int64_t preemptionsBefore = threadPreemptions();
  for (int i = 0; i < kHostRounds * options.samples; ++i) {
    if (i > 0 && i % options.samples == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (i % options.samples == 0) {
      result.hostRoundCpus.push_back(currentCpu());
      for (int k = 0; k < 5; ++k) referenceLoop.push_back(referenceLoopMicroseconds());
    }
    Clock::time_point start;
    Clock::time_point bound;
    Clock::time_point queued;
    GpuRunOptions timing;
    timing.beforeLaunches = [&bound] { bound = Clock::now(); };
    timing.afterLaunch = [&queued](size_t, const std::string&) { queued = Clock::now(); };
    start = Clock::now();
    queued = start;
    bound = start;
    result.cachedRun = executor.run(inputs, timing).stats;
    wall.push_back(microsecondsSince(start));
    host.push_back(std::chrono::duration<double, std::micro>(queued - start).count());
    prepare.push_back(std::chrono::duration<double, std::micro>(bound - start).count());
  }
  const int64_t preemptionsAfter = threadPreemptions();
  if (preemptionsBefore >= 0 && preemptionsAfter >= 0) {
    result.hostPreemptions = preemptionsAfter - preemptionsBefore;
  }
  result.hostReferenceLoopMicroseconds = summarizeSamples(referenceLoop);
  for (int round = 0; round < kHostRounds; ++round) {
    const auto roundStart = host.begin() + round * options.samples;
    result.hostRoundMedians.push_back(
        summarizeSamples(std::vector<double>(roundStart, roundStart + options.samples)).median);
  }
  result.hostMicroseconds = summarizeSamples(host);
  result.hostPrepareMicroseconds = summarizeSamples(prepare);
  result.runWallMicroseconds = summarizeSamples(wall);
  if (result.kernelLaunches > 0) {
    result.hostMicrosecondsPerLaunch = result.hostMicroseconds.median / result.kernelLaunches;
  }
  return result;
}

CopyBandwidth measureCopyBandwidth(int device, int64_t maxBytes, int samples) {
  FL_CHECK(samples >= 1, "the copy bandwidth needs at least one sample");
  setCudaDevice(device, "measuring the copy bandwidth");
  size_t freeBytes = 0, totalBytes = 0;
  checkCuda(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo",
            "measuring the copy bandwidth");
  int64_t bytes = std::min<int64_t>(maxBytes, static_cast<int64_t>(freeBytes / 4));
  bytes = bytes / (int64_t{1} << 20) * (int64_t{1} << 20);  // whole MiB
  FL_CHECK(bytes > 0, "cuda:", device, " has too little free memory (", freeBytes,
           " bytes) to measure the copy bandwidth");
  DeviceBuffer from(bytes, device, "copy bandwidth source");
  DeviceBuffer to(bytes, device, "copy bandwidth destination");
  from.fill(1, "copy bandwidth source");
  auto copy = [&] {
    checkCuda(cudaMemcpyAsync(to.data(), from.data(), static_cast<size_t>(bytes),
                              cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync", "measuring the copy bandwidth");
  };
  copy();
  synchronizeCuda("measuring the copy bandwidth");
  std::vector<double> times;
  CudaEvent start("copy bandwidth start"), stop("copy bandwidth stop");
  for (int i = 0; i < samples; ++i) {
    start.record("copy bandwidth start");
    copy();
    stop.record("copy bandwidth stop");
    synchronizeCuda("measuring the copy bandwidth");
    times.push_back(stop.millisecondsSince(start, "measuring the copy bandwidth") * 1000.0);
  }
  CopyBandwidth result;
  result.bytes = bytes;
  result.microseconds = summarizeSamples(times);
  result.bytesPerSecond = 2.0 * double(bytes) / (result.microseconds.median * 1e-6);
  return result;
}

}  // namespace fuserlab::runtime
