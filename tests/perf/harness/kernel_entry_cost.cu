// What programmatic-dependent-launch statements at a kernel's start cost it
// when it is launched plainly, by variant of one generated kernel:
// griddepcontrol.wait (codegen::kKernelEntry) and
// griddepcontrol.launch_dependents (an early trigger, tried and dropped),
// both, each alone, neither.
// The kernels are FuserLab's, written by `fuserlab-cli compile FILE --out
// DIR` and edited by hand into one cubin per variant; each takes
// (fl::Tensor<float, 2> in, fl::Tensor<bf16, 2> out), as the cast chain of
// the suite does. Timed as `fuserlab-cli bench` times (harness_bench.h).
//
// Not built by CMake; on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o kernel_entry_cost tests/perf/harness/kernel_entry_cost.cu
//   ./kernel_entry_cost ROWS COLS LABEL:CUBIN:KERNEL[:BLOCKS] ...
// (BLOCKS: the kernel's grid, as `compile` printed it, where it is not one
// block of 128 threads per 512 elements.)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"

struct Tensor2 {
  void* data;
  long long size[2];
  long long stride[2];
};

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROWS COLS LABEL:CUBIN:KERNEL ...\n", argv[0]);
    return 2;
  }
  const long long rows = std::atoll(argv[1]), cols = std::atoll(argv[2]);
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, [%lld, %lld] float -> bf16\n", prop.name, rows, cols);
  Flush flush(prop);
  void *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, rows * cols * 4));
  CHECK(cudaMalloc(&out, rows * cols * 2));
  CHECK(cudaMemset(in, 0x3f, rows * cols * 4));
  Tensor2 a{in, {rows, cols}, {cols, 1}};
  Tensor2 b{out, {rows, cols}, {cols, 1}};
  void* args[] = {&a, &b};
  const double bytesPerUs = copyBytesPerUs();
  const double bytes = double(rows * cols) * 6;
  // 128 threads, 4 elements a thread (the suite's pointwise params).
  const dim3 grid(static_cast<unsigned>((rows * cols + 511) / 512)), block(128);
  for (int round = 0; round < 2; ++round) {
    for (int i = 3; i < argc; ++i) {
      const std::vector<std::string> spec = splitSpec(argv[i]);
      if (spec.size() != 3 && spec.size() != 4) {
        std::fprintf(stderr, "expected LABEL:CUBIN:KERNEL[:BLOCKS], got %s\n", argv[i]);
        return 2;
      }
      const cudaKernel_t kernel = loadCubinKernel(spec[1], spec[2].c_str());
      const double us = timeUs(flush, [&] {
        CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                               spec.size() == 4 ? dim3(std::stoul(spec[3])) : grid, block, args, 0,
                               nullptr));
      });
      std::printf("round %d  %-24s %8.2f us  %5.1f%% of copy bandwidth\n", round, spec[0].c_str(),
                  us, 100.0 * bytes / us / bytesPerUs);
    }
  }
  return 0;
}
