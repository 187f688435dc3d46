// FusionSession: what one `fuserlab.FusionDefinition` holds on the C++ side:
// the FusionBuilder its calls go through, its compile options, and the
// caches that make a second execute with the same input signature reuse the
// compiled fusion (and, on a GPU, its kernels: the GpuExecutor keeps them
// per signature). Plain C++ except for the Python values crossing in and out.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/frontend/fusion_builder.h"
#include "core/frontend/script.h"
#include "core/runtime/gpu_executor.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::python {

class BorrowedTensor;

class FusionSession {
 public:
  //! `makeValue(handle)` wraps a fusion value for Python (fuserlab.Tensor).
  explicit FusionSession(pybind11::function makeValue);

  frontend::FusionBuilder& builder() { return builder_; }
  //! Python arguments to builder values and back.
  frontend::BuilderValue toBuilder(const pybind11::handle& object) const;
  pybind11::object fromBuilder(const frontend::BuilderValue& value) const;

  //! Options by nvFuser-like keyword: upcast, bookend, dependent_launch,
  //! graph_launch (strings), disable_passes (a list), device (a built-in
  //! device key for what-if compiles, or "cuda:N").
  void setOptions(const pybind11::dict& options);

  //! Compiles for `inputs` (cached by signature) and returns the report.
  const report::CompileReport& compile(const pybind11::list& inputs);
  //! Runs on `inputs`: the CPU reference for CPU arrays, the GPU executor
  //! (zero-copy) for CUDA tensors. One exported tensor per output.
  //! Runs on `inputs`; the outputs as ExportedTensor objects, or with
  //! `capsules` as DLPack capsules (for torch's C-level from_dlpack, the
  //! cheaper path). On the GPU, `synchronize` off returns once the launches
  //! are queued on the legacy default stream (GpuRunOptions::synchronize).
  pybind11::list execute(const pybind11::list& inputs, bool synchronize = true,
                         bool capsules = false);
  //! Runs on `inputs` when one of them is of a type with a DLPack exchange
  //! table (torch.Tensor in torch >= 2.10), the outputs made that type's
  //! tensors by its C call; None (nothing run) when none is. `synchronize`
  //! None: wait for the GPU unless the framework's current stream is the
  //! legacy default stream.
  pybind11::object executeExchange(const pybind11::list& inputs,
                                   const pybind11::object& synchronize);

  //! The report of the last compile or GPU run; null before one.
  const report::CompileReport* lastReport() const;
  //! Segment `segment`'s generated CUDA at the last compile's sizes.
  std::string cudaCode(int segment);
  //! The fusion as a script with an inputs block at `inputs`' layouts.
  std::string reproScript(const pybind11::list& inputs);
  //! Segment `segment` of the last compile as a standalone script.
  std::string segmentScript(int segment);

  //! compiles: fusions compiled (a new signature); executes: execute calls;
  //! gpu_kernels_built: kernels the GPU executor generated and loaded;
  //! exchange_api_executes: executes through a DLPack exchange table.
  pybind11::dict stats() const;

 private:
  struct Bound {
    std::vector<std::unique_ptr<BorrowedTensor>> borrowed;
    runtime::Arguments arguments;
    bool onGpu = false;
    int gpu = 0;
  };
  Bound bind(const pybind11::list& inputs) const;
  //! One execute of bound inputs: the GPU executor or the CPU reference.
  std::vector<runtime::DeviceTensor> run(const Bound& bound, bool synchronize);
  const report::CompileReport& compile(const Bound& bound);
  std::string signatureOf(const runtime::Arguments& arguments) const;
  scheduler::DeviceSpec compileDevice() const;

  frontend::FusionBuilder builder_;
  pybind11::function makeValue_;
  compiler::CompileOptions options_;
  std::string device_;  //!< empty: the default device (or the GPU's, when run on it)
  struct CachedCompile {
    runtime::CompiledFusion compiled;
    std::vector<frontend::InputSpec> specs;
    runtime::Arguments shapes;
  };
  std::map<std::string, std::unique_ptr<CachedCompile>> compiles_;
  CachedCompile* last_ = nullptr;
  std::unique_ptr<runtime::GpuExecutor> gpu_;
  int64_t compileCount_ = 0;
  int64_t executeCount_ = 0;
  int64_t gpuKernelsBuilt_ = 0;
  int64_t exchangeExecutes_ = 0;
};

}  // namespace fuserlab::python
