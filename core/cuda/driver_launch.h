// Kernel launches through the CUDA driver API, reached with the runtime's
// cudaGetDriverEntryPointByVersion (nothing links libcuda). A library
// kernel's CUfunction in the current context is fetched once and launched
// with cuLaunchKernelEx; cudaLaunchKernel of a cudaKernel_t looks that
// function up again on every launch, and a cached run's host time is mostly
// the launch call (issue 6: at most 5 us per launch).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace fuserlab::runtime::driver {

//! The driver's `symbol` as of driver ABI `abiVersion` (12000 for CUDA
//! 12.0); a CudaError naming the symbol and the driver needed when the
//! installed driver lacks it.
void* entryPoint(const char* symbol, unsigned abiVersion);

//! `fn` = entryPoint(symbol, abiVersion), as the function pointer type it is.
template <class Fn>
void resolve(const char* symbol, unsigned abiVersion, Fn& fn) {
  fn = reinterpret_cast<Fn>(entryPoint(symbol, abiVersion));
}

//! The current thread's CUcontext (null when none is current).
void* currentContext();

//! The CUfunction of `kernel` (a cudaKernel_t, i.e. a CUkernel) in the
//! current context; a CudaError naming `what` on failure.
void* kernelFunction(void* kernel, const std::string& what);

//! One launch's shape, as cuLaunchKernelEx takes it.
struct LaunchShape {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned dynamicSharedMemoryBytes = 0;
  //! A programmatic dependent of the kernel queued just before it
  //! (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION).
  bool afterKernel = false;
};

//! Queues `function` on `stream` (a CUstream; null: the legacy default
//! stream); returns the CUresult.
int launch(void* function, const LaunchShape& shape, void** args, void* stream = nullptr);

//! "CUDA_ERROR_X (text)" for a CUresult.
std::string errorText(int result);

}  // namespace fuserlab::runtime::driver
