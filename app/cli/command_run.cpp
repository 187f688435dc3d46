// fuserlab-cli run FILE [--backend cpu|cuda] [--inputs SPEC] [--seed N]
//                       [--save-inputs DIR] [--save-outputs DIR] [--fusion NAME]
//                       [--device cuda:N] [--check] [--set NAME=VALUE]
//                       [--disable-pass NAME] [--db FILE] [--ranks N]
// --backend cuda compiles and runs the fusion on a GPU of this machine;
// --check poisons the outputs first, runs the CPU reference on the same
// inputs and compares every output (exit 1 on a mismatch). --db FILE (or
// FUSERLAB_HEURISTICS_DB) takes each segment's params from the heuristics
// database where it has them, and says where each segment's came from.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/command_run_ranks.h"
#include "app/cli/commands.h"
#include "app/cli/tensor_files.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/result_check.h"
#include "db/database_search_path.h"
#include "db/segment_recorder.h"

namespace fuserlab::cli {
namespace {

std::string shapeString(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

// One line per tensor: dtype, shape, strides and a few statistics, so a user
// sees at a glance whether a result is plausible (NaNs, all zeros, range).
std::string summarize(const runtime::Tensor& tensor) {
  std::string line = std::string(ir::shortName(tensor.dtype())) + shapeString(tensor.sizes());
  if (!tensor.isContiguous()) line += " strides " + shapeString(tensor.strides());
  const runtime::Tensor values = tensor.to(ir::DataType::Double).contiguous();
  const double* data = values.dataAs<double>();
  const int64_t n = values.numel();
  if (n == 0) return line + " (empty)";
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(data[i])) {
      ++nans;
      continue;
    }
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
    sum += data[i];
  }
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), "  min %.6g  max %.6g  mean %.6g", lo, hi,
                n > nans ? sum / double(n - nans) : NAN);
  line += buffer;
  if (nans) line += "  NaN: " + std::to_string(nans);
  line += "  first:";
  for (int64_t i = 0; i < std::min<int64_t>(n, 4); ++i) {
    std::snprintf(buffer, sizeof(buffer), " %.6g", data[i]);
    line += buffer;
  }
  return line;
}

std::string describeArgument(const runtime::Argument& arg) {
  if (const auto* t = std::get_if<runtime::Tensor>(&arg)) return summarize(*t);
  const auto& v = std::get<ir::ScalarValue>(arg);
  if (const auto* d = std::get_if<double>(&v)) return "scalar " + ir::formatDouble(*d);
  if (const auto* i = std::get_if<int64_t>(&v)) return "scalar " + std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&v))
    return std::string("scalar ") + (*b ? "true" : "false");
  return "scalar";
}

uint64_t parseSeed(const std::optional<std::string>& text) {
  if (!text) return 0;
  return ir::parseUnsigned(*text, "--seed");
}

// A copy of the inputs with the same sizes and strides, for the reference:
// the GPU run writes aliased inputs in place.
runtime::Arguments copyInputs(const runtime::Arguments& inputs) {
  runtime::Arguments copies;
  for (const runtime::Argument& arg : inputs) {
    const auto* t = std::get_if<runtime::Tensor>(&arg);
    if (t == nullptr) {
      copies.push_back(arg);
      continue;
    }
    runtime::Tensor copy = runtime::Tensor::emptyStrided(t->dtype(), t->sizes(), t->strides());
    runtime::copyInto(*t, copy);
    copies.emplace_back(copy);
  }
  return copies;
}

struct CudaRun {
  std::vector<runtime::Tensor> outputs;
  int exitCode = 0;
};

CudaRun runOnCuda(const CommandLine& cl, const LoadedScript& loaded, runtime::Arguments& inputs) {
  const ir::Fusion& fusion = *loaded.fusion;
  const int index = cudaIndexFrom(cl.value("device"), "--backend cuda");
  FL_CHECK(runtime::cudaDeviceCount() > 0, "no CUDA device: ", runtime::cudaUnavailableReason(),
           "; use --backend cpu (the reference executor) on this machine");
  const bool check = cl.flag("check");
  const runtime::Arguments referenceInputs = check ? copyInputs(inputs) : runtime::Arguments{};

  runtime::GpuExecutor executor(fusion, index, compileOptionsFrom(cl));
  const auto database = heuristicsDatabaseFrom(cl);
  const auto recorder =
      segmentRecorderFrom(cl, loaded, database.get(), "cuda:" + std::to_string(index));
  if (recorder) {
    executor.setHeuristicProvider(recorder.get());
  } else if (database) {
    executor.setHeuristicProvider(database.get());
  }
  runtime::GpuRunOptions options;
  options.poisonOutputs = check;
  options.synchronizeEachKernel = check;

  auto start = std::chrono::steady_clock::now();
  runtime::HostRunResult first = runtime::runOnGpu(executor, inputs, options);
  const double firstMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  bool aliases = false;
  for (const auto& out : fusion.outputs()) aliases = aliases || out.aliasOf;

  // A second, cached run on the same inputs times the host path and the
  // kernels without compiling (not with aliases: it would update them twice).
  double cachedMs = -1;
  if (!aliases) {
    runtime::Arguments deviceInputs;
    std::vector<runtime::DeviceTensor> keep;
    for (const runtime::Argument& arg : inputs) {
      const auto* t = std::get_if<runtime::Tensor>(&arg);
      if (t == nullptr || t->dim() == 0) {
        deviceInputs.push_back(arg);
        continue;
      }
      keep.push_back(runtime::toDevice(*t, index, "input"));
      deviceInputs.emplace_back(keep.back().tensor);
    }
    start = std::chrono::steady_clock::now();
    executor.run(deviceInputs);
    cachedMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  const runtime::GpuRunStats& stats = first.stats;
  std::printf(
      "cuda run on %s (cuda:%d): %d kernel launch%s (%d cuBLASLt call%s), "
      "%d host step%s; first run %.3f ms (compile %.3f ms)",
      executor.deviceSpec().name.c_str(), index, stats.kernelLaunches,
      stats.kernelLaunches == 1 ? "" : "es", stats.libraryCalls, stats.libraryCalls == 1 ? "" : "s",
      stats.hostSteps, stats.hostSteps == 1 ? "" : "s", firstMs, stats.compileMilliseconds);
  if (cachedMs >= 0) std::printf(", cached run %.3f ms", cachedMs);
  std::printf("\n");
  const std::string images = runtime::describeKernelImages(stats.images);
  if (!images.empty()) std::printf("  kernel images: %s\n", images.c_str());
  if (stats.dependentLaunches > 0) {
    std::printf(
        "  %d launch%s as programmatic dependents of the launch before "
        "(--set dependent_launch=off launches plainly)\n",
        stats.dependentLaunches, stats.dependentLaunches == 1 ? "" : "es");
  }
  for (const std::string& copy : stats.copies) std::printf("  copy kernel: %s\n", copy.c_str());
  if (const report::CompileReport* report = executor.lastReport()) {
    for (const report::SegmentReport& segment : report->segments) {
      if (const report::Json* algo = segment.properties.get("algo")) {
        std::printf(
            "  segment %d (%s): cuBLASLt epilogue %s, %s\n", segment.id, segment.scheduler.c_str(),
            segment.params.get("epilogue") ? segment.params.get("epilogue")->asString().c_str()
                                           : "?",
            algo->asString().c_str());
      }
    }
  }
  if (database && executor.lastReport() != nullptr) {
    std::printf("heuristics database %s (%zu entries): params of segments",
                database->path().c_str(), database->size());
    const std::vector<std::string> sources = executor.lastReport()->paramsSources();
    for (size_t i = 0; i < sources.size(); ++i) {
      std::printf("%s %zu %s", i == 0 ? "" : ",", i, sources[i].c_str());
    }
    std::printf("\n");
  }

  if (recorder) {
    std::printf("recorded %zu segment(s) that ran on the built-in heuristic to %s\n",
                recorder->recorded(), recorder->path().c_str());
  }

  CudaRun result;
  result.outputs = std::move(first.outputs);
  if (!check) return result;
  const std::vector<runtime::Tensor> reference = runtime::runReference(fusion, referenceInputs);
  const int failed = printOutputChecks(result.outputs, reference, fusion);
  if (failed == 0) {
    std::cout << "check passed: " << result.outputs.size() << " outputs match the cpu reference\n";
  } else {
    std::cout << "check FAILED: " << failed << " of " << result.outputs.size()
              << " outputs differ from the cpu reference\n";
    result.exitCode = 1;
  }
  return result;
}

}  // namespace

int printOutputChecks(const std::vector<runtime::Tensor>& outputs,
                      const std::vector<runtime::Tensor>& reference, const ir::Fusion& fusion) {
  int failed = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const runtime::TensorCheck c =
        runtime::checkTensor(outputs[i], reference[i], fusion.outputs()[i].val->name(),
                             runtime::toleranceForOutput(fusion, i));
    std::cout << "  check " << (c.passed ? "ok    " : "FAILED") << " " << c.message << "\n";
    failed += c.passed ? 0 : 1;
  }
  return failed;
}

int runCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert({"backend", "seed", "save-inputs", "save-outputs", "ranks"});
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  options.insert(kDatabaseOptions.begin(), kDatabaseOptions.end());
  options.insert(kRecordOptions.begin(), kRecordOptions.end());
  CommandLine cl(args, options, {"check", "allow-same-arch"});
  const std::string backend = cl.value("backend").value_or("cpu");
  FL_CHECK(backend == "cpu" || backend == "cuda", "--backend must be cpu or cuda, found '", backend,
           "'");
  // --ranks N: a multi-device fusion on N ranks (threads on the cpu
  // backend, one process per GPU on cuda); --check then compares with the
  // unsharded reference, and --device/--set choose how it compiles.
  const bool ranks = cl.value("ranks").has_value();
  FL_CHECK(backend == "cuda" || ranks || !cl.flag("check"),
           "--check compares a cuda run (or a --ranks run) with the cpu "
           "reference; it needs --backend cuda or --ranks N");
  FL_CHECK(backend == "cuda" || ranks ||
               (!cl.value("device") && cl.values("set").empty() &&
                cl.values("disable-pass").empty() && !cl.value("db") && !cl.value("record")),
           "--device, --set, --disable-pass, --db and --record choose how --backend cuda "
           "compiles; the cpu reference backend takes none of them");
  const uint64_t seed = parseSeed(cl.value("seed"));
  LoadedScript loaded = loadScript(cl);
  const ir::Fusion& fusion = *loaded.fusion;
  FL_CHECK(loaded.inputs.has_value() || fusion.inputs().empty(), loaded.script.fileName,
           " has no `inputs = [...]` block; pass the inputs with --inputs, "
           "e.g. --inputs 128x1024:bf16,1024:bf16");
  const std::vector<frontend::InputSpec> specs =
      loaded.inputs.value_or(std::vector<frontend::InputSpec>{});

  runtime::Arguments inputs = frontend::makeInputs(specs, seed);
  std::vector<NamedValue> namedInputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    namedInputs.push_back({fusion.inputs()[i]->name(), "input_" + std::to_string(i), inputs[i]});
  }
  // Saved before the run: an output aliasing an input updates it in place.
  if (auto dir = cl.value("save-inputs")) saveTensors(*dir, namedInputs);

  std::cout << "fusion " << loaded.fusionName << " from " << loaded.script.fileName << " on the "
            << (backend == "cuda" ? "cuda" : "cpu reference") << " backend\n";
  std::cout << "inputs (from " << (specs.empty() ? "none" : loaded.inputsOrigin) << ", seed "
            << seed << "):\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::cout << "  " << namedInputs[i].name << "  " << describeArgument(inputs[i]) << "\n";
  }

  std::vector<runtime::Tensor> outputs;
  int exitCode = 0;
  double seconds = 0;
  if (ranks) {
    RanksRun run = runRanks(cl, loaded, inputs, backend, seed);
    outputs = std::move(run.outputs);
    exitCode = run.exitCode;
  } else if (backend == "cuda") {
    CudaRun run = runOnCuda(cl, loaded, inputs);
    outputs = std::move(run.outputs);
    exitCode = run.exitCode;
  } else {
    const auto start = std::chrono::steady_clock::now();
    outputs = runtime::runReference(fusion, inputs);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::vector<NamedValue> namedOutputs;
  std::cout << "outputs:\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = fusion.outputs()[i];
    std::cout << "  " << out.val->name();
    if (out.aliasOf) std::cout << " (written into " << out.aliasOf->name() << ")";
    std::cout << "  " << summarize(outputs[i]) << "\n";
    namedOutputs.push_back({out.val->name(), "output_" + std::to_string(i), outputs[i]});
  }
  if (backend == "cpu" && !ranks) {
    std::printf("reference run: %.3f s, 0 kernel launches (cpu backend)\n", seconds);
  }
  if (auto dir = cl.value("save-outputs")) {
    saveTensors(*dir, namedOutputs);
    std::cout << "saved " << namedOutputs.size() << " outputs to " << *dir << "\n";
  }
  if (auto dir = cl.value("save-inputs")) {
    std::cout << "saved " << namedInputs.size() << " inputs to " << *dir << "\n";
  }
  return exitCode;
}

}  // namespace fuserlab::cli
