// Launch shapes of an inner persistent kernel over short rows: the softmax
// example's ([2, 16, 256, 256] bf16, 8192 rows of 256, scale 0.125) kernel
// as generated against hand-edited copies that give each warp several rows
// (the loads of all of them issued together, as Triton's per-row-block
// kernels do) and fewer warps a block. Each cubin is checked against a CPU
// softmax, then timed as `fuserlab-cli bench` times (harness_bench.h).
//
// Not built by CMake; on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o inner_rows_variants
//   tests/perf/harness/inner_rows_variants.cu
//   ./inner_rows_variants LABEL:CUBIN:KERNEL:GRID:BX:BY ...
// The cubins come from `fuserlab-cli compile resources/examples/softmax.py
// --out DIR` and edited copies of its kernel, compiled with nvrtc_cubin.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"

struct Tensor4 {
  void* data;
  long long size[4];
  long long stride[4];
};

static uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

static float fromBf16(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LABEL:CUBIN:KERNEL:GRID:BX:BY ...\n", argv[0]);
    return 2;
  }
  const long long rows = 8192, cols = 256;
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, softmax of [%lld, %lld] bf16\n", prop.name, rows, cols);
  std::vector<uint16_t> host(rows * cols);
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.f, 4.f);
  for (auto& x : host) x = toBf16(normal(gen));
  std::vector<float> want(rows * cols);
  for (long long r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (long long c = 0; c < cols; ++c) m = std::max(m, 0.125 * fromBf16(host[r * cols + c]));
    for (long long c = 0; c < cols; ++c) s += std::exp(0.125 * fromBf16(host[r * cols + c]) - m);
    for (long long c = 0; c < cols; ++c) {
      want[r * cols + c] = float(std::exp(0.125 * fromBf16(host[r * cols + c]) - m) / s);
    }
  }
  Flush flush(prop);
  void *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, rows * cols * 2));
  CHECK(cudaMalloc(&out, rows * cols * 2));
  CHECK(cudaMemcpy(in, host.data(), rows * cols * 2, cudaMemcpyHostToDevice));
  Tensor4 a{in, {2, 16, 256, 256}, {16 * 256 * 256, 256 * 256, 256, 1}};
  Tensor4 b{out, {2, 16, 256, 256}, {16 * 256 * 256, 256 * 256, 256, 1}};
  void* args[] = {&a, &b};
  const double bytesPerUs = copyBytesPerUs();
  const double bytes = double(rows * cols) * 4;
  std::vector<uint16_t> got(rows * cols);
  for (int round = 0; round < 3; ++round) {
    for (int i = 1; i < argc; ++i) {
      const std::vector<std::string> spec = splitSpec(argv[i]);
      if (spec.size() != 6) {
        std::fprintf(stderr, "expected LABEL:CUBIN:KERNEL:GRID:BX:BY, got %s\n", argv[i]);
        return 2;
      }
      const cudaKernel_t kernel = loadCubinKernel(spec[1], spec[2].c_str());
      const dim3 grid(std::atoi(spec[3].c_str()));
      const dim3 block(std::atoi(spec[4].c_str()), std::atoi(spec[5].c_str()));
      auto launch = [&] {
        CHECK(
            cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, 0, nullptr));
      };
      CHECK(cudaMemset(out, 0xff, rows * cols * 2));
      launch();
      CHECK(cudaMemcpy(got.data(), out, rows * cols * 2, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (long long k = 0; k < rows * cols; ++k) {
        worst = std::max(worst, double(std::fabs(fromBf16(got[k]) - want[k])));
      }
      const double us = timeUs(flush, launch);
      std::printf("round %d  %-12s %8.2f us  %5.1f%% of copy bandwidth  max error %.2e%s\n", round,
                  spec[0].c_str(), us, 100.0 * bytes / us / bytesPerUs, worst,
                  worst > 8e-3 ? "  WRONG" : "");
    }
  }
  return 0;
}
