// BatchNorm forward over a channels-last activation (the batch_norm_outer
// example: bf16 x [ROWS, COLS], float weight and bias [COLS]; out bf16,
// mean and invstd [COLS]) as generated outer persistent kernels: each cubin
// is checked against the CPU's double result, timed as `fuserlab-cli bench`
// times a kernel (harness_bench.h), and, where it was instrumented by
// trace_marks.py (a global `fl_trace` in the cubin), traced block by block.
//
// Cubins: `fuserlab-cli compile resources/examples/batch_norm_outer.py
// --out DIR` (optionally with `--db` for pinned params), then
// `nvrtc_cubin DIR/outer_persistent_seg0.cu OUT.cubin`, or
// `trace_marks.py DIR/outer_persistent_seg0.cu T.cu && nvrtc_cubin T.cu
// T.cubin` for a traced one (T.cu.marks must sit beside T.cubin as
// T.cubin.marks, or the marks are printed by number). Not built by CMake;
// on a GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o batch_norm_outer_variants \
//     tests/perf/harness/batch_norm_outer_variants.cu
//   ./batch_norm_outer_variants [--size ROWSxCOLS] FILE:GX:GY:BX:BY:SMEM:WORKSPACE ...
//
// GX, GY, BX, BY, SMEM and WORKSPACE are what `fuserlab-cli compile` prints
// for the kernel (grid, block, shared bytes, workspace bytes).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
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

struct Tensor2 {
  void* data;
  long long size[2], stride[2];
};
struct Tensor1 {
  void* data;
  long long size[1], stride[1];
};

constexpr int kMaxMarks = 32;  // trace_marks.py's MAX_MARKS

struct Problem {
  int rows = 16384, cols = 128;
  __nv_bfloat16* in = nullptr;
  float *weight = nullptr, *bias = nullptr;
  __nv_bfloat16* out = nullptr;
  float *mean = nullptr, *invstd = nullptr;
  std::vector<double> refMean, refInvstd, refOut;
  double copyBytesPerUs = 0;
  int failures = 0;
};

std::vector<std::string> readLabels(const std::string& path) {
  std::vector<std::string> labels;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) labels.push_back(line);
  return labels;
}

// 15 launches after a flush each; for every mark, the medians over the
// launches of the blocks' p50 and max, in us after the first block's entry.
void printTimeline(Flush& flush, const std::function<void()>& launch, void* trace, int blocks,
                   const std::vector<std::string>& labels) {
  constexpr int kLaunches = 15;
  std::vector<std::vector<double>> p50(kMaxMarks), mx(kMaxMarks);
  int marks = 0;
  for (int l = 0; l < kLaunches; ++l) {
    CHECK(cudaMemset(trace, 0, (size_t)blocks * kMaxMarks * 8));
    flush.run();
    launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned long long> t((size_t)blocks * kMaxMarks);
    CHECK(cudaMemcpy(t.data(), trace, t.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < blocks; ++b) t0 = std::min(t0, t[(size_t)b * kMaxMarks]);
    for (int k = 0; k < kMaxMarks; ++k) {
      std::vector<double> at;
      for (int b = 0; b < blocks; ++b) {
        const unsigned long long v = t[(size_t)b * kMaxMarks + k];
        if (v != 0) at.push_back((v - t0) * 1e-3);
      }
      if (at.empty()) continue;
      marks = std::max(marks, k + 1);
      std::sort(at.begin(), at.end());
      p50[k].push_back(at[at.size() / 2]);
      mx[k].push_back(at.back());
    }
  }
  std::printf(
      "    timeline, medians of %d launches (us after the first block's entry): p50 / max over %d "
      "blocks\n",
      kLaunches, blocks);
  for (int k = 0; k < marks; ++k) {
    if (p50[k].empty()) continue;
    std::printf("    %2d %-40s %7.2f %7.2f\n", k, k < (int)labels.size() ? labels[k].c_str() : "",
                median(p50[k]), median(mx[k]));
  }
}

void runCubin(Problem& p, Flush& flush, const std::string& spec) {
  const std::vector<std::string> f = splitSpec(spec);
  if (f.size() != 7) {
    std::printf("bad spec %s (want FILE:GX:GY:BX:BY:SMEM:WORKSPACE)\n", spec.c_str());
    ++p.failures;
    return;
  }
  std::ifstream file(f[0], std::ios::binary);
  if (!file) {
    std::printf("cannot read %s\n", f[0].c_str());
    ++p.failures;
    return;
  }
  const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  cudaLibrary_t lib;
  CHECK(cudaLibraryLoadData(&lib, image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t k;
  CHECK(cudaLibraryGetKernel(&k, lib, "outer_persistent_seg0"));
  void* trace = nullptr;
  size_t traceBytes = 0;
  if (cudaLibraryGetGlobal(&trace, &traceBytes, lib, "fl_trace") != cudaSuccess) {
    (void)cudaGetLastError();
    trace = nullptr;
  }

  Tensor2 x{p.in, {p.rows, p.cols}, {p.cols, 1}};
  Tensor1 w{p.weight, {p.cols}, {1}};
  Tensor1 b{p.bias, {p.cols}, {1}};
  Tensor2 y{p.out, {p.rows, p.cols}, {p.cols, 1}};
  Tensor1 m{p.mean, {p.cols}, {1}};
  Tensor1 r{p.invstd, {p.cols}, {1}};
  const size_t wsBytes = std::stoul(f[6]);
  void* workspace = nullptr;
  CHECK(cudaMalloc(&workspace, std::max<size_t>(wsBytes, 16)));
  CHECK(cudaMemset(workspace, 0, std::max<size_t>(wsBytes, 16)));  // once: the kernel resets it
  void* args[] = {&x, &w, &b, &y, &m, &r, &workspace};
  const dim3 grid(std::stoi(f[1]), std::stoi(f[2])), block(std::stoi(f[3]), std::stoi(f[4]));
  const size_t smem = std::stoul(f[5]);
  // Clusters of more than 8 blocks (compiled in with __cluster_dims__) launch
  // only where the kernel allows a non-portable size.
  if (cudaFuncSetAttribute(static_cast<const void*>(k),
                           cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  if (smem > 48 * 1024) {
    CHECK(cudaFuncSetAttribute(static_cast<const void*>(k),
                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  }
  auto launch = [&] {
    CHECK(cudaLaunchKernel(static_cast<const void*>(k), grid, block, args, smem, nullptr));
    CHECK(cudaGetLastError());
  };
  const size_t n = (size_t)p.rows * p.cols;
  CHECK(cudaMemset(p.out, 0xff, n * 2));
  CHECK(cudaMemset(p.mean, 0xff, p.cols * 4));
  CHECK(cudaMemset(p.invstd, 0xff, p.cols * 4));
  int bad = 0;
  for (int rep = 0; rep < 2; ++rep) {  // twice: the second finds the workspace as the first left it
    launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> out(n);
    std::vector<float> mean(p.cols), invstd(p.cols);
    CHECK(cudaMemcpy(out.data(), p.out, n * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(mean.data(), p.mean, p.cols * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(invstd.data(), p.invstd, p.cols * 4, cudaMemcpyDeviceToHost));
    for (int c = 0; c < p.cols; ++c) {
      const bool ok = std::fabs(mean[c] - p.refMean[c]) <= 1e-5 * std::fabs(p.refMean[c]) + 1e-5 &&
                      std::fabs(invstd[c] - p.refInvstd[c]) <= 1e-4 * p.refInvstd[c];
      if (!ok && bad++ == 0) {
        std::printf("  column %d: mean %.7g (want %.7g), invstd %.7g (want %.7g)\n", c, mean[c],
                    p.refMean[c], invstd[c], p.refInvstd[c]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const double got = __bfloat162float(out[i]);
      if (!(std::fabs(got - p.refOut[i]) <= 1e-2 * std::fabs(p.refOut[i]) + 1e-2) && bad++ == 0) {
        std::printf("  out[%zu]: %.6g (want %.6g)\n", i, got, p.refOut[i]);
      }
    }
  }
  const double us = timeUs(flush, launch);
  const double bytes = (double)n * 4 + 4.0 * p.cols * 4;
  std::printf("%-64s %7.2f us  %5.1f%% of copy BW  check %s\n", spec.c_str(), us,
              100.0 * bytes / us / p.copyBytesPerUs, bad == 0 ? "ok" : "FAILED");
  if (bad != 0) ++p.failures;
  if (trace != nullptr) {
    const int blocks = (int)(grid.x * grid.y);
    if ((size_t)blocks * kMaxMarks * 8 > traceBytes) {
      std::printf("    fl_trace holds %zu bytes, too few for %d blocks\n", traceBytes, blocks);
    } else {
      printTimeline(flush, launch, trace, blocks, readLabels(f[0] + ".marks"));
    }
  }
  CHECK(cudaFree(workspace));
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
  std::printf("device: %s, %d SMs; BatchNorm forward over the rows of bf16 [%d, %d]\n", prop.name,
              prop.multiProcessorCount, p.rows, p.cols);
  Flush flush(prop);
  p.copyBytesPerUs = copyBytesPerUs();

  // Random inputs: x ~ N(3, 1) per element (BatchNorm inputs are not
  // centred), weight in [0.5, 1.5], bias ~ N(0, 1); the reference in double.
  const size_t n = (size_t)p.rows * p.cols;
  std::vector<__nv_bfloat16> host(n);
  std::vector<float> weight(p.cols), bias(p.cols);
  std::mt19937 rng(13);
  std::normal_distribution<float> normal(3.0f, 1.0f), unit(0.0f, 1.0f);
  std::uniform_real_distribution<float> scale(0.5f, 1.5f);
  for (size_t i = 0; i < n; ++i) host[i] = __float2bfloat16(normal(rng));
  for (int c = 0; c < p.cols; ++c) {
    weight[c] = scale(rng);
    bias[c] = unit(rng);
  }
  std::vector<double> sum(p.cols, 0.0), sq(p.cols, 0.0);
  for (size_t i = 0; i < n; ++i) sum[i % p.cols] += __bfloat162float(host[i]);
  p.refMean.resize(p.cols);
  p.refInvstd.resize(p.cols);
  for (int c = 0; c < p.cols; ++c) p.refMean[c] = sum[c] / p.rows;
  for (size_t i = 0; i < n; ++i) {
    const double d = __bfloat162float(host[i]) - p.refMean[i % p.cols];
    sq[i % p.cols] += d * d;
  }
  for (int c = 0; c < p.cols; ++c) p.refInvstd[c] = 1.0 / std::sqrt(sq[c] / p.rows + 1e-5);
  p.refOut.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int c = (int)(i % p.cols);
    p.refOut[i] = (__bfloat162float(host[i]) - p.refMean[c]) * p.refInvstd[c] * weight[c] + bias[c];
  }
  CHECK(cudaMalloc(&p.in, n * 2));
  CHECK(cudaMemcpy(p.in, host.data(), n * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&p.weight, p.cols * 4));
  CHECK(cudaMemcpy(p.weight, weight.data(), p.cols * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&p.bias, p.cols * 4));
  CHECK(cudaMemcpy(p.bias, bias.data(), p.cols * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&p.out, n * 2));
  CHECK(cudaMalloc(&p.mean, p.cols * 4));
  CHECK(cudaMalloc(&p.invstd, p.cols * 4));

  for (int i = first; i < argc; ++i) runCubin(p, flush, argv[i]);
  std::printf("again, backwards:\n");
  for (int i = argc - 1; i >= first; --i) runCubin(p, flush, argv[i]);
  std::printf("%d launch(es) failed the check\n", p.failures);
  return p.failures == 0 ? 0 : 1;
}
