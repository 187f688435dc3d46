// transpose + add (the suite's transpose_add_8192x4096: out = a + b^T, bf16
// [8192, 4096] + permute(bf16 [4096, 8192])) from cubins: the kernel
// FuserLab generated (`fuserlab-cli compile ... --out DIR`) and hand-edited
// copies of it, compiled as FuserLab's NVRTC compiler compiles them. Each
// is launched as the executor launches it (grid 8192, 256 threads), its
// output checked bit for bit against the CPU's bf16 sum, then timed with
// bench's protocol (harness_bench.h), all cubins in alternation.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o transpose_add_variants transpose_add_variants.cu
//   ./transpose_add_variants FILE.cubin[:GRID[:THREADS]] ...
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"

namespace {

constexpr long long kRows = 8192, kCols = 4096;

struct Tensor2 {
  void* data;
  long long size[2], stride[2];
};

struct Variant {
  std::string label;
  cudaKernel_t kernel;
  dim3 grid, block;
};

Variant load(const std::string& spec) {
  const std::vector<std::string> f = splitSpec(spec);
  Variant v;
  v.label = spec;
  v.kernel = loadCubinKernel(f[0], "transpose_seg0");
  v.grid = dim3(f.size() > 1 ? std::stoi(f[1]) : 8192);
  v.block = dim3(f.size() > 2 ? std::stoi(f[2]) : 256);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.cubin[:GRID[:THREADS]] ...\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Flush flush(prop);
  const double copy = copyBytesPerUs();
  const double bytes = 3.0 * kRows * kCols * 2;
  std::printf("device: %s; copy bandwidth %.0f GB/s; %.0f MB moved\n", prop.name, copy / 1e3,
              bytes / 1e6);

  std::vector<__nv_bfloat16> a(kRows * kCols), b(kRows * kCols);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (auto& x : a) x = __float2bfloat16(normal(rng));
  for (auto& x : b) x = __float2bfloat16(normal(rng));
  std::vector<__nv_bfloat16> want(kRows * kCols);
  for (long long r = 0; r < kRows; ++r)
    for (long long c = 0; c < kCols; ++c)
      want[r * kCols + c] =
          __float2bfloat16(__bfloat162float(a[r * kCols + c]) + __bfloat162float(b[c * kRows + r]));
  void *da, *db, *dout;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, b.size() * 2));
  CHECK(cudaMalloc(&dout, a.size() * 2));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  Tensor2 t0{da, {kRows, kCols}, {kCols, 1}};
  Tensor2 t1{db, {kCols, kRows}, {kRows, 1}};
  Tensor2 t6{dout, {kRows, kCols}, {kCols, 1}};
  void* args[] = {&t0, &t1, &t6};

  std::vector<Variant> variants;
  for (int i = 1; i < argc; ++i) variants.push_back(load(argv[i]));
  int failures = 0;
  for (int round = 0; round < 3; ++round) {
    for (const Variant& v : variants) {
      auto launch = [&] {
        CHECK(cudaLaunchKernel(static_cast<const void*>(v.kernel), v.grid, v.block, args, 0,
                               nullptr));
        CHECK(cudaGetLastError());
      };
      CHECK(cudaMemset(dout, 0xff, a.size() * 2));
      launch();
      CHECK(cudaDeviceSynchronize());
      std::vector<__nv_bfloat16> got(a.size());
      CHECK(cudaMemcpy(got.data(), dout, got.size() * 2, cudaMemcpyDeviceToHost));
      long long wrong = 0;
      for (size_t k = 0; k < got.size(); ++k) {
        wrong += __bfloat16_as_ushort(got[k]) != __bfloat16_as_ushort(want[k]);
      }
      failures += wrong != 0;
      const double us = timeUs(flush, launch);
      std::printf("round %d  %-40s %7.2f us  %5.1f%% of copy BW  %s\n", round, v.label.c_str(), us,
                  100.0 * bytes / us / copy, wrong == 0 ? "exact" : "WRONG");
    }
  }
  return failures == 0 ? 0 : 1;
}
