// GeneratedKernel: one segment as CUDA C, and the contract between code
// generation and the runtime that compiles and launches it.
//
// Kernel ABI. The kernel is `extern "C" __global__ void <name>(...)` with one
// parameter per entry of `parameters`, in order:
//   - a tensor: `fl::Tensor<T, R>` by value (defined in the device helper
//     header, deviceHelperSource()): { T* data; int64_t size[R];
//     int64_t stride[R]; } over the tensor's logical axes without reduction
//     axes, strides in elements (0 for broadcast / expanded axes). R = 0 is
//     `fl::Tensor<T, 0>` { T* data; }.
//   - a scalar: its C type by value (bool, int32_t, int64_t, float, double;
//     Half/BFloat16 scalars are passed as float).
//   - last, if workspaceBytes > 0: `void* workspace`, zero-filled before
//     every launch (grid reductions' partial results and semaphores).
// T is the element type: bool, int32_t, int64_t, fl::half, fl::bfloat16,
// float, double.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/data_type.h"

namespace fuserlab::codegen {

//! CUDA's launch limits on a grid's x and its y and z extents.
inline constexpr int64_t kMaxGridX = 2147483647;
inline constexpr int64_t kMaxGridYZ = 65535;

struct LaunchConfig {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamicSharedMemoryBytes = 0;
  //! Blocks per thread-block cluster (sm_90+); {1, 1, 1}: no clusters. The
  //! kernel declares it (__cluster_dims__), so a plain launch forms the
  //! clusters; the grid is a multiple of it.
  std::array<int64_t, 3> cluster{1, 1, 1};
};

struct KernelParameter {
  enum class Kind : uint8_t { Tensor, Scalar };
  Kind kind = Kind::Tensor;
  //! Which segment-fusion value: exactly one of these is >= 0.
  int segmentInput = -1;
  int segmentOutput = -1;
  ir::DataType dtype = ir::DataType::Float;
  int rank = 0;      //!< tensors only
  std::string name;  //!< as in the source, e.g. "T0"
  //! A tensor input's strides as the kernel has them built in (0 on axes of
  //! size 1), from the layout it was generated for; empty where the kernel
  //! reads them at run time. The executor builds a kernel per input layout
  //! (run_keys.h) and checks the tensor it binds against these.
  std::vector<int64_t> builtInStrides;
  //! A tensor's sizes as the kernel has them built in (a pointwise kernel's
  //! reference output: every extent of its index walk a constant); empty
  //! where the kernel reads them at run time. The executor builds a kernel
  //! per set of input sizes (run_keys.h) and checks the tensor it binds.
  std::vector<int64_t> builtInSizes;
};

struct GeneratedKernel {
  std::string name;    //!< the __global__ function's name
  std::string source;  //!< includes "fuserlab_device.cuh"
  //! NVRTC options the params ask for (e.g. "--maxrregcount=64"); the
  //! architecture option is added by the compiler.
  std::vector<std::string> options;
  LaunchConfig launch;  //!< for the sizes the kernel was generated for
  std::vector<KernelParameter> parameters;
  bool int64Indexing = false;
  int64_t workspaceBytes = 0;
  //! Whether the workspace must be zeroed before every launch (grid_sync's
  //! counters keep rising within a launch). Otherwise the kernel leaves its
  //! counters at zero (arrive_last) and the executor zeroes the workspace
  //! once, when it allocates it: no memset before each launch.
  bool zeroWorkspaceEachLaunch = true;
  //! Whether the body opens with kKernelEntry: the runtime may then launch
  //! the kernel as a programmatic dependent of the kernel before it (sm_90+),
  //! so its launch and block scheduling overlap that kernel's last blocks.
  bool waitsForPriorGrids = false;
};

//! The first statement of every generated kernel's body (see
//! fl::wait_for_prior_grids in the device header): nothing reads or writes
//! global memory before it.
inline constexpr const char* kKernelEntry = "  fl::wait_for_prior_grids();\n";

}  // namespace fuserlab::codegen
