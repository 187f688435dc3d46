// A planned GPU run (every buffer allocated, every kernel loaded, every
// argument laid out) and its replay: the same plan rebound to new input
// pointers and fresh buffers, so a cached run with the same sizes, strides,
// alignment and scalar values skips planning (issue 6: at most 5 us of host
// time per launch); and executePlan, which launches either.
//
// Internal to the GPU executor (core/runtime/gpu_executor.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda/cuda_memory.h"
#include "core/cuda/cuda_module.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

class CublasLtMatmul;
class PlanGraph;

//! A generated kernel, loaded.
struct GpuExecutor::LoadedKernel {
  codegen::GeneratedKernel generated;
  std::shared_ptr<CudaModule> module;
  CudaKernel kernel;
};

//! One launch of a planned run: a generated kernel, or a library call.
struct PlannedLaunch {
  std::shared_ptr<GpuExecutor::LoadedKernel> kernel;
  KernelArguments arguments;
  std::shared_ptr<DeviceBuffer> workspace;
  std::shared_ptr<CublasLtMatmul> library;
  std::string what;
  //! What the launch hooks are told ("segment 0 (pointwise), kernel ..."),
  //! made at the first launch and kept by replays.
  std::string label;
};

//! A run, planned: executing it only poisons, zeroes workspaces and launches.
struct Plan {
  std::vector<PlannedLaunch> launches;
  std::vector<Tensor> freshBuffers;  // to poison
  std::vector<DeviceTensor> outputs;
  int hostSteps = 0;
  int kernelsBuilt = 0;
  KernelImageLoads images;
  //! Copy kernels of kernel-free segments, each with its reason.
  std::vector<std::string> copies;
  //! Whether planning copied host data to the GPU (a CPU input): such a
  //! plan is not replayed, since a replay allocates without copying.
  bool copiedFromHost = false;
  //! Whether the device runs programmatic dependent launches (sm_90+): each
  //! generated kernel after the first is then launched as a dependent of the
  //! launch before it (see CudaKernel::launch).
  bool programmaticLaunches = false;
};

//! Poisons the plan's fresh buffers (options.poisonOutputs), zeroes the
//! workspaces that need it and launches `plan` one launch call at a time,
//! or as `graph` (core/runtime/plan_graph.h) with one call when given and it
//! takes this run; then synchronizes. Calls the options' hooks and counts
//! into `stats`.
void executePlan(Plan& plan, const GpuRunOptions& options, GpuRunStats& stats,
                 PlanGraph* graph = nullptr);

//! A plan with every device pointer it holds traced to an input tensor or to
//! a buffer it allocated, so it can run again on other inputs.
class ReplayPlan {
 public:
  //! Traces `plan`, made for `inputs`; `buffers` are the planner's buffers
  //! (intermediates and outputs). Null, with `why` set, when a pointer (a
  //! kernel argument or a library call's operand) cannot be traced or inputs
  //! overlap. A library call keeps its descriptors and algorithm: bind()
  //! points it at the new buffers (their alignment is the replay key's).
  static std::unique_ptr<ReplayPlan> capture(
      const Plan& plan, const Arguments& inputs,
      const std::vector<std::shared_ptr<DeviceBuffer>>& buffers, std::string* why);

  //! The plan on `inputs` (same replayKey as the captured ones): fresh
  //! buffers from the device pool (each launch's workspace is the captured
  //! one, kept across replays), pointers patched (the fresh tensors to
  //! poison only when `freshTensors`), ready to launch. Its outputs are
  //! bound by bindOutputs(), after the launches: building their tensors
  //! would otherwise stand between the call and its first launch (issue 6,
  //! host time until the last launch is queued). Valid until release().
  Plan& bind(const Arguments& inputs, int device, bool freshTensors);
  //! The bound plan's output tensors, in the buffers bind() took.
  void bindOutputs(const Arguments& inputs, int device);
  //! Drops the bound buffers (outputs live on in whoever holds them).
  void release();

 private:
  struct Slot {
    size_t launch = 0;
    size_t argument = 0;
    int region = -1;  // < inputs: an input; else a buffer; -1: null
    int64_t offset = 0;
  };
  struct TensorSlot {
    Tensor layout;  // dtype, sizes, strides, device (data re-bound)
    int region = -1;
    int64_t offset = 0;
    bool host = false;  // a 0-dim CPU tensor (scalar output): kept as is
  };

  char* base(const Arguments& inputs, int region) const;
  DeviceTensor rebind(const Arguments& inputs, const TensorSlot& slot, int device) const;

  //! One device pointer of a library call (CublasLtMatmul::pointers()).
  struct LibrarySlot {
    size_t launch = 0;
    size_t pointer = 0;
    int region = -1;
    int64_t offset = 0;
  };

  Plan plan_;
  std::vector<Slot> slots_;
  std::vector<LibrarySlot> librarySlots_;
  std::vector<std::pair<size_t, int>> workspaces_;  // launch, buffer region
  std::vector<TensorSlot> outputs_;
  std::vector<TensorSlot> fresh_;
  std::vector<size_t> inputIndex_;  // region -> argument index
  std::vector<int64_t> bufferBytes_;
  //! Per buffer region: the buffer every bind reuses (a launch's
  //! workspace), or null for a fresh one from the device pool.
  std::vector<std::shared_ptr<DeviceBuffer>> kept_;
  std::vector<std::shared_ptr<DeviceBuffer>> bound_;
};

}  // namespace fuserlab::runtime
