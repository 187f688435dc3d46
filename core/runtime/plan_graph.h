// A replayed plan's launches as one CUDA graph, queued with one launch call
// (issue 6: a cached run's host time per launch).
//
// - A plan of generated kernels is built node by node
//   (core/runtime/launch_graph.h) at its first replay; a later replay re-sets
//   only the nodes whose pointers bind() moved.
// - A plan with a cuBLASLt call is captured from a private stream instead
//   (the library queues kernels of its own, whose arguments cannot be
//   re-set): the graph runs while every pointer of the plan is the one it
//   captured; a run whose pointers moved launches one by one, and the plan is
//   captured again once a run sees the same pointers as the run before it.
//
// Internal to the GPU executor (core/runtime/gpu_executor.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/runtime/launch_graph.h"
#include "core/runtime/run_plan.h"

namespace fuserlab::runtime {

class PlanGraph {
 public:
  //! The graph of `plan`'s launches as bound now: each generated kernel a
  //! node (a programmatic edge where the plan launches it as a dependent,
  //! `programmaticLaunches`), each workspace zeroed each launch a zero fill
  //! before it, each cuBLASLt call its kernels (captured). Null for a plan
  //! that launches nothing. A CudaError when the driver refuses the graph
  //! (the caller launches one by one).
  static std::unique_ptr<PlanGraph> build(Plan& plan);
  ~PlanGraph();
  PlanGraph(const PlanGraph&) = delete;
  PlanGraph& operator=(const PlanGraph&) = delete;

  //! Queues `plan` (bound again) as the graph on the legacy default stream,
  //! after re-setting the nodes whose pointers moved (`nodesReset`, about
  //! 1 us of host time each). False, with nothing queued, when this run
  //! must launch one by one (a captured plan whose pointers moved).
  bool launch(Plan& plan, int* nodesReset);

  //! Launches whose edge from the launch before is programmatic.
  int dependentLaunches() const { return dependentLaunches_; }
  //! Whether the graph was captured (the plan has a cuBLASLt call).
  bool captured() const { return capturedExec_ != nullptr; }

 private:
  PlanGraph() = default;
  void capture(Plan& plan);

  // Built node by node: a plan of generated kernels.
  struct Step {
    size_t launch = 0;
    size_t kernelNode = 0;
    // The kernel's pointer arguments as the instantiated graph has them.
    std::vector<void*> pointers;
    // A zero fill before the kernel: its node, and the workspace it zeroes.
    bool zeroFill = false;
    size_t fillNode = 0;
    void* workspace = nullptr;
    size_t workspaceBytes = 0;
  };
  std::unique_ptr<LaunchGraph> graph_;
  std::vector<Step> steps_;

  // Captured: a plan with a library call.
  void* stream_ = nullptr;        // cudaStream_t, non-blocking, for capture
  void* capturedExec_ = nullptr;  // cudaGraphExec_t
  std::vector<const void*> capturedPointers_;
  std::vector<const void*> lastPointers_;
  std::vector<const void*> scratch_;
  bool recapture_ = true;  // false once a capture after the first failed

  int dependentLaunches_ = 0;
};

}  // namespace fuserlab::runtime
