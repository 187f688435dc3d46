// A replayed plan's launches as one CUDA graph (core/runtime/launch_graph.h):
// built at the plan's first replay, its nodes re-pointed only where bind()
// moved a pointer, queued with one launch call (issue 6: a cached run's
// host time per launch).
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
  //! `programmaticLaunches`), each workspace zeroed each launch a zero-fill
  //! node before it. Null, with `why` set, for a plan a graph cannot hold:
  //! a library call (cuBLASLt queues its own launches) or no launch at all.
  static std::unique_ptr<PlanGraph> build(Plan& plan, std::string* why);

  //! Re-sets the nodes whose pointers `plan` (bound again) moved, then
  //! queues the graph on the legacy default stream; returns the nodes
  //! re-set (about 1 us of host time each).
  int launch(Plan& plan);

  //! Launches whose edge from the launch before is programmatic.
  int dependentLaunches() const { return graph_.programmaticEdges(); }

 private:
  PlanGraph() : graph_("a replayed run's CUDA graph") {}

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

  LaunchGraph graph_;
  std::vector<Step> steps_;
};

}  // namespace fuserlab::runtime
