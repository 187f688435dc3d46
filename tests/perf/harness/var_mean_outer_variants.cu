// Outer var_mean (var_mean over the rows of bf16 [ROWS, COLS] in float:
// BatchNorm's statistics) as generated kernels, timed as `fuserlab-cli
// bench` times a kernel (harness_bench.h) and checked against the CPU's
// double mean and population variance of the same random input.
//
// It takes cubins of the kernel `fuserlab-cli compile
// EXTRA/var_mean_outer_16384x2048.py --out DIR` writes (the extra cases:
// `tests/perf/suite/gen_suite.py --extra EXTRA`), as generated or edited by
// hand and compiled by `nvrtc_cubin DIR/KERNEL.cu OUT.cubin` (NVRTC with the
// executor's options), so a change to the generated code can be measured
// before the emitter makes it.
// Not built by CMake; on a GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o var_mean_outer_variants \
//     tests/perf/harness/var_mean_outer_variants.cu
//   ./var_mean_outer_variants [--size ROWSxCOLS] FILE:GX:GY:BX:BY:SMEM[:WORKSPACE] ...
//
// Each cubin's kernel is `reduction_seg0(T0, var, mean)`, launched as the
// executor launches it (the cluster shape is compiled in). The list is
// timed twice, forwards then backwards, so drift shows.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"

namespace {

struct Tensor2 {
  const void* data;
  long long size[2], stride[2];
};
struct Tensor1 {
  void* data;
  long long size[1], stride[1];
};

struct Problem {
  int rows = 16384, cols = 2048;
  const __nv_bfloat16* in = nullptr;
  float* var = nullptr;
  float* mean = nullptr;
  std::vector<double> refMean, refVar;
  double copyBytesPerUs = 0;
  int failures = 0;
};

// Checks one launch's outputs (poisoned first) against the reference, then
// times it; prints one line.
void runCubin(Problem& p, Flush& flush, const std::string& spec) {
  const std::vector<std::string> f = splitSpec(spec);
  if (f.size() != 6 && f.size() != 7) {
    std::printf("bad spec %s (want FILE:GX:GY:BX:BY:SMEM[:WORKSPACE])\n", spec.c_str());
    ++p.failures;
    return;
  }
  const cudaKernel_t k = loadCubinKernel(f[0], "reduction_seg0");
  Tensor2 t0{p.in, {p.rows, p.cols}, {p.cols, 1}};
  Tensor1 t5{p.var, {p.cols}, {1}};
  Tensor1 t2{p.mean, {p.cols}, {1}};
  // A workspace split's kernel takes the workspace (zeroed once: its
  // semaphores set themselves back to zero) as a 4th argument.
  void* workspace = nullptr;
  if (f.size() == 7) {
    const size_t bytes = std::stoul(f[6]);
    CHECK(cudaMalloc(&workspace, bytes));
    CHECK(cudaMemset(workspace, 0, bytes));
  }
  void* args[] = {&t0, &t5, &t2, &workspace};
  const dim3 grid(std::stoi(f[1]), std::stoi(f[2])), block(std::stoi(f[3]), std::stoi(f[4]));
  const size_t smem = std::stoul(f[5]);
  if (smem > 48 * 1024) {
    CHECK(cudaFuncSetAttribute(static_cast<const void*>(k),
                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  }
  auto launch = [&] {
    CHECK(cudaLaunchKernel(static_cast<const void*>(k), grid, block, args, smem, nullptr));
    CHECK(cudaGetLastError());
  };
  CHECK(cudaMemset(p.var, 0xff, p.cols * sizeof(float)));
  CHECK(cudaMemset(p.mean, 0xff, p.cols * sizeof(float)));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> var(p.cols), mean(p.cols);
  CHECK(cudaMemcpy(var.data(), p.var, p.cols * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(mean.data(), p.mean, p.cols * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int c = 0; c < p.cols; ++c) {
    const bool ok = std::fabs(mean[c] - p.refMean[c]) <= 1e-5 * std::fabs(p.refMean[c]) + 1e-5 &&
                    std::fabs(var[c] - p.refVar[c]) <= 1e-4 * p.refVar[c] + 1e-5;
    if (!ok && bad++ == 0) {
      std::printf("  column %d: mean %.7g (want %.7g), var %.7g (want %.7g)\n", c, mean[c],
                  p.refMean[c], var[c], p.refVar[c]);
    }
  }
  const double us = timeUs(flush, launch);
  const double bytes = (double)p.rows * p.cols * 2 + 2.0 * p.cols * 4;
  std::printf("%-64s %7.2f us  %5.1f%% of copy BW  check %s\n", spec.c_str(), us,
              100.0 * bytes / us / p.copyBytesPerUs, bad == 0 ? "ok" : "FAILED");
  if (bad != 0) ++p.failures;
  if (workspace != nullptr) CHECK(cudaFree(workspace));
}

}  // namespace

int main(int argc, char** argv) {
  Problem p;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--size") {
    if (std::sscanf(argv[2], "%dx%d", &p.rows, &p.cols) != 2) {
      std::fprintf(stderr, "bad --size %s (want ROWSxCOLS)\n", argv[2]);
      return 2;
    }
    first = 3;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs; var_mean over the rows of bf16 [%d, %d]\n", prop.name,
              prop.multiProcessorCount, p.rows, p.cols);
  Flush flush(prop);
  p.copyBytesPerUs = copyBytesPerUs();
  const double bytes = (double)p.rows * p.cols * 2 + 2.0 * p.cols * 4;
  std::printf("copy bandwidth %.0f GB/s; 85%% of it: %.2f us\n", p.copyBytesPerUs / 1e3,
              bytes / (0.85 * p.copyBytesPerUs));

  // Random bf16 input, mean 3 and std 1 per element (BatchNorm inputs are
  // not centred), and its column statistics in double.
  std::vector<__nv_bfloat16> host((size_t)p.rows * p.cols);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(3.0f, 1.0f);
  std::vector<double> sum(p.cols, 0.0), sq(p.cols, 0.0);
  for (int r = 0; r < p.rows; ++r) {
    for (int c = 0; c < p.cols; ++c) {
      const __nv_bfloat16 x = __float2bfloat16(normal(rng));
      host[(size_t)r * p.cols + c] = x;
      sum[c] += __bfloat162float(x);
    }
  }
  p.refMean.resize(p.cols);
  p.refVar.resize(p.cols);
  for (int c = 0; c < p.cols; ++c) p.refMean[c] = sum[c] / p.rows;
  for (int r = 0; r < p.rows; ++r) {
    for (int c = 0; c < p.cols; ++c) {
      const double d = __bfloat162float(host[(size_t)r * p.cols + c]) - p.refMean[c];
      sq[c] += d * d;
    }
  }
  for (int c = 0; c < p.cols; ++c) p.refVar[c] = sq[c] / p.rows;
  __nv_bfloat16* in;
  CHECK(cudaMalloc(&in, host.size() * sizeof(__nv_bfloat16)));
  CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  p.in = in;
  CHECK(cudaMalloc(&p.var, p.cols * sizeof(float)));
  CHECK(cudaMalloc(&p.mean, p.cols * sizeof(float)));

  for (int i = first; i < argc; ++i) runCubin(p, flush, argv[i]);
  std::printf("again, backwards:\n");
  for (int i = argc - 1; i >= first; --i) runCubin(p, flush, argv[i]);
  std::printf("%d launch(es) failed the check\n", p.failures);
  return p.failures == 0 ? 0 : 1;
}
