// GpuExecutor: runs a fusion on one GPU. Per input signature (dtype, rank,
// size-1 axes, contiguity, stride order and alignment class of each tensor)
// it compiles the fusion once (passes, segmentation, params) and keeps the
// result; per concrete layout of each kernel segment's inputs it generates,
// compiles (through the KernelCache) and loads the kernel once. A run then
// walks the segments in order:
//   - kernel segments launch their kernel, with intermediates in device
//     memory laid out contiguously in allocation order (as the compiler
//     assumed) and fusion outputs laid out as their allocation domains ask;
//     an output that aliases an input (`alias_input=`) is written into it;
//   - matmul segments with backend cublaslt are one cuBLASLt call each
//     (core/runtime/cublaslt_matmul.h), counted as one launch; sdpfa_fwd
//     segments launch the generated attention kernel;
//   - kernel-free segments (no_op, expr_eval) are views: broadcast, expand,
//     permute, squeeze, slice, set and reshape-when-the-strides-allow become
//     new sizes and strides over the same device memory, with no copy and no
//     launch. Where a view cannot have the layout its tensor needs, a copy
//     kernel runs, and the run's stats and report say why.
// After each run the signature's report carries a "run" object: launches,
// library calls, host steps and copy kernels with their reasons.
// When the sizes change under a cached signature, the cached params are
// re-checked at the new sizes; if a scheduler refuses them, the fusion is
// compiled again for this signature.
//
// Errors name the segment and the kernel; CUDA errors carry the runtime's
// error text (CudaError).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/kernel.h"
#include "core/compiler/compile_options.h"
#include "core/cuda/cuda_memory.h"
#include "core/cuda/kernel_cache.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/report/compile_report.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/heuristic_provider.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

class CudaModule;

//! A segment the cuda backend cannot run yet: its emitter does not exist, or
//! cuBLASLt has no algorithm (or cannot read the layout) for a matmul
//! segment. The message starts "unavailable on the cuda backend: ".
class KernelUnavailable : public UserError {
 public:
  explicit KernelUnavailable(const std::string& message);
};

//! Turns a generated kernel into an image cudaLibraryLoadData takes (cubin or
//! PTX) for `device`. `version` names the compiler (e.g. "nvrtc 13.0"): it is
//! part of the kernel cache key.
struct KernelCompiler {
  std::function<std::string(const codegen::GeneratedKernel&, const scheduler::DeviceSpec&)> compile;
  std::string version;
};

//! NVRTC (core/cuda/nvrtc_compiler.h) as a KernelCompiler.
KernelCompiler nvrtcKernelCompiler();

//! The KernelCache key under which the executor keeps `kernel`'s image for
//! `device` (source with the helper header, options, architecture and the
//! compiler's version): the tuner's builder fills the cache under it.
std::string kernelImageKey(const codegen::GeneratedKernel& kernel,
                           const scheduler::DeviceSpec& device, const KernelCompiler& compiler);

struct GpuRunOptions {
  //! Fill every buffer the run allocates (outputs and intermediates) with
  //! poison() first, so an element no kernel writes shows up as NaN (or
  //! 0x7f bytes) rather than as plausible stale memory.
  bool poisonOutputs = false;
  //! Synchronize after every launch, so a kernel that faults is named in
  //! the error (otherwise the fault surfaces at the end of the run).
  bool synchronizeEachKernel = false;
  //! Wait for the run's GPU work before returning. Off, run() returns once
  //! the launches are queued (as a PyTorch op does): every launch, copy and
  //! library call goes to the legacy default stream, and the memory pool
  //! reuses a block only for work queued after its last reader, so the
  //! outputs are ready for anything queued after the run on that stream;
  //! a kernel's fault then surfaces at a later CUDA call.
  bool synchronize = true;
  //! Called once the run is planned (buffers allocated, kernels loaded) and
  //! before the first launch is queued; the benchmark
  //! (measure/benchmark.h) records its start event here.
  std::function<void()> beforeLaunches;
  //! Called after each launch is queued, with its index in launch order and
  //! what it is ("segment 1, kernel ..."); the benchmark records an event
  //! here to time each launch and the whole run without the final
  //! synchronization.
  std::function<void(size_t, const std::string&)> afterLaunch;
  //! Queue each launch with its own call, so that afterLaunch runs between
  //! two launches (the benchmark's event after each launch). Otherwise a
  //! replayed run is queued as one CUDA graph
  //! (CompileOptions::graphLaunch) and afterLaunch runs once it is queued.
  bool launchEachApart = false;
};

//! How planning got the images of the kernels it built: compiled, where the
//! kernel cache did not hold them (NVRTC, the cache write and the module
//! load), or from the kernel cache (its memory or its disk, and the module
//! load); with the host time of each. A kernel whose image an earlier
//! kernel of the executor already loaded counts in neither.
struct KernelImageLoads {
  int compiled = 0;
  int fromCache = 0;
  double compileMilliseconds = 0;
  //! Of compileMilliseconds, the compiler's own (NVRTC).
  double compilerMilliseconds = 0;
  double cacheMilliseconds = 0;
};

//! The loads as a phrase for run summaries: "1 compiled by NVRTC in 31.2
//! ms, 1 from the kernel cache in 0.09 ms" (either part left out when
//! zero); empty when the run loaded no image (a cached call).
std::string describeKernelImages(const KernelImageLoads& images);

struct GpuRunStats {
  //! Launches on the GPU: generated kernels, copy kernels and library calls
  //! (a cuBLASLt call counts as one).
  int kernelLaunches = 0;
  //! Of those, cuBLASLt calls.
  int libraryCalls = 0;
  //! Copy kernels that kernel-free segments launched, each with its reason.
  std::vector<std::string> copies;
  //! Kernel-free segments evaluated as views on the host.
  int hostSteps = 0;
  //! Whether this run compiled the fusion (a new signature, or cached params
  //! refused at new sizes).
  bool compiledFusion = false;
  //! Kernels generated and loaded by this run (0 on a cached call).
  int kernelsBuilt = 0;
  //! Host time spent compiling the fusion and building kernels.
  double compileMilliseconds = 0;
  //! Where the built kernels' images came from, and what each way cost.
  KernelImageLoads images;
  //! Generated kernels launched as programmatic dependents of the launch
  //! before them (CompileOptions::dependentLaunch, sm_90+).
  int dependentLaunches = 0;
  //! Whether the run replayed a traced plan (same sizes, strides, alignment
  //! and scalars as an earlier run: no planning).
  bool replayed = false;
  //! Whether the launches were queued as one CUDA graph (a replayed run:
  //! core/runtime/plan_graph.h).
  bool graphLaunch = false;
  //! Of the graph's nodes, those this run re-pointed: its buffers or
  //! inputs moved since the graph's last launch (a captured graph, one with
  //! a cuBLASLt call, counts every launch when it is captured again).
  int graphNodesReset = 0;
};

struct GpuRunResult {
  //! One per fusion output: device tensors in the layout runReference
  //! gives (a 0-dim CPU tensor for a scalar output). An output aliasing an
  //! input is that input's tensor.
  std::vector<DeviceTensor> outputs;
  GpuRunStats stats;
};

class GpuExecutor {
 public:
  //! An executor for `fusion` (which must outlive it) on GPU `device`.
  //! `cache` (default: KernelCache::global()) keeps compiled images;
  //! `compiler` defaults to nvrtcKernelCompiler().
  GpuExecutor(const ir::Fusion& fusion, int device, compiler::CompileOptions options = {},
              KernelCache* cache = nullptr, KernelCompiler compiler = {});
  ~GpuExecutor();
  GpuExecutor(const GpuExecutor&) = delete;
  GpuExecutor& operator=(const GpuExecutor&) = delete;

  //! Runs on `inputs`: one per fusion input, tensors on this executor's GPU
  //! (CPU 0-dim tensors and scalars for scalar inputs), in the layout
  //! runReference takes. Returns once the GPU work is done (synchronized),
  //! unless options.synchronize is off.
  GpuRunResult run(const Arguments& inputs, const GpuRunOptions& options = {});

  //! Params for newly compiled signatures come from `provider` (the
  //! heuristics database, or the tuner's variant) before the heuristics;
  //! null for the heuristics alone. Must outlive the executor's runs.
  void setHeuristicProvider(const scheduler::HeuristicProvider* provider) { provider_ = provider; }

  const ir::Fusion& fusion() const { return fusion_; }
  int device() const { return device_; }
  const scheduler::DeviceSpec& deviceSpec() const { return spec_; }
  //! Kernel launches over the executor's lifetime.
  int64_t totalLaunches() const { return totalLaunches_; }
  //! Input signatures compiled so far.
  size_t signatureCount() const { return signatures_.size(); }
  //! The compile report of the signature the last run used; null before
  //! the first run.
  const report::CompileReport* lastReport() const { return lastReport_; }

  struct Signature;
  struct LoadedKernel;
  struct Replay;

 private:
  Signature& signatureFor(const Arguments& inputs, const std::string& key, bool recompile,
                          GpuRunStats& stats);

  const ir::Fusion& fusion_;
  int device_;
  compiler::CompileOptions options_;
  scheduler::DeviceSpec spec_;
  KernelCache* cache_;
  KernelCompiler compiler_;
  const scheduler::HeuristicProvider* provider_ = nullptr;
  // Keyed by the signature string: looked up, never iterated for output.
  std::map<std::string, std::unique_ptr<Signature>> signatures_;
  // Loaded images by kernel cache key, shared across signatures.
  std::map<std::string, std::shared_ptr<CudaModule>> modules_;
  int64_t totalLaunches_ = 0;
  report::CompileReport* lastReport_ = nullptr;
  // Traced plans by replayKey (core/runtime/run_keys.h): cached runs at
  // known sizes skip planning.
  std::map<std::vector<int64_t>, std::unique_ptr<Replay>> replays_;
};

struct HostRunResult {
  //! CPU copies of the outputs.
  std::vector<Tensor> outputs;
  GpuRunStats stats;
};

//! Arguments on a GPU: `arguments` as the executor takes them, and the
//! device buffers they point into, kept alive with them.
struct DeviceArguments {
  Arguments arguments;
  std::vector<DeviceTensor> keep;
};

//! `inputs` on GPU `device`: CPU tensors copied there, 0-dim CPU tensors
//! (scalars) and non-tensor arguments as they are, device tensors as given.
//! With `fusion`, a 0-dim tensor stays on the host only for an input it
//! declares is_cpu=True (a by-value scalar); without it, every 0-dim one.
DeviceArguments toDeviceArguments(const Arguments& inputs, int device,
                                  const ir::Fusion* fusion = nullptr);

//! Copies CPU `inputs` to the executor's GPU, runs, and copies the outputs
//! back; inputs that an output aliases are updated in place on the host, as
//! runReference does.
HostRunResult runOnGpu(GpuExecutor& executor, const Arguments& inputs,
                       const GpuRunOptions& options = {});

}  // namespace fuserlab::runtime
