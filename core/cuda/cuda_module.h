// CUDA modules and launches (nothing links libcuda): a compiled image
// (cubin, or PTX the driver compiles) is loaded with cudaLibraryLoadData,
// its kernels found with cudaLibraryGetKernel and launched with the
// driver's cuLaunchKernelEx on their CUfunction in the current context,
// fetched once (core/cuda/driver_launch.h). Arguments are packed as the
// kernel ABI of core/codegen/kernel.h lays them out.
//
// Invariant: a CudaKernel is only used while the CudaModule it came from is
// alive (the executor keeps both in one cache entry).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/codegen/kernel.h"
#include "core/cuda/driver_launch.h"
#include "core/ir/val.h"

namespace fuserlab::runtime {

//! One __global__ function of a loaded module.
class CudaKernel {
 public:
  CudaKernel() = default;
  CudaKernel(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}

  bool valid() const { return handle_ != nullptr; }
  const std::string& name() const { return name_; }

  //! Lets the kernel use `bytes` of dynamic shared memory on `device`:
  //! above the 48 KiB every kernel may use, an opt-in
  //! (cudaFuncAttributeMaxDynamicSharedMemorySize); below it, nothing.
  void allowDynamicSharedMemory(int64_t bytes, int device, std::string_view what) const;

  //! For a kernel declared with thread-block clusters (`config.cluster`):
  //! opts into sizes past the portable 8 blocks
  //! (cudaFuncAttributeNonPortableClusterSizeAllowed), which launch only
  //! after it, then asks the occupancy API whether one such cluster fits
  //! `device` (the current device) at all; a CudaError says which cluster
  //! does not. No clusters: nothing.
  void allowClusters(const codegen::LaunchConfig& config, int device, std::string_view what) const;

  //! Launches on the current device's legacy default stream and checks the launch
  //! (not the kernel's completion: that surfaces at the next synchronize).
  //! `args` holds one pointer per kernel parameter. `what` names the segment.
  //! `afterKernel`: launch as a programmatic dependent of the kernel queued
  //! just before it (cudaLaunchAttributeProgrammaticStreamSerialization,
  //! sm_90+), for a kernel that opens with codegen::kKernelEntry: it is
  //! launched and scheduled as that kernel's blocks exit, before the kernel
  //! has completed, and waits in its first statement for its results.
  //! `stream`: a stream other than the legacy default one (a CUDA graph's
  //! capture, core/runtime/plan_graph.h).
  void launch(const codegen::LaunchConfig& config, void** args, std::string_view what,
              bool afterKernel = false, void* stream = nullptr) const;

  //! The kernel's CUfunction in the current context (fetched once per
  //! context); `what` names the segment in errors.
  void* function(std::string_view what) const;

 private:
  void* handle_ = nullptr;  // cudaKernel_t
  std::string name_;
  // The kernel's CUfunction in `context_`, the context of the last launch
  // (fetched again when a launch finds another context current).
  mutable void* function_ = nullptr;
  mutable void* context_ = nullptr;
};

//! `config` as the driver's launch calls take it.
driver::LaunchShape launchShape(const codegen::LaunchConfig& config);

//! A loaded image; unloaded by the destructor.
class CudaModule {
 public:
  //! Loads `image` (cubin or PTX bytes); `what` names the segment in errors.
  CudaModule(std::string_view image, std::string_view what);
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  //! The kernel called `name` (an extern "C" name); a CudaError naming it if
  //! the image has no such kernel.
  CudaKernel kernel(const std::string& name, std::string_view what) const;

 private:
  void* library_ = nullptr;  // cudaLibrary_t
};

//! Kernel arguments laid out as the ABI asks, and the pointer array
//! cudaLaunchKernel takes. Tensors are `{T* data; int64_t size[R];
//! int64_t stride[R];}` by value; scalars are their C type.
class KernelArguments {
 public:
  void addTensor(void* data, const std::vector<int64_t>& sizes,
                 const std::vector<int64_t>& strides);
  //! `value` converted to the C type the ABI passes a scalar of `dtype` as:
  //! bool, int32_t, int64_t, float (also for Half/BFloat16) or double.
  void addScalar(ir::DataType dtype, const ir::ScalarValue& value);
  void addPointer(void* pointer);

  size_t size() const { return blocks_.size(); }
  //! The data pointer of tensor argument `index` (its first 8 bytes), or a
  //! pointer argument; replaces it without rebuilding the arguments.
  void setPointer(size_t index, void* pointer);
  void* pointerAt(size_t index) const;
  //! Whether argument `index` is a tensor or a pointer (not a scalar).
  bool holdsPointer(size_t index) const { return holdsPointer_.at(index); }
  //! One pointer per argument, valid until the next add.
  void** pointers();

 private:
  void addBytes(const void* bytes, size_t count);

  // 8-byte aligned storage for each argument's bytes.
  std::vector<std::vector<uint64_t>> blocks_;
  std::vector<void*> pointers_;
  std::vector<bool> holdsPointer_;
};

}  // namespace fuserlab::runtime
