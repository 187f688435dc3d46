// A chain of launches as one CUDA graph, through the driver API (nothing
// links libcuda): kernels and zero fills, each after the one before it,
// instantiated once and queued on the legacy default stream with one call.
// A node's pointers are re-set in the instantiated graph when they move.
//
// Why: on the H100 host measured (docs/performance.md, tests/perf/
// launch_probe.cu) one cuLaunchKernelEx call costs 3.7 to 4.4 us of host
// time and one cuGraphLaunch of a graph of one to three kernels 1.5 to
// 2.2 us, with about 1 us more per kernel whose pointers changed (issue 6: a
// cached single-kernel run at most 5 us per launch).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/cuda/driver_launch.h"

namespace fuserlab::runtime {

class LaunchGraph {
 public:
  //! An empty graph in the current context; `what` names it in errors.
  explicit LaunchGraph(std::string what);
  ~LaunchGraph();
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;

  //! Appends a launch of `function` (a CUfunction of the current context)
  //! with `args` (copied now), after the step before it: its completion,
  //! or with `afterKernel` its programmatic completion (a programmatic
  //! dependency edge: the kernel must open with codegen::kKernelEntry's
  //! wait, as for a programmatic dependent launch). Returns the step.
  size_t addKernel(void* function, const driver::LaunchShape& shape, void** args, bool afterKernel);
  //! Appends zeroing `bytes` at `pointer`, after the step before it.
  size_t addZeroFill(void* pointer, size_t bytes);
  //! Instantiates the graph; steps can no longer be added.
  void instantiate();

  //! Re-sets an instantiated kernel step's arguments (the same function
  //! and shape it was added with).
  void setKernelArguments(size_t step, void* function, const driver::LaunchShape& shape,
                          void** args);
  //! Re-points an instantiated zero-fill step.
  void setZeroFill(size_t step, void* pointer, size_t bytes);
  //! Queues the whole graph on the legacy default stream.
  void launch();

  size_t steps() const { return nodes_.size(); }
  //! Steps added with `afterKernel` whose edge is programmatic.
  int programmaticEdges() const { return programmaticEdges_; }

 private:
  void check(int result, const char* call, const std::string& step) const;

  std::string what_;
  void* context_ = nullptr;   // CUcontext
  void* graph_ = nullptr;     // CUgraph
  void* exec_ = nullptr;      // CUgraphExec
  std::vector<void*> nodes_;  // CUgraphNode, one per step
  int programmaticEdges_ = 0;
};

}  // namespace fuserlab::runtime
