// fuserlab-cli bench FILE [--inputs SPEC] [--fusion NAME] [--device cuda:N]
//                         [--db FILE] [--samples N] [--warmup N] [--json PATH|-]
//                         [--set NAME=VALUE] [--disable-pass NAME]
// Times the whole fusion on a GPU of this machine (measure/benchmark.h:
// CUDA events, L2 flushed before each sample, warm-up, median with p20/p80),
// each launch, the effective bandwidth against the copy bandwidth this run
// measures, the host time of a cached run per launch, the first run's
// compile times and each kernel's build time cold (NVRTC) and warm (the disk
// cache; measure/kernel_build_timing.h), and the kernels' own GPU time
// from CUPTI's records (measure/kernel_timing.h); as a table, and with --json
// as a JSON object. The measuring and the JSON are measure/'s
// (fusion_measurement.h); this command parses the options and prints.
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>

#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/report/json.h"
#include "core/runtime/gpu_executor.h"
#include "db/database_search_path.h"
#include "db/segment_recorder.h"
#include "measure/fusion_measurement.h"

namespace fuserlab::cli {
namespace {

using report::Json;

constexpr int kMinSamples = 20;

constexpr const char* kBenchUsage = R"(usage: fuserlab-cli bench FILE [options]

Times the fusion FILE defines on a GPU of this machine and prints a table:
  - the GPU time of the whole fusion (CUDA events around its launches; the L2
    cache flushed before each sample by writing twice its size and reading it
    back, so each sample starts from a cold, clean L2; warm-up runs first):
    median, p20 and p80 in microseconds, and each launch's when the fusion
    launches more than one kernel;
  - the effective bandwidth (each input read once, each output written once,
    over the median) and its ratio to the copy bandwidth, which bench
    measures in the same run (cudaMemcpy device-to-device, 2 x bytes / time);
  - the kernels' own GPU time from CUPTI's kernel records (as nsys and ncu
    report it; the events' window also holds the GPU's start of the first
    kernel and its record of the end event) and the bandwidth over it;
  - the host time of a cached run per kernel launch;
  - the first run's compile time and passes + segmentation + heuristics
    (compile_us), and where each segment's params came from;
  - each kernel's build time both ways a process's first run can go: cold
    (NVRTC compile, cache write and module load, into an empty temporary
    kernel cache) and warm (read back from that cache's disk and loaded).

options:
  --inputs SPEC       the inputs (default: the script's inputs block)
  --fusion NAME       the definition to time (default: the one the script runs)
  --device cuda:N     the GPU (default cuda:0)
  --db FILE           params from this heuristics database; repeated: a search
                      path, first file first (else $FUSERLAB_DB=a.db:b.db)
  --allow-same-arch   entries of another GPU of this architecture answer last
  --record FILE       append the segments that ran on the built-in heuristic
                      to FILE (else $FUSERLAB_DB_RECORD); tune --from-record
  --samples N         timed samples, at least 20 (default 50)
  --warmup N          untimed runs before the samples (default 5)
  --json PATH|-       also write the figures as JSON (- : stdout, table on stderr)
  --set NAME=VALUE, --disable-pass NAME   compile options, as for compile
)";

int parseCount(const std::optional<std::string>& text, const char* option, int fallback,
               int minimum, const char* why) {
  if (!text) return fallback;
  const std::optional<int64_t> value = ir::tryParseInteger(*text, minimum, 100000);
  if (value) return static_cast<int>(*value);
  // Digits out of range (or past 64 bits) get the range; other text the form.
  const bool digits = !text->empty() && text->find_first_not_of("-0123456789") == std::string::npos;
  FL_CHECK(!digits, "--", option, " must be between ", minimum, " and 100000", why, ", found ",
           *text);
  FL_USER_ERROR("--", option, " expects an integer, found '", *text, "'");
}

std::string shapeText(const runtime::Tensor& t) {
  std::string out = std::string(ir::shortName(t.dtype())) + "[";
  for (int64_t d = 0; d < t.dim(); ++d) {
    out += (d ? ", " : "") + std::to_string(t.sizes()[d]);
  }
  return out + "]";
}

}  // namespace

int benchCommand(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kBenchUsage;
      return 0;
    }
  }
  std::set<std::string> options = kScriptOptions;
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  options.insert(kDatabaseOptions.begin(), kDatabaseOptions.end());
  options.insert(kRecordOptions.begin(), kRecordOptions.end());
  options.insert({"samples", "warmup", "json"});
  CommandLine cl(args, options, kDatabaseFlags);
  runtime::BenchmarkOptions bench;
  bench.samples = parseCount(cl.value("samples"), "samples", 50, kMinSamples,
                             " (the median and p20/p80 need at least 20)");
  bench.warmup = parseCount(cl.value("warmup"), "warmup", 5, 0, "");
  const int index = cudaIndexFrom(cl.value("device"), "bench");
  if (auto path = cl.value("json")) {
    FL_CHECK(!path->empty(), "--json needs a file name, or - for stdout");
  }
  LoadedScript loaded = loadScript(cl);
  const ir::Fusion& fusion = *loaded.fusion;
  FL_CHECK(loaded.inputs.has_value() || fusion.inputs().empty(), loaded.script.fileName,
           " has no `inputs = [...]` block; pass the inputs with --inputs, "
           "e.g. --inputs 128x1024:bf16,1024:bf16");
  FL_CHECK(runtime::cudaDeviceCount() > 0, "no CUDA device: ", runtime::cudaUnavailableReason(),
           "; bench times the fusion on a GPU of this machine (fuserlab-cli "
           "compile generates the kernels without one)");
  FL_CHECK(index < runtime::cudaDeviceCount(), "--device cuda:", index, ": this machine has ",
           runtime::cudaDeviceCount(), " CUDA device(s)");

  const bool jsonToStdout = cl.value("json") == "-";
  // With --json - the table goes to stderr, the JSON alone to stdout.
  FILE* text = jsonToStdout ? stderr : stdout;

  const runtime::Arguments hostInputs =
      frontend::makeInputs(loaded.inputs.value_or(std::vector<frontend::InputSpec>{}), 0);
  Json inputsJson = Json::array();
  for (const runtime::Argument& arg : hostInputs) {
    const auto* t = std::get_if<runtime::Tensor>(&arg);
    inputsJson.push(t == nullptr ? std::string("scalar") : shapeText(*t));
  }
  runtime::DeviceArguments onDevice = runtime::toDeviceArguments(hostInputs, index);

  const compiler::CompileOptions compileOptions = compileOptionsFrom(cl);
  runtime::GpuExecutor executor(fusion, index, compileOptions);
  const auto database = heuristicsDatabaseFrom(cl);
  const auto recorder =
      segmentRecorderFrom(cl, loaded, database.get(), "cuda:" + std::to_string(index));
  const scheduler::HeuristicProvider* provider =
      recorder ? static_cast<const scheduler::HeuristicProvider*>(recorder.get()) : database.get();
  if (provider) executor.setHeuristicProvider(provider);
  const runtime::FusionMeasurement m = runtime::measureFusion(
      fusion, executor, index, compileOptions, provider, std::move(onDevice), bench);
  const runtime::FusionBenchmark& result = m.run;
  const runtime::KernelBuildTimes& builds = m.builds;
  const tuner::KernelTimes& kernelTimes = m.kernels;
  const runtime::CopyBandwidth& copy = m.copy;
  const bool kernelsTimed = m.kernelsTimed();

  const std::vector<std::string> paramsSources =
      executor.lastReport() ? executor.lastReport()->paramsSources() : std::vector<std::string>{};
  const scheduler::DeviceSpec& spec = executor.deviceSpec();
  std::fprintf(text, "bench %s from %s on %s (cuda:%d)\n", loaded.fusionName.c_str(),
               loaded.script.fileName.c_str(), spec.name.c_str(), index);
  std::fprintf(text, "inputs (from %s):", loaded.inputs ? loaded.inputsOrigin.c_str() : "none");
  for (const Json& input : inputsJson.items()) {
    std::fprintf(text, " %s", input.asString().c_str());
  }
  std::fprintf(text,
               "\n%d samples after %d warm-up runs, L2 flushed before each "
               "(%.0f MiB written)\n\n",
               bench.samples, bench.warmup, double(result.flushBytes) / (1 << 20));
  auto row = [&](const std::string& what, const runtime::SampleSummary& s) {
    std::fprintf(text, "  %-44s %10.2f %10.2f %10.2f\n", what.c_str(), s.median, s.p20, s.p80);
  };
  std::fprintf(text, "  %-44s %10s %10s %10s\n", "microseconds", "median", "p20", "p80");
  row("fusion on the GPU (events)", result.gpuMicroseconds);
  if (result.launches.size() > 1) {
    std::fprintf(text, "  per launch (other samples, an event after each launch):\n");
    for (const runtime::LaunchTiming& launch : result.launches) {
      row("  " + launch.what.substr(0, 42), launch.microseconds);
    }
  }
  if (kernelsTimed) {
    row("kernels on the GPU (CUPTI records)", kernelTimes.spanMicroseconds);
    if (kernelTimes.kernels.size() > 1) {
      row("  the kernels' durations summed", kernelTimes.busyMicroseconds);
      for (const tuner::KernelTimes::Kernel& k : kernelTimes.kernels) {
        row("  " + k.name.substr(0, 42), k.microseconds);
      }
    }
  } else {
    std::fprintf(text, "  kernels on the GPU (CUPTI records): not measured: %s\n",
                 kernelTimes.unavailable.c_str());
  }
  row("host: run() until the last launch is queued", result.hostMicroseconds);
  row("host:   of which before the first launch call", result.hostPrepareMicroseconds);
  row("host: run() wall time (synchronized)", result.runWallMicroseconds);
  row("copy bandwidth: cudaMemcpy device-to-device", copy.microseconds);
  std::fprintf(text, "\n");
  std::fprintf(text,
               "  bytes moved              %.3f MB (each input read once, each "
               "output written once)\n",
               double(result.bytesMoved) / 1e6);
  std::fprintf(text, "  effective bandwidth      %.1f GB/s\n",
               result.effectiveBytesPerSecond / 1e9);
  std::fprintf(text,
               "  copy bandwidth           %.1f GB/s (2 x %.0f MiB over the "
               "median copy time)\n",
               copy.bytesPerSecond / 1e9, double(copy.bytes) / (1 << 20));
  std::fprintf(text, "  bandwidth ratio          %.3f of the copy bandwidth\n", m.bandwidthRatio);
  if (kernelsTimed) {
    std::fprintf(text,
                 "  over the kernels' time   %.1f GB/s, %.3f of the copy bandwidth "
                 "(CUPTI; the events' window %.2f us longer)\n",
                 m.kernelBytesPerSecond / 1e9, m.kernelBandwidthRatio,
                 result.gpuMicroseconds.median - kernelTimes.spanMicroseconds.median);
  }
  std::fprintf(text, "  kernel launches          %d", result.kernelLaunches);
  if (result.firstRun.dependentLaunches > 0) {
    std::fprintf(text, " (%d as programmatic dependents of the launch before)",
                 result.firstRun.dependentLaunches);
  }
  std::fprintf(text, "\n");
  std::fprintf(text, "  host time per launch     %.2f us (cached run%s)\n",
               result.hostMicrosecondsPerLaunch,
               result.cachedRun.graphLaunch ? ", its launches queued as one CUDA graph"
               : result.cachedRun.replayed  ? ", replayed, one launch call per kernel"
                                            : ", planned again");
  if (!result.hostRoundMedians.empty()) {
    std::fprintf(text, "  host rounds' medians     ");
    for (size_t r = 0; r < result.hostRoundMedians.size(); ++r) {
      std::fprintf(text, "%s%.2f", r == 0 ? "" : " / ", result.hostRoundMedians[r]);
    }
    std::fprintf(text, " us");
    if (result.hostPreemptions >= 0) {
      std::fprintf(text, "; the thread preempted %lld time%s",
                   static_cast<long long>(result.hostPreemptions),
                   result.hostPreemptions == 1 ? "" : "s");
    }
    std::fprintf(text, "\n");
    std::fprintf(text,
                 "  host CPU speed           %.2f us for %d dependent multiply-adds "
                 "(median; ~1.2 us on a 3.5 GHz core), on CPU",
                 result.hostReferenceLoopMicroseconds.median, runtime::kReferenceLoopSteps);
    for (size_t r = 0; r < result.hostRoundCpus.size(); ++r) {
      std::fprintf(text, "%s%d", r == 0 ? " " : ", ", result.hostRoundCpus[r]);
    }
    std::fprintf(text, "\n");
  }
  const runtime::KernelImageLoads& images = result.firstRun.images;
  std::fprintf(text,
               "  first run                %.3f ms, of which compiling %.3f ms "
               "(%d kernel%s built: %d compiled in %.3f ms, NVRTC %.3f of it; %d from the "
               "kernel cache in %.3f ms)\n",
               result.firstRunMilliseconds, result.firstRun.compileMilliseconds,
               result.firstRun.kernelsBuilt, result.firstRun.kernelsBuilt == 1 ? "" : "s",
               images.compiled, images.compileMilliseconds, images.compilerMilliseconds,
               images.fromCache, images.cacheMilliseconds);
  if (builds.kernels > 0) {
    std::fprintf(text,
                 "  kernel build, cold       %.3f ms per kernel (NVRTC, cache write, "
                 "module load; %d kernel%s, an empty cache)\n",
                 builds.coldMillisecondsPerKernel, builds.kernels, builds.kernels == 1 ? "" : "s");
    if (builds.warmUnavailable.empty()) {
      std::fprintf(text,
                   "  kernel build, warm       %.3f ms per kernel (read back from the "
                   "cache's disk, module load)\n",
                   builds.warmMillisecondsPerKernel);
    } else {
      std::fprintf(text, "  kernel build, warm       not measured: %s\n",
                   builds.warmUnavailable.c_str());
    }
  }
  std::fprintf(text, "  passes + segmentation + heuristics  %.1f us (compile_us)\n",
               result.compileMicroseconds);
  std::fprintf(text, "  params sources          ");
  for (size_t i = 0; i < paramsSources.size(); ++i) {
    std::fprintf(text, "%s segment %zu %s", i == 0 ? "" : ",", i, paramsSources[i].c_str());
  }
  if (database) {
    std::fprintf(text, " (heuristics database %s, %zu entries)", database->path().c_str(),
                 database->size());
  }
  std::fprintf(text, "\n");
  std::fflush(text);

  if (auto path = cl.value("json")) {
    Json root = Json::object();
    root.set("fusion", loaded.fusionName);
    root.set("file", loaded.script.fileName);
    root.set("device", spec.toJson());
    root.set("inputs", inputsJson);
    runtime::appendMeasurementJson(m, root);
    root.set("params_sources", Json::arrayOf(paramsSources));
    root.set("heuristics_db", database ? Json(database->path()) : Json());
    writeOutput(jsonToStdout ? std::string("-") : *path, root.dump() + "\n");
  }
  return 0;
}

}  // namespace fuserlab::cli
