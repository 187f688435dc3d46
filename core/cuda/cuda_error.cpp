#include "core/cuda/cuda_error.h"

#include <cuda_runtime_api.h>

namespace fuserlab::runtime {

std::string cudaErrorText(int code) {
  const auto error = static_cast<cudaError_t>(code);
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

void checkCuda(int code, std::string_view call, std::string_view what) {
  if (code == cudaSuccess) return;
  // Non-sticky errors stay as the "last error" otherwise, and would be
  // reported again by an unrelated later call.
  (void)cudaGetLastError();
  std::string message;
  if (!what.empty()) message.append(what).append(": ");
  message.append(call).append(" failed: ").append(cudaErrorText(code));
  throw CudaError(code, message);
}

}  // namespace fuserlab::runtime
