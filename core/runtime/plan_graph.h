// A replayed plan's launches as one CUDA graph, queued with one launch call
// (issue 6: a cached run's host time per launch).
//
// - A plan of generated kernels is built node by node
//   (core/cuda/launch_graph.h) at its first replay; a later replay re-sets
//   only the nodes whose pointers bind() moved.
// - A plan with a cuBLASLt call is captured from a private stream instead
//   (the library queues kernels of its own, whose arguments cannot be
//   re-set): a captured graph runs while every pointer of the plan is the
//   one it captured. The plan keeps up to kCapturedGraphs of them, one per
//   set of pointers, so a loop whose buffers take turns (outputs kept alive
//   for a run or two, then returned to the pool) replays them all; a run
//   with pointers no kept graph has launches one by one, and the plan is
//   captured for those pointers once a run repeats one of the last
//   kCapturedGraphs sets of pointers that went one by one, where a graph
//   is free or one has not been launched in the last 2 x kCapturedGraphs
//   runs (it is replaced; a longer cycle of sets does not recapture).
//
// Internal to the GPU executor (core/runtime/gpu_executor.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda/launch_graph.h"
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
  //! Captured graphs kept at most, one per set of pointers.
  static constexpr size_t kCapturedGraphs = 4;

 private:
  PlanGraph() = default;
  //! Captures `plan` as bound now into a kept graph (the least recently
  //! launched one replaced when kCapturedGraphs are kept).
  void capture(Plan& plan);
  //! Whether a capture may take a slot: one is free, or a kept graph was
  //! not launched in the last 2 x kCapturedGraphs runs.
  bool roomForCapture() const;

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
  struct Capture {
    void* exec = nullptr;  // cudaGraphExec_t
    std::vector<const void*> pointers;
    uint64_t lastLaunch = 0;
  };
  void* stream_ = nullptr;  // cudaStream_t, non-blocking, for capture
  std::vector<Capture> captures_;
  // Pointer sets of the latest runs that launched one by one, newest last.
  std::vector<std::vector<const void*>> uncaptured_;
  std::vector<const void*> scratch_;
  uint64_t launches_ = 0;
  bool recapture_ = true;  // false once a capture after the first failed

  int dependentLaunches_ = 0;
};

}  // namespace fuserlab::runtime
