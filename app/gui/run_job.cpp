#include "app/gui/run_job.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/gui/script_loader.h"
#include "core/cuda/cuda_device.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/result_check.h"
#include "measure/benchmark.h"
#include "measure/kernel_timing.h"

namespace fuserlab::gui {
namespace {

std::string shape(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

// dtype, shape and min/max/mean: enough to see whether a result is plausible.
std::string summarize(const std::string& name, const runtime::Tensor& tensor) {
  std::string line =
      name + ": " + std::string(ir::shortName(tensor.dtype())) + shape(tensor.sizes());
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
  return line;
}

void runInto(const RunRequest& request, RunResult& result) {
  const LoadedFusion loaded = loadFusion(request.compile);
  const ir::Fusion& fusion = *loaded.fusion;
  runtime::Arguments inputs = frontend::makeInputs(loaded.specs, request.seed);
  std::vector<runtime::Tensor> outputs;
  const auto start = std::chrono::steady_clock::now();
  // The run alone: the kernel timing after a GPU run is not counted.
  auto stopClock = [&] {
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  if (request.backend == "cpu") {
    outputs = runtime::runReference(fusion, inputs);
    stopClock();
    result.lines.push_back("cpu reference run");
  } else {
    FL_CHECK(request.backend == "cuda", "unknown backend '", request.backend, "'");
    if (auto why = cudaUnavailable()) FL_USER_ERROR("no GPU: ", *why);
    runtime::GpuExecutor executor(fusion, request.cudaIndex, request.compile.settings.options);
    runtime::GpuRunOptions options;
    options.poisonOutputs = request.check;
    options.synchronizeEachKernel = request.check;
    runtime::HostRunResult run = runtime::runOnGpu(executor, inputs, options);
    stopClock();
    result.kernelLaunches = run.stats.kernelLaunches;
    outputs = std::move(run.outputs);
    result.lines.push_back("cuda run on " + executor.deviceSpec().name + ": " +
                           std::to_string(run.stats.kernelLaunches) + " kernel launches, " +
                           std::to_string(run.stats.hostSteps) + " host steps");
    const std::string images = runtime::describeKernelImages(run.stats.images);
    if (!images.empty()) result.lines.push_back("kernel images: " + images);
    if (request.timeKernels) {
      // Fresh inputs of the same values (an aliased output may have written
      // the first ones), resident on the GPU for every timed run.
      // A failure here loses no result of the run: it becomes the line.
      try {
        const runtime::DeviceArguments onDevice = runtime::toDeviceArguments(
            frontend::makeInputs(loaded.specs, request.seed), request.cudaIndex);
        const tuner::KernelTimes times =
            tuner::measureKernelTimes(executor, onDevice.arguments, kTimedRuns);
        for (std::string& line : tuner::describeKernelTimes(times)) {
          result.lines.push_back(std::move(line));
        }
        if (times.unavailable.empty()) {
          // The graph's overlay: each kernel's time, and its bandwidth
          // against the copy bandwidth measured now, as bench does.
          KernelFigures figures;
          figures.origin = "GPU run";
          for (const tuner::KernelTimes::Kernel& kernel : times.kernels) {
            figures.kernels.push_back({kernel.name, kernel.microseconds.median});
          }
          figures.copyBytesPerSecond =
              runtime::measureCopyBandwidth(request.cudaIndex).bytesPerSecond;
          result.kernelFigures = std::move(figures);
        }
      } catch (const std::exception& error) {
        result.lines.push_back(std::string("GPU time not measured: ") + error.what());
      }
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.lines.push_back(summarize(fusion.outputs()[i].val->name(), outputs[i]));
  }
  if (request.backend == "cuda" && request.check) {
    // Same seed, same values: fresh inputs for the reference (aliased
    // outputs may have updated the first ones in place).
    const runtime::Arguments again = frontend::makeInputs(loaded.specs, request.seed);
    const std::vector<runtime::Tensor> reference = runtime::runReference(fusion, again);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const runtime::TensorCheck c =
          runtime::checkTensor(outputs[i], reference[i], fusion.outputs()[i].val->name(),
                               runtime::toleranceForOutput(fusion, i));
      result.lines.push_back(std::string("check ") + (c.passed ? "ok: " : "FAILED: ") + c.message);
      result.checkFailed = result.checkFailed || !c.passed;
    }
  }
}

}  // namespace

RunResult runFusionJob(const RunRequest& request) {
  RunResult result;
  try {
    runInto(request, result);
  } catch (const UserError& error) {
    result.error = error.what();
  } catch (const std::exception& error) {
    result.error = std::string("internal error: ") + error.what();
  }
  return result;
}

std::optional<std::string> cudaUnavailable() {
  if (runtime::cudaDeviceCount() > 0) return std::nullopt;
  const std::string why = runtime::cudaUnavailableReason();
  return why.empty() ? std::string("no CUDA device on this machine") : why;
}

}  // namespace fuserlab::gui
