// NVRTC compilation of generated kernels: a GeneratedKernel becomes a CUBIN
// for one GPU architecture. Needs neither a GPU nor a driver (NVRTC is a
// library of the toolkit), so `fuserlab-cli compile` and the CI tests run
// anywhere.
//
// The kernel's source is compiled with the device helper header
// (codegen::deviceHelperSource) as the named header "fuserlab_device.cuh",
// `--gpu-architecture=sm_XX -default-device --std=c++17`, and the options
// the kernel asks for. A compile error is a UserError carrying NVRTC's log and
// the numbered source lines around each error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/codegen/kernel.h"

namespace fuserlab::runtime {

struct NvrtcOutput {
  std::vector<char> cubin;  //!< the CUBIN image (an ELF file)
  std::string log;          //!< NVRTC's log (warnings); may be empty
  int nvrtcMajor = 0;       //!< nvrtcVersion()
  int nvrtcMinor = 0;
  int computeCapability = 0;  //!< e.g. 90
  //! Every option passed to NVRTC, architecture included.
  std::vector<std::string> options;
  double compileMilliseconds = 0;
};

//! NVRTC's version as "13.0".
std::string nvrtcVersionString();

//! The architectures this NVRTC can compile CUBIN for (e.g. 75, 80, 90).
std::vector<int> nvrtcSupportedArchitectures();

//! Compiles `kernel` for compute capability `computeCapability` (major * 10 +
//! minor, e.g. 80 or 90). UserError when the architecture is not supported or
//! the source does not compile (log and source lines in the message).
NvrtcOutput compileWithNvrtc(const codegen::GeneratedKernel& kernel, int computeCapability);

}  // namespace fuserlab::runtime
