#include "core/runtime/plan_graph.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "core/cuda/cuda_error.h"
#include "core/runtime/cublaslt_matmul.h"

namespace fuserlab::runtime {
namespace {

void pointersOf(KernelArguments& arguments, std::vector<void*>& out) {
  out.clear();
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments.holdsPointer(i)) out.push_back(arguments.pointerAt(i));
  }
}

// Whether `arguments` still hold `pointers` (pointersOf's order).
bool samePointers(KernelArguments& arguments, const std::vector<void*>& pointers) {
  size_t next = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments.holdsPointer(i)) continue;
    if (arguments.pointerAt(i) != pointers[next++]) return false;
  }
  return true;
}

// Every device pointer a captured graph of `plan` holds: the kernels'
// arguments, their workspaces, the library calls' operands and workspace.
void planPointers(Plan& plan, std::vector<const void*>& out) {
  out.clear();
  for (PlannedLaunch& launch : plan.launches) {
    if (launch.library) {
      for (const void* p : launch.library->pointers()) out.push_back(p);
      out.push_back(launch.library->workspace());
      continue;
    }
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      if (launch.arguments.holdsPointer(i)) out.push_back(launch.arguments.pointerAt(i));
    }
    out.push_back(launch.workspace ? launch.workspace->data() : nullptr);
  }
}

// As executePlan launches one by one: a dependent of the launch before it,
// unless a zero fill stands between them.
bool launchedAfterKernel(const Plan& plan, size_t index, bool zeroFill) {
  const PlannedLaunch& launch = plan.launches[index];
  return plan.programmaticLaunches && index > 0 && !zeroFill && !launch.library &&
         launch.kernel->generated.waitsForPriorGrids;
}

}  // namespace

std::unique_ptr<PlanGraph> PlanGraph::build(Plan& plan) {
  if (plan.launches.empty()) return nullptr;
  std::unique_ptr<PlanGraph> built(new PlanGraph());
  for (const PlannedLaunch& launch : plan.launches) {
    if (launch.library) {
      built->capture(plan);
      return built;
    }
  }
  built->graph_ = std::make_unique<LaunchGraph>("a replayed run's CUDA graph");
  for (size_t index = 0; index < plan.launches.size(); ++index) {
    PlannedLaunch& launch = plan.launches[index];
    const codegen::GeneratedKernel& generated = launch.kernel->generated;
    Step step;
    step.launch = index;
    step.zeroFill = launch.workspace && generated.zeroWorkspaceEachLaunch;
    if (step.zeroFill) {
      step.workspace = launch.workspace->data();
      step.workspaceBytes = static_cast<size_t>(launch.workspace->bytes());
      step.fillNode = built->graph_->addZeroFill(step.workspace, step.workspaceBytes);
    }
    step.kernelNode = built->graph_->addKernel(
        launch.kernel->kernel.function(launch.what), launchShape(generated.launch),
        launch.arguments.pointers(), launchedAfterKernel(plan, index, step.zeroFill));
    pointersOf(launch.arguments, step.pointers);
    built->steps_.push_back(std::move(step));
  }
  built->graph_->instantiate();
  built->dependentLaunches_ = built->graph_->programmaticEdges();
  return built;
}

PlanGraph::~PlanGraph() {
  // Errors are ignored: at process exit the runtime may be gone.
  for (Capture& kept : captures_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(kept.exec));
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void PlanGraph::capture(Plan& plan) {
  const std::string what = "capturing a replayed run's CUDA graph";
  if (stream_ == nullptr) {
    cudaStream_t stream = nullptr;
    checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags", what);
    stream_ = stream;
  }
  auto* stream = static_cast<cudaStream_t>(stream_);
  // The pointers first: a library call's workspace grows (and synchronizes)
  // here rather than inside the capture.
  planPointers(plan, scratch_);
  checkCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
            "cudaStreamBeginCapture", what);
  int dependent = 0;
  try {
    for (size_t index = 0; index < plan.launches.size(); ++index) {
      PlannedLaunch& launch = plan.launches[index];
      if (launch.library) {
        launch.library->run(stream);
        continue;
      }
      const codegen::GeneratedKernel& generated = launch.kernel->generated;
      const bool zeroFill = launch.workspace && generated.zeroWorkspaceEachLaunch;
      if (zeroFill) {
        checkCuda(cudaMemsetAsync(launch.workspace->data(), 0,
                                  static_cast<size_t>(launch.workspace->bytes()), stream),
                  "cudaMemsetAsync", launch.what + " workspace, " + what);
      }
      const bool afterKernel = launchedAfterKernel(plan, index, zeroFill);
      launch.kernel->kernel.launch(generated.launch, launch.arguments.pointers(), launch.what,
                                   afterKernel, stream);
      if (afterKernel) ++dependent;
    }
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);  // leaves the stream usable
    if (partial != nullptr) cudaGraphDestroy(partial);
    cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  checkCuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture", what);
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  checkCuda(instantiated, "cudaGraphInstantiate", what);
  Capture* slot = nullptr;
  if (captures_.size() < kCapturedGraphs) {
    slot = &captures_.emplace_back();
  } else {
    slot = &*std::min_element(
        captures_.begin(), captures_.end(),
        [](const Capture& a, const Capture& b) { return a.lastLaunch < b.lastLaunch; });
    cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(slot->exec));
  }
  slot->exec = exec;
  slot->pointers = scratch_;
  slot->lastLaunch = launches_;
  dependentLaunches_ = dependent;
}

bool PlanGraph::roomForCapture() const {
  if (captures_.size() < kCapturedGraphs) return true;
  // Replace only a graph no run launched lately: a cycle of more buffer sets
  // than the graphs kept would otherwise capture (tens of us) every few runs.
  for (const Capture& kept : captures_) {
    if (launches_ - kept.lastLaunch > 2 * kCapturedGraphs) return true;
  }
  return false;
}

bool PlanGraph::launch(Plan& plan, int* nodesReset) {
  int reset = 0;
  if (!captures_.empty()) {
    planPointers(plan, scratch_);
    ++launches_;
    auto kept = std::find_if(captures_.begin(), captures_.end(),
                             [&](const Capture& c) { return c.pointers == scratch_; });
    if (kept == captures_.end()) {
      // No graph for these pointers: one by one this run, unless they came
      // one by one lately too (buffers taking turns), when they are
      // captured.
      auto seen = std::find(uncaptured_.begin(), uncaptured_.end(), scratch_);
      const bool repeated = seen != uncaptured_.end();
      if (repeated) uncaptured_.erase(seen);
      if (!repeated || !recapture_ || !roomForCapture()) {
        uncaptured_.push_back(scratch_);
        if (uncaptured_.size() > kCapturedGraphs) uncaptured_.erase(uncaptured_.begin());
        return false;
      }
      try {
        capture(plan);
      } catch (const CudaError&) {
        // The first capture worked; if a later one is refused, the plan
        // launches one by one unless its pointers come back to a kept
        // graph's.
        recapture_ = false;
        return false;
      }
      kept = std::find_if(captures_.begin(), captures_.end(),
                          [&](const Capture& c) { return c.pointers == scratch_; });
      reset = static_cast<int>(plan.launches.size());
    }
    kept->lastLaunch = launches_;
    checkCuda(cudaGraphLaunch(static_cast<cudaGraphExec_t>(kept->exec), nullptr), "cudaGraphLaunch",
              "a replayed run's captured CUDA graph");
    if (nodesReset != nullptr) *nodesReset = reset;
    return true;
  }
  for (Step& step : steps_) {
    PlannedLaunch& launch = plan.launches[step.launch];
    if (step.zeroFill) {
      void* workspace = launch.workspace->data();
      const auto bytes = static_cast<size_t>(launch.workspace->bytes());
      if (workspace != step.workspace || bytes != step.workspaceBytes) {
        graph_->setZeroFill(step.fillNode, workspace, bytes);
        step.workspace = workspace;
        step.workspaceBytes = bytes;
        ++reset;
      }
    }
    if (!samePointers(launch.arguments, step.pointers)) {
      const codegen::GeneratedKernel& generated = launch.kernel->generated;
      graph_->setKernelArguments(step.kernelNode, launch.kernel->kernel.function(launch.what),
                                 launchShape(generated.launch), launch.arguments.pointers());
      pointersOf(launch.arguments, step.pointers);
      ++reset;
    }
  }
  graph_->launch();
  if (nodesReset != nullptr) *nodesReset = reset;
  return true;
}

}  // namespace fuserlab::runtime
