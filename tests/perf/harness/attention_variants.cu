// sdpfa_fwd's generated kernels (q, k, v bf16 [B, H, S, E], causal or not;
// out bf16 and the log-sum-exp float), as generated or hand-edited, checked
// against the CPU's double result on random inputs and timed as `fuserlab-cli
// bench` times a kernel (harness_bench.h).
//
// Cubins: `fuserlab-cli compile FILE --inputs BxHxSxE:bf16,... --out DIR`
// on a fusion of sdpfa_fwd alone with its two outputs (tests/codegen/
// test_attention_emitter.cpp's script), then `nvrtc_cubin DIR/KERNEL.cu
// OUT.cubin`. Not built by CMake; on a GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o attention_variants \
//     tests/perf/harness/attention_variants.cu
//   ./attention_variants BxHxSxE causal|full SCALE FILE:KERNEL:GX:GY:GZ:BX:SMEM ...
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"

namespace {

struct Tensor4 {
  void* data;
  long long size[4], stride[4];
};
struct Tensor3 {
  void* data;
  long long size[3], stride[3];
};

struct Problem {
  int B = 2, H = 16, S = 256, E = 64;
  bool causal = true;
  double scale = 0.125;
  __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr;
  float* lse = nullptr;
  std::vector<double> refOut, refLse;
  int failures = 0;
};

void reference(Problem& p, const std::vector<__nv_bfloat16>& q, const std::vector<__nv_bfloat16>& k,
               const std::vector<__nv_bfloat16>& v) {
  const size_t rows = (size_t)p.B * p.H * p.S;
  p.refOut.assign(rows * p.E, 0.0);
  p.refLse.assign(rows, 0.0);
  std::vector<double> s(p.S);
  for (size_t bh = 0; bh < (size_t)p.B * p.H; ++bh) {
    const size_t base = bh * p.S * p.E;
    for (int i = 0; i < p.S; ++i) {
      const int visible = p.causal ? i + 1 : p.S;
      double mx = -INFINITY;
      for (int j = 0; j < visible; ++j) {
        double dot = 0;
        for (int e = 0; e < p.E; ++e) {
          dot += (double)__bfloat162float(q[base + (size_t)i * p.E + e]) *
                 __bfloat162float(k[base + (size_t)j * p.E + e]);
        }
        s[j] = dot * p.scale;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int j = 0; j < visible; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int e = 0; e < p.E; ++e) {
        double acc = 0;
        for (int j = 0; j < visible; ++j)
          acc += s[j] * __bfloat162float(v[base + (size_t)j * p.E + e]);
        p.refOut[base + (size_t)i * p.E + e] = acc / sum;
      }
      p.refLse[bh * p.S + i] = mx + std::log(sum);
    }
  }
}

void runCubin(Problem& p, Flush& flush, const std::string& spec) {
  const std::vector<std::string> f = splitSpec(spec);
  if (f.size() != 7) {
    std::printf("bad spec %s (want FILE:KERNEL:GX:GY:GZ:BX:SMEM)\n", spec.c_str());
    ++p.failures;
    return;
  }
  const cudaKernel_t kernel = loadCubinKernel(f[0], f[1].c_str());
  const long long B = p.B, H = p.H, S = p.S, E = p.E;
  Tensor4 tq{p.q, {B, H, S, E}, {H * S * E, S * E, E, 1}};
  Tensor4 tk{p.k, {B, H, S, E}, {H * S * E, S * E, E, 1}};
  Tensor4 tv{p.v, {B, H, S, E}, {H * S * E, S * E, E, 1}};
  Tensor4 to{p.out, {B, H, S, E}, {H * S * E, S * E, E, 1}};
  Tensor3 tl{p.lse, {B, H, S}, {H * S, S, 1}};
  void* args[] = {&tq, &tk, &tv, &to, &tl};
  const dim3 grid(std::stoi(f[2]), std::stoi(f[3]), std::stoi(f[4])), block(std::stoi(f[5]));
  const size_t smem = std::stoul(f[6]);
  if (smem > 48 * 1024) {
    CHECK(cudaFuncSetAttribute(static_cast<const void*>(kernel),
                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  }
  auto launch = [&] {
    CHECK(cudaLaunchKernel(static_cast<const void*>(kernel), grid, block, args, smem, nullptr));
    CHECK(cudaGetLastError());
  };
  const size_t n = (size_t)B * H * S * E;
  CHECK(cudaMemset(p.out, 0xff, n * 2));
  CHECK(cudaMemset(p.lse, 0xff, (size_t)B * H * S * 4));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> out(n);
  std::vector<float> lse((size_t)B * H * S);
  CHECK(cudaMemcpy(out.data(), p.out, n * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(lse.data(), p.lse, lse.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::fabs(__bfloat162float(out[i]) - p.refOut[i]);
    worst = std::max(worst, d);
    if (!(d <= 2e-2 * std::fabs(p.refOut[i]) + 1e-2) && bad++ == 0) {
      std::printf("  out[%zu] %.6g (want %.6g)\n", i, __bfloat162float(out[i]), p.refOut[i]);
    }
  }
  for (size_t i = 0; i < lse.size(); ++i) {
    if (!(std::fabs(lse[i] - p.refLse[i]) <= 1e-4 * std::fabs(p.refLse[i]) + 1e-4) && bad++ == 0) {
      std::printf("  lse[%zu] %.7g (want %.7g)\n", i, lse[i], p.refLse[i]);
    }
  }
  const double us = timeUs(flush, launch);
  const double flops = 4.0 * B * H * S * S * E * (p.causal ? 0.5 : 1.0);
  std::printf("%-56s %8.2f us  %6.1f TFLOP/s  max |out - ref| %.3g  check %s\n", spec.c_str(), us,
              flops / us * 1e-6, worst, bad == 0 ? "ok" : "FAILED");
  if (bad != 0) ++p.failures;
}

}  // namespace

int main(int argc, char** argv) {
  Problem p;
  if (argc < 5 || std::sscanf(argv[1], "%dx%dx%dx%d", &p.B, &p.H, &p.S, &p.E) != 4) {
    std::fprintf(stderr, "usage: %s BxHxSxE causal|full SCALE FILE:KERNEL:GX:GY:GZ:BX:SMEM ...\n",
                 argv[0]);
    return 2;
  }
  p.causal = std::string(argv[2]) == "causal";
  p.scale = std::stod(argv[3]);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; sdpfa_fwd q, k, v bf16 [%d, %d, %d, %d], %s, scale %g\n", prop.name, p.B,
              p.H, p.S, p.E, p.causal ? "causal" : "full", p.scale);
  Flush flush(prop);
  const size_t n = (size_t)p.B * p.H * p.S * p.E;
  std::vector<__nv_bfloat16> q(n), k(n), v(n);
  std::mt19937 rng(17);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    q[i] = __float2bfloat16(normal(rng));
    k[i] = __float2bfloat16(normal(rng));
    v[i] = __float2bfloat16(normal(rng));
  }
  reference(p, q, k, v);
  CHECK(cudaMalloc(&p.q, n * 2));
  CHECK(cudaMalloc(&p.k, n * 2));
  CHECK(cudaMalloc(&p.v, n * 2));
  CHECK(cudaMalloc(&p.out, n * 2));
  CHECK(cudaMalloc(&p.lse, (size_t)p.B * p.H * p.S * 4));
  CHECK(cudaMemcpy(p.q, q.data(), n * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p.k, k.data(), n * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p.v, v.data(), n * 2, cudaMemcpyHostToDevice));
  for (int i = 4; i < argc; ++i) runCubin(p, flush, argv[i]);
  std::printf("again, backwards:\n");
  for (int i = argc - 1; i >= 4; --i) runCubin(p, flush, argv[i]);
  std::printf("%d launch(es) failed the check\n", p.failures);
  return p.failures == 0 ? 0 : 1;
}
