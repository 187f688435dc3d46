// Executor planning: one GPU run of a compiled fusion signature laid out as
// a Plan — inputs bound and copied to the device where they are on the host,
// each segment's kernel loaded (from the kernel cache or NVRTC) or its
// library call, view or host step prepared, buffers allocated, in-place
// writes deferred until every reader ran. GpuExecutor::run executes the plan
// (core/runtime/run_plan.h) and keeps it for replays.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/cuda/cuda_memory.h"
#include "core/cuda/cuda_module.h"
#include "core/runtime/gpu_executor.h"
#include "core/runtime/run_plan.h"

namespace fuserlab::runtime {

struct GpuExecutor::Signature {
  CompiledFusion compiled;
  //! Concrete sizes the cached params were checked for.
  std::set<std::string> checkedSizes;
  //! Per kernel segment and concrete layout of its inputs and outputs.
  std::map<std::string, std::shared_ptr<LoadedKernel>> kernels;
};

//! Thrown while planning when a scheduler refuses the cached params at new
//! sizes: nothing has run yet, so the fusion is compiled again and replanned.
struct ParamsRefused {
  std::string reason;
};

//! A planned run and the buffers it needs kept alive beside the plan.
struct PlannedRun {
  Plan plan;
  std::vector<std::shared_ptr<DeviceBuffer>> keepAlive;
};

//! Plans one run of `signature` on `inputs` on GPU `device`; `checkParams`
//! asks the schedulers to check the cached params at these sizes first
//! (ParamsRefused if one refuses). Kernel images come from `cache` or
//! `compiler`; loaded modules are kept in `modules`.
PlannedRun planRun(GpuExecutor::Signature& signature, const scheduler::DeviceSpec& spec, int device,
                   bool checkParams, KernelCache& cache, const KernelCompiler& compiler,
                   std::map<std::string, std::shared_ptr<CudaModule>>& modules,
                   const Arguments& inputs);

}  // namespace fuserlab::runtime
