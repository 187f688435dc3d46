// Where col_sum's cluster combine spends its ~0.9 us (docs/performance.md:
// the generated kernel's last block exits ~0.9 us later than the same loop
// writing partials without clusters). A mirror of the generated kernel
// (bf16 8192 x 4096 summed over rows into 4096 floats; 16 x 16 threads, 4
// rows in flight, 32 x 8 blocks, the 8 row splits of a column group one
// cluster whose rank 0 adds the others' partials from its shared memory),
// with thread (0, 0) of every block stamping the global timer after each
// step of the combine:
//   loop     its own loop done
//   reduced  the block's column reduction done (after its __syncthreads, so
//            every warp of the block has finished its loop)
//   pushed   its partials stored into rank 0's shared memory
//   arrived  barrier.cluster.arrive.release done
//   waited   barrier.cluster.wait.acquire done
//   exit     rank 0: its adds and stores done; the others: right after waited
// And a variant without the closing barrier: the other ranks store their
// sums into rank 0's shared memory with st.async, which counts the bytes on
// an mbarrier of rank 0's (initialized before the loop, published by a
// cluster barrier arrived at before the loop and waited on after it), and
// exit; rank 0 alone waits. There `arrived` is that early barrier's wait,
// `pushed` the st.async issued, `waited` rank 0's mbarrier wait done.
// Per launch: the grid's latest of each stamp, and the critical cluster's
// (the one whose rank 0 exits last) steps; medians of 30 launches, each
// after the bench protocol's L2 flush. Also the same kernel with the
// partials written to global memory (no cluster), and both timed as bench
// times them (events, median of 50). Every variant is checked against the
// CPU's double sums. Not built by CMake; on a GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o col_sum_combine_probe \
//       tests/perf/harness/col_sum_combine_probe.cu
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"

constexpr int kRows = 8192;
constexpr int kCols = 4096;
constexpr int kV = 8;
constexpr int kCX = 16, kRY = 16, kU = 4, kSplits = 8;
constexpr int kBlocks = (kCols / (kCX * kV)) * kSplits;

enum Stamp { kStart, kLoop, kReduced, kPushed, kArrived, kWaited, kExit, kStamps };
__device__ unsigned long long gStamps[kBlocks][kStamps];

__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ void addBf16x8(float (&acc)[kV], const uint4& w) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    acc[2 * i] += __uint_as_float(words[i] << 16);
    acc[2 * i + 1] += __uint_as_float(words[i] & 0xffff0000u);
  }
}

enum Combine { kPartials = 0, kBarrier = 1, kAsync = 2 };

template <int kCombine>
__global__ void __launch_bounds__(kCX* kRY, 2)
    colSumProbe(const __nv_bfloat16* __restrict__ in, float* __restrict__ out,
                float* __restrict__ partials) {
  const bool stamp = threadIdx.x == 0 && threadIdx.y == 0;
  const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  if (stamp) gStamps[block][kStart] = now();
  // kAsync: rank 0's mbarrier, initialized before the loop; the cluster
  // barrier that publishes it is arrived at here and waited on after the
  // loop, when it has long completed.
  __shared__ alignas(8) unsigned long long bar;
  __shared__ alignas(16) float part[kSplits * kV * kCX];
  unsigned rank = 0;
  if constexpr (kCombine != kPartials) {
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  }
  if constexpr (kCombine == kAsync) {
    if (rank == 0 && stamp) {
      const unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }
  constexpr int kPerSplit = kRows / kSplits;
  const int col = (blockIdx.x * kCX + threadIdx.x) * kV;
  float acc[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) acc[v] = 0.f;
  const int begin = blockIdx.y * kPerSplit + threadIdx.y;
  const int end = (blockIdx.y + 1) * kPerSplit;
  for (int j0 = begin; j0 < end; j0 += kRY * kU) {
    uint4 ld[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      ld[u] = *reinterpret_cast<const uint4*>(in + (size_t)(j0 + u * kRY) * kCols + col);
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) addBf16x8(acc, ld[u]);
  }
  if (stamp) gStamps[block][kLoop] = now();
    // The block's column reduction, as the generated col_reduce: the two
    // thread rows of a warp by a shuffle, then the 8 warps' partials through
    // shared memory into thread row 0.
#pragma unroll
  for (int v = 0; v < kV; ++v) acc[v] += __shfl_xor_sync(0xffffffffu, acc[v], kCX);
  constexpr int kW = kRY / 2;
  __shared__ float red[kW * kCX * kV];
  if (threadIdx.y % 2 == 0) {
#pragma unroll
    for (int v = 0; v < kV; ++v) red[(v * kW + threadIdx.y / 2) * kCX + threadIdx.x] = acc[v];
  }
  __syncthreads();
  if (threadIdx.y == 0) {
#pragma unroll
    for (int v = 0; v < kV; ++v) {
      float r = red[(v * kW) * kCX + threadIdx.x];
#pragma unroll
      for (int w = 1; w < kW; ++w) r += red[(v * kW + w) * kCX + threadIdx.x];
      acc[v] = r;
    }
  }
  if (stamp) gStamps[block][kReduced] = now();
  if constexpr (kCombine == kPartials) {
    if (threadIdx.y == 0) {
      float* p = partials + (size_t)blockIdx.y * kCols + col;
      reinterpret_cast<float4*>(p)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
      reinterpret_cast<float4*>(p)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
    if (stamp) gStamps[block][kExit] = now();
  } else if constexpr (kCombine == kAsync) {
    // Slot [rank][x][v]: thread x's 8 sums as two 16-byte stores. The other
    // ranks store theirs into rank 0's shared memory with st.async, which
    // counts the bytes on rank 0's mbarrier, and exit; rank 0 stores its own
    // locally, expects the others' bytes and waits on its mbarrier alone.
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    if (stamp) gStamps[block][kArrived] = now();
    constexpr unsigned kBytes = (kSplits - 1) * kCX * kV * sizeof(float);
    if (rank != 0) {
      if (threadIdx.y == 0) {
        const unsigned local =
            (unsigned)__cvta_generic_to_shared(part + (rank * kCX + threadIdx.x) * kV);
        const unsigned localBar = (unsigned)__cvta_generic_to_shared(&bar);
        unsigned remote, remoteBar;
        asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(local));
        asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remoteBar) : "r"(localBar));
        asm volatile(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
            "[%5];" ::"r"(remote),
            "f"(acc[0]), "f"(acc[1]), "f"(acc[2]), "f"(acc[3]), "r"(remoteBar)
            : "memory");
        asm volatile(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
            "[%5];" ::"r"(remote + 16),
            "f"(acc[4]), "f"(acc[5]), "f"(acc[6]), "f"(acc[7]), "r"(remoteBar)
            : "memory");
      }
      if (stamp) gStamps[block][kPushed] = now();
      if (stamp) gStamps[block][kWaited] = now();
      if (stamp) gStamps[block][kExit] = now();
      return;
    }
    if (threadIdx.y == 0) {
#pragma unroll
      for (int v = 0; v < kV; ++v) part[threadIdx.x * kV + v] = acc[v];
    }
    const unsigned localBar = (unsigned)__cvta_generic_to_shared(&bar);
    if (stamp) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(localBar),
                   "r"(kBytes)
                   : "memory");
    }
    if (stamp) gStamps[block][kPushed] = now();
    __syncthreads();  // rank 0's own slot, stored by its thread row 0
    const int t = threadIdx.y * kCX + threadIdx.x;
    if (t < kV * kCX) {
      unsigned done = 0;
      while (!done) {
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; "
            "selp.u32 %0, 1, 0, p; }"
            : "=r"(done)
            : "r"(localBar)
            : "memory");
      }
      if (stamp) gStamps[block][kWaited] = now();
      const int s = t % kV, x = t / kV;
      float r = 0.f;
#pragma unroll
      for (int i = 0; i < kSplits; ++i) r += part[(i * kCX + x) * kV + s];
      out[(blockIdx.x * kCX + x) * kV + s] = r;
    }
    if (stamp) gStamps[block][kExit] = now();
  } else {
    if (threadIdx.y == 0) {
      unsigned long long remote;
      asm("mapa.u64 %0, %1, %2;"
          : "=l"(remote)
          : "l"(reinterpret_cast<unsigned long long>(part + rank * (kV * kCX))), "r"(0u));
      float* at0 = reinterpret_cast<float*>(remote);
#pragma unroll
      for (int v = 0; v < kV; ++v) at0[v * kCX + threadIdx.x] = acc[v];
    }
    if (stamp) gStamps[block][kPushed] = now();
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    if (stamp) gStamps[block][kArrived] = now();
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (stamp) gStamps[block][kWaited] = now();
    if (rank == 0) {
      // As generated: thread t adds slot t % 8 of column thread t / 8.
      const int t = threadIdx.y * kCX + threadIdx.x;
      if (t < kV * kCX) {
        const int s = t % kV, x = t / kV;
        float r = 0.f;
#pragma unroll
        for (int i = 0; i < kSplits; ++i) r += part[i * kV * kCX + s * kCX + x];
        out[(blockIdx.x * kCX + x) * kV + s] = r;
      }
    }
    if (stamp) gStamps[block][kExit] = now();
  }
}

static double us(unsigned long long a, unsigned long long b) { return (double)(b - a) * 1e-3; }

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  Flush flush(prop);
  const double copy = copyBytesPerUs();

  std::vector<__nv_bfloat16> host((size_t)kRows * kCols);
  std::vector<double> reference(kCols, 0.0), magnitude(kCols, 0.0);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      const __nv_bfloat16 x = __float2bfloat16(normal(rng));
      host[(size_t)r * kCols + c] = x;
      reference[c] += __bfloat162float(x);
      magnitude[c] += std::fabs(__bfloat162float(x));
    }
  }
  __nv_bfloat16* in;
  float *out, *partials;
  CHECK(cudaMalloc(&in, host.size() * sizeof(__nv_bfloat16)));
  CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&out, kCols * sizeof(float)));
  CHECK(cudaMalloc(&partials, (size_t)kSplits * kCols * sizeof(float)));

  int failures = 0;
  for (int combine : {kBarrier, kPartials, kAsync, kBarrier, kPartials, kAsync}) {
    const bool cluster = combine != kPartials;
    auto kernel = combine == kBarrier ? colSumProbe<kBarrier>
                  : combine == kAsync ? colSumProbe<kAsync>
                                      : colSumProbe<kPartials>;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 1;
    attribute[0].val.clusterDim.y = kSplits;
    attribute[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(kCols / (kCX * kV), kSplits);
    config.blockDim = dim3(kCX, kRY);
    config.attrs = attribute;
    config.numAttrs = cluster ? 1 : 0;
    auto launch = [&] {
      CHECK(cudaLaunchKernelEx(&config, kernel, (const __nv_bfloat16*)in, out, partials));
    };
    // Check.
    CHECK(cudaMemset(out, 0xff, kCols * sizeof(float)));
    CHECK(cudaMemset(partials, 0xff, (size_t)kSplits * kCols * sizeof(float)));
    launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> got(kCols, 0.0);
    if (cluster) {
      std::vector<float> o(kCols);
      CHECK(cudaMemcpy(o.data(), out, kCols * sizeof(float), cudaMemcpyDeviceToHost));
      for (int c = 0; c < kCols; ++c) got[c] = o[c];
    } else {
      std::vector<float> p((size_t)kSplits * kCols);
      CHECK(cudaMemcpy(p.data(), partials, p.size() * sizeof(float), cudaMemcpyDeviceToHost));
      for (int s = 0; s < kSplits; ++s)
        for (int c = 0; c < kCols; ++c) got[c] += p[(size_t)s * kCols + c];
    }
    bool ok = true;
    for (int c = 0; c < kCols; ++c) {
      if (!(std::fabs(got[c] - reference[c]) <= 1e-5 * magnitude[c] + 1e-3)) ok = false;
    }
    if (!ok) ++failures;
    const double t = timeUs(flush, launch);
    const double bytes = (double)kRows * kCols * 2 + kCols * 4;
    std::printf("\n%s: %.2f us between the events, %.1f%% of the copy bandwidth, check %s\n",
                combine == kBarrier ? "cluster combine (as generated: push, barrier.cluster)"
                : combine == kAsync ? "cluster combine by st.async on rank 0's mbarrier"
                                    : "partials only (no cluster)",
                t, 100.0 * bytes / t / copy, ok ? "ok" : "FAILED");

    // The timeline: medians over launches of the grid's latest stamps
    // (us after the first block's start) and of the critical cluster's
    // steps.
    constexpr int kLaunches = 30;
    std::vector<double> latest[kStamps];
    std::vector<double> critReduced, critArrived, critWaitedRank0, critExit, critSlowestPush;
    for (int l = 0; l < kLaunches; ++l) {
      flush.run();
      launch();
      CHECK(cudaDeviceSynchronize());
      unsigned long long s[kBlocks][kStamps];
      CHECK(cudaMemcpyFromSymbol(s, gStamps, sizeof(s)));
      unsigned long long t0 = ~0ull;
      for (int b = 0; b < kBlocks; ++b) t0 = std::min(t0, s[b][kStart]);
      for (int k = 0; k < kStamps; ++k) {
        if (!cluster && k >= kPushed && k <= kWaited) continue;
        unsigned long long m = 0;
        for (int b = 0; b < kBlocks; ++b) m = std::max(m, s[b][k]);
        latest[k].push_back(us(t0, m));
      }
      if (!cluster) continue;
      // The cluster whose rank 0 (blockIdx.y 0) exits last.
      const int gx = kCols / (kCX * kV);
      int worst = 0;
      for (int x = 0; x < gx; ++x) {
        if (s[x][kExit] > s[worst][kExit]) worst = x;
      }
      unsigned long long reduced = 0, arrived = 0, pushed = 0;
      for (int y = 0; y < kSplits; ++y) {
        reduced = std::max(reduced, s[y * gx + worst][kReduced]);
        pushed = std::max(pushed, s[y * gx + worst][kPushed]);
        arrived = std::max(arrived, s[y * gx + worst][kArrived]);
      }
      critReduced.push_back(us(t0, reduced));
      critSlowestPush.push_back(us(t0, pushed));
      critArrived.push_back(us(t0, arrived));
      critWaitedRank0.push_back(us(t0, s[worst][kWaited]));
      critExit.push_back(us(t0, s[worst][kExit]));
    }
    const char* names[kStamps] = {"start",   "loop",   "reduced", "pushed",
                                  "arrived", "waited", "exit"};
    std::printf("  grid's latest (median of %d launches, us after the first start):", kLaunches);
    for (int k = 0; k < kStamps; ++k) {
      if (!latest[k].empty()) std::printf(" %s %.2f", names[k], median(latest[k]));
    }
    std::printf("\n");
    if (cluster) {
      std::printf(
          "  critical cluster: last member reduced %.2f, pushed %.2f, arrived %.2f; rank 0 waited "
          "%.2f, exited %.2f\n",
          median(critReduced), median(critSlowestPush), median(critArrived),
          median(critWaitedRank0), median(critExit));
    }
  }
  std::printf("\n%d variant(s) failed the check\n", failures);
  return failures == 0 ? 0 : 1;
}
