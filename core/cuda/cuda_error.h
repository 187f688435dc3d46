// CudaError: a failed CUDA runtime call. Every call into the CUDA runtime is
// checked; the message says what FuserLab was doing (which segment, which
// kernel, which buffer) and the runtime's own error name and text, so a
// failure on a user's machine can be acted on without a debugger.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fuserlab::runtime {

//! A CUDA runtime call that did not return cudaSuccess.
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  //! The cudaError_t value.
  int code() const { return code_; }

 private:
  int code_;
};

//! Throws CudaError when `code` (a cudaError_t) is not cudaSuccess:
//! "<what>: <call> failed: cudaErrorIllegalAddress (an illegal memory access
//! was encountered)". Clears the runtime's sticky last error first.
void checkCuda(int code, std::string_view call, std::string_view what);

//! "cudaErrorX (text)" for a cudaError_t.
std::string cudaErrorText(int code);

}  // namespace fuserlab::runtime
