#include "core/runtime/gpu_executor.h"

#include "core/compiler/segment_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unordered_map>

#include "core/codegen/codegen.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/input_description.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_error.h"
#include "core/cuda/cuda_module.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "core/runtime/copy_kernel.h"
#include "core/runtime/cublaslt_matmul.h"
#include "core/runtime/device_views.h"
#include "core/runtime/executor_planner.h"
#include "core/runtime/in_place_writes.h"
#include "core/runtime/matmul_call.h"
#include "core/runtime/plan_graph.h"
#include "core/runtime/run_keys.h"
#include "core/runtime/run_plan.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/registry.h"
#include "core/tensor/binding.h"

namespace fuserlab::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

KernelUnavailable::KernelUnavailable(const std::string& message)
    : UserError("unavailable on the cuda backend: " + message) {}

KernelCompiler nvrtcKernelCompiler() {
  KernelCompiler compiler;
  compiler.version = "nvrtc " + nvrtcVersionString();
  compiler.compile = [](const codegen::GeneratedKernel& kernel,
                        const scheduler::DeviceSpec& device) {
    const NvrtcOutput out = compileWithNvrtc(kernel, device.computeCapability());
    return std::string(out.cubin.begin(), out.cubin.end());
  };
  return compiler;
}

std::string describeKernelImages(const KernelImageLoads& images) {
  char buffer[160];
  std::string text;
  if (images.compiled > 0) {
    std::snprintf(buffer, sizeof(buffer), "%d compiled by NVRTC in %.1f ms", images.compiled,
                  images.compilerMilliseconds);
    text += buffer;
  }
  if (images.fromCache > 0) {
    std::snprintf(buffer, sizeof(buffer), "%s%d from the kernel cache in %.2f ms",
                  text.empty() ? "" : ", ", images.fromCache, images.cacheMilliseconds);
    text += buffer;
  }
  return text;
}

std::string kernelImageKey(const codegen::GeneratedKernel& kernel,
                           const scheduler::DeviceSpec& device, const KernelCompiler& compiler) {
  // The helper header is compiled with every kernel: part of the key.
  return kernelCacheKey(
      kernel.source + "\n//--- fuserlab_device.cuh\n" + std::string(codegen::deviceHelperSource()),
      kernel.options, device.arch(), compiler.version);
}

GpuExecutor::GpuExecutor(const ir::Fusion& fusion, int device, compiler::CompileOptions options,
                         KernelCache* cache, KernelCompiler compiler)
    : fusion_(fusion),
      device_(device),
      options_(std::move(options)),
      cache_(cache != nullptr ? cache : &KernelCache::global()),
      compiler_(compiler.compile ? std::move(compiler) : nvrtcKernelCompiler()) {
  const int count = cudaDeviceCount();
  FL_CHECK(count > 0, "no CUDA device: ", cudaUnavailableReason());
  auto spec = queryCudaDevice(device);
  FL_CHECK(spec.has_value(), "no CUDA device cuda:", device, ": this machine has ", count, " GPU",
           count == 1 ? "" : "s", " (cuda:0 to cuda:", count - 1, ")");
  spec_ = *spec;
}

GpuExecutor::~GpuExecutor() = default;

GpuExecutor::Signature& GpuExecutor::signatureFor(const Arguments& inputs, const std::string& key,
                                                  bool recompile, GpuRunStats& stats) {
  auto it = signatures_.find(key);
  if (it != signatures_.end() && !recompile) return *it->second;
  const auto start = Clock::now();
  auto signature = std::make_unique<Signature>();
  signature->compiled = compileFusion(fusion_, options_, spec_, inputs, provider_,
                                      /*withTextDumps=*/false);
  signature->checkedSizes.insert(layoutKey(inputs));
  stats.compiledFusion = true;
  stats.compileMilliseconds += millisecondsSince(start);
  Signature& result = *signature;
  signatures_[key] = std::move(signature);
  return result;
}

struct GpuExecutor::Replay {
  Signature* signature = nullptr;
  //! Null when the plan could not be traced (see ReplayPlan::capture).
  std::unique_ptr<ReplayPlan> plan;
  //! Its launches as one CUDA graph, built at the first replay that may
  //! use one; null when none was built (the run launches one by one).
  std::unique_ptr<PlanGraph> graph;
  bool graphTried = false;
};

GpuRunResult GpuExecutor::run(const Arguments& inputs, const GpuRunOptions& options) {
  setCudaDevice(device_, "running the fusion");
  GpuRunResult result;
  GpuRunStats& stats = result.stats;

  // A cached run at known sizes: the traced plan, rebound.
  std::vector<int64_t> replayKeyOfInputs = replayKey(inputs);
  if (!replayKeyOfInputs.empty()) {
    auto found = replays_.find(replayKeyOfInputs);
    if (found != replays_.end() && found->second->plan) {
      Replay& replay = *found->second;
      Plan& plan = replay.plan->bind(inputs, device_, options.poisonOutputs);
      lastReport_ = &replay.signature->compiled.report;
      try {
        // One launch call for the whole run, unless the caller's hooks or
        // checks need each launch queued on its own.
        const bool graphAllowed =
            options_.graphLaunch && !options.launchEachApart && !options.synchronizeEachKernel;
        if (graphAllowed && !replay.graphTried) {
          replay.graphTried = true;
          try {
            replay.graph = PlanGraph::build(plan);
          } catch (const CudaError&) {
            // A driver that will not build the graph: launch one by one.
          }
        }
        executePlan(plan, options, stats, graphAllowed ? replay.graph.get() : nullptr);
        replay.plan->bindOutputs(inputs, device_);
      } catch (...) {
        replay.plan->release();
        throw;
      }
      stats.replayed = true;
      totalLaunches_ += stats.kernelLaunches;
      result.outputs = plan.outputs;
      replay.plan->release();
      return result;
    }
  }

  const std::string key = inputSignature(inputs);
  const std::string sizes = layoutKey(inputs);
  Plan plan;
  std::vector<std::shared_ptr<DeviceBuffer>> keepAlive;
  Signature* used = nullptr;
  for (int attempt = 0;; ++attempt) {
    const size_t before = signatures_.size();
    Signature& signature = signatureFor(inputs, key, attempt > 0, stats);
    // A signature compiled (again) may replace one that replays point to.
    if (stats.compiledFusion || signatures_.size() != before) replays_.clear();
    const bool checkParams = signature.checkedSizes.count(sizes) == 0;
    const auto start = Clock::now();
    try {
      PlannedRun planned =
          planRun(signature, spec_, device_, checkParams, *cache_, compiler_, modules_, inputs);
      plan = std::move(planned.plan);
      keepAlive = std::move(planned.keepAlive);
      plan.programmaticLaunches = options_.dependentLaunch && spec_.computeCapabilityMajor >= 9;
    } catch (const ParamsRefused& refused) {
      FL_ASSERT(attempt == 0,
                "params refused right after compiling at these sizes: ", refused.reason);
      continue;
    } catch (const KernelUnavailable&) {
      throw;  // the same at any sizes' compile
    } catch (const UserError&) {
      // A signature compiled at other sizes may rest on them beyond its
      // params (refine_reshaped_reductions' refinement of a reshape): compile
      // again at these; a fusion that is wrong at these sizes fails there
      // with its own message.
      if (attempt == 0 && checkParams && !stats.compiledFusion) continue;
      throw;
    }
    signature.checkedSizes.insert(sizes);
    lastReport_ = &signature.compiled.report;
    used = &signature;
    if (plan.kernelsBuilt > 0) stats.compileMilliseconds += millisecondsSince(start);
    break;
  }
  if (!replayKeyOfInputs.empty() && !plan.copiedFromHost &&
      replays_.count(replayKeyOfInputs) == 0) {
    auto replay = std::make_unique<Replay>();
    replay->signature = used;
    replay->plan = ReplayPlan::capture(plan, inputs, keepAlive, nullptr);
    replays_[std::move(replayKeyOfInputs)] = std::move(replay);
  }

  executePlan(plan, options, stats);
  totalLaunches_ += stats.kernelLaunches;
  if (lastReport_ != nullptr) {
    // The report of this signature says what its last run launched.
    report::Json run = report::Json::object();
    run.set("kernel_launches", stats.kernelLaunches);
    run.set("library_calls", stats.libraryCalls);
    run.set("dependent_launches", stats.dependentLaunches);
    run.set("host_steps", stats.hostSteps);
    run.set("copy_kernels", report::Json::arrayOf(stats.copies));
    lastReport_->run = std::move(run);
  }
  result.outputs = std::move(plan.outputs);
  return result;
}

}  // namespace fuserlab::runtime
