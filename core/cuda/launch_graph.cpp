#include "core/cuda/launch_graph.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include "core/cuda/cuda_error.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

// Each call at the version whose signature is used here, typed by the
// toolkit's own versioned typedefs (a symbol looked up at a later ABI can be
// an older signature: "cuGraphInstantiate" at 12.0 is still the 11.0 call
// with an error-node and log buffer).
struct GraphEntries {
  PFN_cuGraphCreate_v10000 create = nullptr;
  PFN_cuGraphAddKernelNode_v12000 addKernel = nullptr;
  PFN_cuGraphAddMemsetNode_v10000 addMemset = nullptr;
  PFN_cuGraphAddDependencies_v12030 addEdges = nullptr;  // null before CUDA 12.3
  PFN_cuGraphInstantiateWithFlags_v11040 instantiate = nullptr;
  PFN_cuGraphExecKernelNodeSetParams_v12000 setKernel = nullptr;
  PFN_cuGraphExecMemsetNodeSetParams_v10020 setMemset = nullptr;
  PFN_cuGraphLaunch_v10000 launch = nullptr;
  PFN_cuGraphExecDestroy_v10000 destroyExec = nullptr;
  PFN_cuGraphDestroy_v10000 destroy = nullptr;
};

const GraphEntries& graphEntries() {
  static const GraphEntries e = [] {
    GraphEntries r;
    driver::resolve("cuGraphCreate", 10000, r.create);
    driver::resolve("cuGraphAddKernelNode", 12000, r.addKernel);
    driver::resolve("cuGraphAddMemsetNode", 10000, r.addMemset);
    driver::resolve("cuGraphInstantiateWithFlags", 11040, r.instantiate);
    driver::resolve("cuGraphExecKernelNodeSetParams", 12000, r.setKernel);
    driver::resolve("cuGraphExecMemsetNodeSetParams", 10020, r.setMemset);
    driver::resolve("cuGraphLaunch", 10000, r.launch);
    driver::resolve("cuGraphExecDestroy", 10000, r.destroyExec);
    driver::resolve("cuGraphDestroy", 10000, r.destroy);
    try {
      driver::resolve("cuGraphAddDependencies", 12030, r.addEdges);
    } catch (const CudaError&) {
      r.addEdges = nullptr;  // edges with data came in CUDA 12.3
    }
    return r;
  }();
  return e;
}

CUDA_KERNEL_NODE_PARAMS kernelParams(void* function, const driver::LaunchShape& shape,
                                     void** args) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = static_cast<CUfunction>(function);
  p.gridDimX = shape.grid[0];
  p.gridDimY = shape.grid[1];
  p.gridDimZ = shape.grid[2];
  p.blockDimX = shape.block[0];
  p.blockDimY = shape.block[1];
  p.blockDimZ = shape.block[2];
  p.sharedMemBytes = shape.dynamicSharedMemoryBytes;
  p.kernelParams = args;
  return p;
}

CUDA_MEMSET_NODE_PARAMS zeroFillParams(void* pointer, size_t bytes) {
  CUDA_MEMSET_NODE_PARAMS p{};
  p.dst = reinterpret_cast<CUdeviceptr>(pointer);
  p.value = 0;
  p.elementSize = 1;
  p.width = bytes;
  p.height = 1;
  p.pitch = 0;
  return p;
}

}  // namespace

LaunchGraph::LaunchGraph(std::string what) : what_(std::move(what)) {
  context_ = driver::currentContext();
  FL_ASSERT(context_ != nullptr, what_, ": no current CUDA context to build a graph in");
  CUgraph graph = nullptr;
  check(graphEntries().create(&graph, 0), "cuGraphCreate", "");
  graph_ = graph;
}

LaunchGraph::~LaunchGraph() {
  // Errors are ignored: a destructor throws nothing, and at process exit the
  // driver may already be gone (CUDA_ERROR_DEINITIALIZED).
  if (exec_ != nullptr) graphEntries().destroyExec(static_cast<CUgraphExec>(exec_));
  if (graph_ != nullptr) graphEntries().destroy(static_cast<CUgraph>(graph_));
}

void LaunchGraph::check(int result, const char* call, const std::string& step) const {
  if (result == CUDA_SUCCESS) return;
  throw CudaError(result, what_ + (step.empty() ? "" : ", " + step) + ": " + call +
                              " failed: " + driver::errorText(result));
}

size_t LaunchGraph::addKernel(void* function, const driver::LaunchShape& shape, void** args,
                              bool afterKernel) {
  FL_ASSERT(exec_ == nullptr, what_, ": a step added after instantiation");
  const size_t step = nodes_.size();
  const std::string name = "step " + std::to_string(step) + " (a kernel)";
  const CUDA_KERNEL_NODE_PARAMS params = kernelParams(function, shape, args);
  const bool programmatic = afterKernel && step > 0 && graphEntries().addEdges != nullptr;
  const CUgraphNode previous = step == 0 ? nullptr : static_cast<CUgraphNode>(nodes_.back());
  const bool fullEdge = previous != nullptr && !programmatic;
  CUgraphNode node = nullptr;
  check(graphEntries().addKernel(&node, static_cast<CUgraph>(graph_),
                                 fullEdge ? &previous : nullptr, fullEdge ? 1 : 0, &params),
        "cuGraphAddKernelNode", name);
  nodes_.push_back(node);
  if (programmatic) {
    CUgraphEdgeData edge{};
    edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
    edge.to_port = 0;
    edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    check(graphEntries().addEdges(static_cast<CUgraph>(graph_), &previous, &node, &edge, 1),
          "cuGraphAddDependencies (programmatic)", name);
    ++programmaticEdges_;
  }
  return step;
}

size_t LaunchGraph::addZeroFill(void* pointer, size_t bytes) {
  FL_ASSERT(exec_ == nullptr, what_, ": a step added after instantiation");
  const size_t step = nodes_.size();
  const CUDA_MEMSET_NODE_PARAMS params = zeroFillParams(pointer, bytes);
  const CUgraphNode previous = step == 0 ? nullptr : static_cast<CUgraphNode>(nodes_.back());
  CUgraphNode node = nullptr;
  check(graphEntries().addMemset(
            &node, static_cast<CUgraph>(graph_), previous != nullptr ? &previous : nullptr,
            previous != nullptr ? 1 : 0, &params, static_cast<CUcontext>(context_)),
        "cuGraphAddMemsetNode", "step " + std::to_string(step) + " (a zero fill)");
  nodes_.push_back(node);
  return step;
}

void LaunchGraph::instantiate() {
  FL_ASSERT(exec_ == nullptr, what_, ": instantiated twice");
  CUgraphExec exec = nullptr;
  check(graphEntries().instantiate(&exec, static_cast<CUgraph>(graph_), 0),
        "cuGraphInstantiateWithFlags", "");
  exec_ = exec;
}

void LaunchGraph::setKernelArguments(size_t step, void* function, const driver::LaunchShape& shape,
                                     void** args) {
  FL_ASSERT(exec_ != nullptr && step < nodes_.size(), what_, ": step ", step,
            " re-set before instantiation or past the end");
  const CUDA_KERNEL_NODE_PARAMS params = kernelParams(function, shape, args);
  const int result = graphEntries().setKernel(static_cast<CUgraphExec>(exec_),
                                              static_cast<CUgraphNode>(nodes_[step]), &params);
  if (result != CUDA_SUCCESS) {
    check(result, "cuGraphExecKernelNodeSetParams", "step " + std::to_string(step));
  }
}

void LaunchGraph::setZeroFill(size_t step, void* pointer, size_t bytes) {
  FL_ASSERT(exec_ != nullptr && step < nodes_.size(), what_, ": step ", step,
            " re-set before instantiation or past the end");
  const CUDA_MEMSET_NODE_PARAMS params = zeroFillParams(pointer, bytes);
  const int result = graphEntries().setMemset(static_cast<CUgraphExec>(exec_),
                                              static_cast<CUgraphNode>(nodes_[step]), &params,
                                              static_cast<CUcontext>(context_));
  if (result != CUDA_SUCCESS) {
    check(result, "cuGraphExecMemsetNodeSetParams", "step " + std::to_string(step));
  }
}

void LaunchGraph::launch() {
  FL_ASSERT(exec_ != nullptr, what_, ": launched before instantiation");
  const int result = graphEntries().launch(static_cast<CUgraphExec>(exec_), nullptr);
  if (result != CUDA_SUCCESS) check(result, "cuGraphLaunch", "");
}

}  // namespace fuserlab::runtime
