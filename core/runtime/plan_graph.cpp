#include "core/runtime/plan_graph.h"

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

}  // namespace

std::unique_ptr<PlanGraph> PlanGraph::build(Plan& plan, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return std::unique_ptr<PlanGraph>();
  };
  if (plan.launches.empty()) return refuse("the run launches nothing");
  for (const PlannedLaunch& launch : plan.launches) {
    if (launch.library) {
      return refuse(launch.what + " is a cuBLASLt call, which queues its own launches");
    }
  }
  std::unique_ptr<PlanGraph> built(new PlanGraph());
  for (size_t index = 0; index < plan.launches.size(); ++index) {
    PlannedLaunch& launch = plan.launches[index];
    const codegen::GeneratedKernel& generated = launch.kernel->generated;
    Step step;
    step.launch = index;
    step.zeroFill = launch.workspace && generated.zeroWorkspaceEachLaunch;
    if (step.zeroFill) {
      step.workspace = launch.workspace->data();
      step.workspaceBytes = static_cast<size_t>(launch.workspace->bytes());
      step.fillNode = built->graph_.addZeroFill(step.workspace, step.workspaceBytes);
    }
    // As executePlan launches one by one: a dependent of the kernel before
    // it, unless a zero fill stands between them.
    const bool afterKernel = plan.programmaticLaunches && index > 0 && !step.zeroFill &&
                             generated.waitsForPriorGrids;
    step.kernelNode = built->graph_.addKernel(launch.kernel->kernel.function(launch.what),
                                              launchShape(generated.launch),
                                              launch.arguments.pointers(), afterKernel);
    pointersOf(launch.arguments, step.pointers);
    built->steps_.push_back(std::move(step));
  }
  built->graph_.instantiate();
  return built;
}

int PlanGraph::launch(Plan& plan) {
  int reset = 0;
  for (Step& step : steps_) {
    PlannedLaunch& launch = plan.launches[step.launch];
    if (step.zeroFill) {
      void* workspace = launch.workspace->data();
      const auto bytes = static_cast<size_t>(launch.workspace->bytes());
      if (workspace != step.workspace || bytes != step.workspaceBytes) {
        graph_.setZeroFill(step.fillNode, workspace, bytes);
        step.workspace = workspace;
        step.workspaceBytes = bytes;
        ++reset;
      }
    }
    if (!samePointers(launch.arguments, step.pointers)) {
      const codegen::GeneratedKernel& generated = launch.kernel->generated;
      graph_.setKernelArguments(step.kernelNode, launch.kernel->kernel.function(launch.what),
                                launchShape(generated.launch), launch.arguments.pointers());
      pointersOf(launch.arguments, step.pointers);
      ++reset;
    }
  }
  graph_.launch();
  return reset;
}

}  // namespace fuserlab::runtime
