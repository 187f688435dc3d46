#include "core/cuda/driver_launch.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "core/cuda/cuda_error.h"

namespace fuserlab::runtime::driver {
namespace {

// The driver ABI version these signatures are from (cuLaunchKernelEx came in
// 11.8, cuKernelGetFunction in 12.0).
constexpr unsigned kDriverAbi = 12000;

using CtxGetCurrentFn = CUresult (*)(CUcontext*);
using KernelGetFunctionFn = CUresult (*)(CUfunction*, CUkernel);
using LaunchKernelExFn = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
using GetErrorTextFn = CUresult (*)(CUresult, const char**);

struct Entries {
  CtxGetCurrentFn ctxGetCurrent = nullptr;
  KernelGetFunctionFn kernelGetFunction = nullptr;
  LaunchKernelExFn launchKernelEx = nullptr;
  GetErrorTextFn getErrorName = nullptr;
  GetErrorTextFn getErrorString = nullptr;
};

// Resolved once, on first use (the runtime has initialized the driver by
// then: every caller has a current device).
const Entries& entries() {
  static const Entries e = [] {
    Entries r;
    resolve("cuCtxGetCurrent", kDriverAbi, r.ctxGetCurrent);
    resolve("cuKernelGetFunction", kDriverAbi, r.kernelGetFunction);
    resolve("cuLaunchKernelEx", kDriverAbi, r.launchKernelEx);
    resolve("cuGetErrorName", kDriverAbi, r.getErrorName);
    resolve("cuGetErrorString", kDriverAbi, r.getErrorString);
    return r;
  }();
  return e;
}

}  // namespace

void* entryPoint(const char* symbol, unsigned abiVersion) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  checkCuda(
      cudaGetDriverEntryPointByVersion(symbol, &pointer, abiVersion, cudaEnableDefault, &found),
      std::string("cudaGetDriverEntryPointByVersion(\"") + symbol + "\")",
      "finding the CUDA driver's calls");
  if (found != cudaDriverEntryPointSuccess || pointer == nullptr) {
    throw CudaError(static_cast<int>(cudaErrorSymbolNotFound),
                    std::string("finding the CUDA driver's calls: the driver has no ") + symbol +
                        " (ABI version " + std::to_string(abiVersion) + "); a driver of CUDA " +
                        std::to_string(abiVersion / 1000) + "." +
                        std::to_string(abiVersion % 1000 / 10) + " or later is needed");
  }
  return pointer;
}

void* currentContext() {
  CUcontext context = nullptr;
  if (entries().ctxGetCurrent(&context) != CUDA_SUCCESS) return nullptr;
  return context;
}

void* kernelFunction(void* kernel, const std::string& what) {
  CUfunction function = nullptr;
  const CUresult result = entries().kernelGetFunction(&function, static_cast<CUkernel>(kernel));
  if (result != CUDA_SUCCESS) {
    throw CudaError(static_cast<int>(result),
                    what + ": cuKernelGetFunction failed: " + errorText(result));
  }
  return function;
}

int launch(void* function, const LaunchShape& shape, void** args, void* stream) {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = shape.grid[0];
  config.gridDimY = shape.grid[1];
  config.gridDimZ = shape.grid[2];
  config.blockDimX = shape.block[0];
  config.blockDimY = shape.block[1];
  config.blockDimZ = shape.block[2];
  config.sharedMemBytes = shape.dynamicSharedMemoryBytes;
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = shape.afterKernel ? &attribute : nullptr;
  config.numAttrs = shape.afterKernel ? 1 : 0;
  return static_cast<int>(
      entries().launchKernelEx(&config, static_cast<CUfunction>(function), args, nullptr));
}

std::string errorText(int result) {
  const auto code = static_cast<CUresult>(result);
  const char* name = nullptr;
  const char* text = nullptr;
  if (entries().getErrorName(code, &name) != CUDA_SUCCESS || name == nullptr) {
    return "CUresult " + std::to_string(result);
  }
  if (entries().getErrorString(code, &text) != CUDA_SUCCESS || text == nullptr) {
    return name;
  }
  return std::string(name) + " (" + text + ")";
}

}  // namespace fuserlab::runtime::driver
