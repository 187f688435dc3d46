// Host time of one kernel launch, the way FuserLab launches (a kernel that
// NVRTC compiled, loaded with cudaLibraryLoadData, launched as a
// cudaKernel_t with cudaLaunchKernel on the legacy default stream, then
// cudaGetLastError) against the alternatives: another stream, the driver
// API on the kernel's CUfunction, a kernel of the executable itself. Each
// figure is the median over 400 launches of the host time of one launch
// after a synchronize (what `fuserlab-cli bench` counts for a cached run),
// and of launches back to back (synchronized every 50, not timed).
//
// Not built by CMake; on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o launch_cost tests/perf/harness/launch_cost.cu -lnvrtc -lcuda
//   ./launch_cost
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#define CHECK_CU(x)                                                             \
  do {                                                                          \
    CUresult e_ = (x);                                                          \
    if (e_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct Args {
  // As a generated kernel's: two tensors of pointer, sizes and strides.
  void* data0;
  long long sizes0[2], strides0[2];
  void* data1;
  long long sizes1[1], strides1[1];
};

__global__ void builtIn(Args) {}

static double nowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static void measure(const char* label, const std::function<void()>& launch) {
  for (int i = 0; i < 50; ++i) launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> single, burst;
  for (int i = 0; i < 400; ++i) {
    CHECK(cudaDeviceSynchronize());
    const double t0 = nowUs();
    launch();
    single.push_back(nowUs() - t0);
  }
  for (int round = 0; round < 8; ++round) {
    CHECK(cudaDeviceSynchronize());
    const double t0 = nowUs();
    for (int i = 0; i < 50; ++i) launch();
    burst.push_back((nowUs() - t0) / 50);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("%-62s one after a sync %6.2f us   back to back %6.2f us\n", label, median(single),
              median(burst));
}

int main() {
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);

  const char* source =
      "struct Args { void* data0; long long sizes0[2], strides0[2]; void* data1;"
      " long long sizes1[1], strides1[1]; };\n"
      "extern \"C\" __global__ void empty_kernel(Args) {}\n";
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source, "empty.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return 1;
  const char* options[] = {"--gpu-architecture=sm_90"};
  if (nvrtcCompileProgram(program, 1, options) != NVRTC_SUCCESS) return 1;
  size_t cubinBytes = 0;
  nvrtcGetCUBINSize(program, &cubinBytes);
  std::vector<char> cubin(cubinBytes);
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);

  cudaLibrary_t library;
  CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel;
  CHECK(cudaLibraryGetKernel(&kernel, library, "empty_kernel"));

  Args args{};
  void* argv[] = {&args};
  const dim3 grid(64, 8), block(8, 16);

  cudaStream_t nonBlocking, blocking;
  CHECK(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&blocking));

  auto libraryLaunch = [&](cudaStream_t stream, bool check) {
    CHECK(cudaLaunchKernel(static_cast<const void*>(kernel), grid, block, argv, 0, stream));
    if (check) CHECK(cudaGetLastError());
  };
  measure("library kernel, legacy stream, + cudaGetLastError (FuserLab)",
          [&] { libraryLaunch(nullptr, true); });
  measure("library kernel, legacy stream", [&] { libraryLaunch(nullptr, false); });
  measure("library kernel, non-blocking stream", [&] { libraryLaunch(nonBlocking, true); });
  measure("library kernel, blocking stream", [&] { libraryLaunch(blocking, true); });
  measure("library kernel, per-thread default stream",
          [&] { libraryLaunch(cudaStreamPerThread, true); });

  // The driver API on the same kernel's CUfunction for this context.
  CUkernel cuKernel = reinterpret_cast<CUkernel>(kernel);
  CUcontext context;
  CHECK_CU(cuCtxGetCurrent(&context));
  CUfunction function;
  CHECK_CU(cuKernelGetFunction(&function, cuKernel));
  measure("driver cuLaunchKernel (CUfunction), legacy stream", [&] {
    CHECK_CU(cuLaunchKernel(function, 64, 8, 1, 8, 16, 1, 0, nullptr, argv, nullptr));
  });
  measure("driver cuLaunchKernel (CUfunction), non-blocking stream", [&] {
    CHECK_CU(cuLaunchKernel(function, 64, 8, 1, 8, 16, 1, 0,
                            reinterpret_cast<CUstream>(nonBlocking), argv, nullptr));
  });
  measure("driver cuLaunchKernel (CUkernel), legacy stream", [&] {
    CHECK_CU(cuLaunchKernel(reinterpret_cast<CUfunction>(cuKernel), 64, 8, 1, 8, 16, 1, 0, nullptr,
                            argv, nullptr));
  });
  measure("built-in kernel <<<>>>, legacy stream", [&] { builtIn<<<grid, block>>>(args); });
  measure("built-in kernel <<<>>>, non-blocking stream",
          [&] { builtIn<<<grid, block, 0, nonBlocking>>>(args); });
  // FuserLab's own kernels (`fuserlab-cli compile tests/perf/suite/X.py
  // --out DIR`), loaded from their cubins, launched on real buffers with the
  // generated launch shape: whether the kernel, not the path, costs more.
  struct Generated {
    const char* file;
    dim3 grid, block;
    size_t smem;
  };
  const Generated generated[] = {{"build-gpu/carry/col_sum.cubin", dim3(64, 8), dim3(8, 16), 1024},
                                 {"build-gpu/carry/row_sum.cubin", dim3(8192), dim3(128), 16}};
  struct Tensor2 {
    void* data;
    long long size[2], stride[2];
  };
  struct Tensor1 {
    void* data;
    long long size[1], stride[1];
  };
  void* in = nullptr;
  void* out = nullptr;
  CHECK(cudaMalloc(&in, size_t{8192} * 4096 * 2));
  CHECK(cudaMemset(in, 0, size_t{8192} * 4096 * 2));
  CHECK(cudaMalloc(&out, size_t{8192} * 4));
  for (const Generated& g : generated) {
    std::ifstream file(g.file, std::ios::binary);
    if (!file) {
      std::printf("%s: not found, skipped\n", g.file);
      continue;
    }
    std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    cudaLibrary_t lib;
    CHECK(cudaLibraryLoadData(&lib, image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    cudaKernel_t k;
    CHECK(cudaLibraryGetKernel(&k, lib, "reduction_seg0"));
    const bool colSum = g.grid.y > 1;
    Tensor2 t0{in, {colSum ? 8192 : 8192, 4096}, {4096, 1}};
    Tensor1 t2{out, {colSum ? 4096 : 8192}, {1}};
    void* kargs[] = {&t0, &t2};
    std::string label = std::string("generated ") + (colSum ? "col_sum" : "row_sum") +
                        ", library kernel, legacy stream, + check";
    measure(label.c_str(), [&] {
      CHECK(cudaLaunchKernel(static_cast<const void*>(k), g.grid, g.block, kargs, g.smem, nullptr));
      CHECK(cudaGetLastError());
    });
    label = std::string("generated ") + (colSum ? "col_sum" : "row_sum") + ", non-blocking stream";
    measure(label.c_str(), [&] {
      CHECK(cudaLaunchKernel(static_cast<const void*>(k), g.grid, g.block, kargs, g.smem,
                             nonBlocking));
      CHECK(cudaGetLastError());
    });
    label = std::string("empty kernel, ") + (colSum ? "col_sum" : "row_sum") + "'s grid";
    measure(label.c_str(), [&] {
      CHECK(cudaLaunchKernel(static_cast<const void*>(kernel), g.grid, g.block, argv, 0, nullptr));
      CHECK(cudaGetLastError());
    });
  }
  // Again, for the spread.
  measure("library kernel, legacy stream, + cudaGetLastError (again)",
          [&] { libraryLaunch(nullptr, true); });
  measure("library kernel, non-blocking stream (again)", [&] { libraryLaunch(nonBlocking, true); });
  return 0;
}
