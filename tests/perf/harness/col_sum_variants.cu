// Column-sum variants, timed as `fuserlab-cli bench` times a kernel: an L2
// flush (a write of twice the L2 size, then a read of it), the start event,
// the launch, the end event; the median of 50 samples after 5 warm-ups, and
// its ratio to the copy bandwidth measured in the same process (a 1 GiB
// device-to-device cudaMemcpy). Every variant's result is checked against
// the CPU's double sums of the same random bf16 input.
//
// It asks where col_sum 8192x4096 (bf16 in, float out) loses its time
// against row_sum, which reads the same 67 MB at ~90% of the copy bandwidth:
// in the order the row splits walk their rows, in the L2 fetch size, or in
// the cluster combine. Not built by CMake; on a GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o col_sum_variants tests/perf/harness/col_sum_variants.cu
//   ./col_sum_variants
//
// The variants mirror the generated kernel (`fuserlab-cli compile
// tests/perf/suite/col_sum_8192x4096.py --out DIR`): a thread's 8 columns as
// one 16-byte load, 4 rows in flight, the row splits of a column group one
// cluster whose rank 0 adds the other blocks' partials from its shared
// memory; 8 x 16 threads in 64 x 8 blocks until session 14, 16 x 16 threads
// in 32 x 8 blocks since (what this harness found; docs/performance.md).
// With arguments `FILE:GX:GY:BX:BY:SMEM` it also times generated cubins
// (a 7th field: launch attributes, see generatedVariant). With `--pipeline`
// first, it times the load pipelines instead (batch, rolling registers, a
// cp.async ring; with the cluster combine and streaming alone), the cubins
// first and last. With `--timeline` first, it traces variants block by
// block (each block's SM, and the global timer at its start, after its loop
// and at its exit; medians of 15 launches): where a launch's time goes.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"
#include "harness_cubin.h"
#include "harness_timeline.h"

constexpr int kRows = 8192;
constexpr int kCols = 4096;
constexpr int kV = 8;  // bf16 values per 16-byte load

// Row order of a split: contiguous ranges (the generated kernel), or the
// splits interleaved in steps of RY * U rows (all blocks sweep the tensor
// together, one window of rows at a time).
// Or contiguous ranges each walked from a rotated start (split s begins
// s / SPLITS of the way into its range and wraps), so that the splits'
// streams are not a power-of-two distance apart at any moment.
enum Order { kContiguous = 0, kInterleaved = 1, kRotated = 2 };
// What a block does with its partial: write it to global memory for the
// host to add (streaming only, for timing), push it to rank 0 of its
// cluster (the generated kernel), or push each column thread's values to
// the rank that owns that column thread (a reduce-scatter: every rank adds
// and stores 1/SPLITS of the group's columns).
// Or, without clusters, through a global workspace: each block writes its
// partial, and the last block of its column group to arrive (a semaphore)
// adds the group's partials (the generated kernel's path off sm_90).
enum Combine { kNone = 0, kRank0 = 1, kScatter = 2, kWorkspace = 3 };
// The load: plain (as generated), or with the L2 fetching 256 bytes.
// kCoherent: an ordinary (coherent) load, as the generated kernels' are;
// kPlain compiles to the read-only path (the input is const __restrict__).
// kNoL1: the read-only load with L1::no_allocate alone.
enum Hint { kPlain = 0, kL2_256 = 1, kNoL1_256 = 2, kCoherent = 3, kNoL1 = 4 };

template <int HINT>
__device__ __forceinline__ uint4 load16(const __nv_bfloat16* p) {
  uint4 r;
  if constexpr (HINT == kPlain) {
    r = *reinterpret_cast<const uint4*>(p);
  } else if constexpr (HINT == kL2_256) {
    asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  } else if constexpr (HINT == kNoL1) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  } else if constexpr (HINT == kCoherent) {
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
  } else {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  }
  return r;
}

__device__ __forceinline__ void addBf16x8(float (&acc)[kV], uint4 w) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    acc[2 * i] += __uint_as_float(words[i] << 16);
    acc[2 * i + 1] += __uint_as_float(words[i] & 0xffff0000u);
  }
}

__device__ __forceinline__ unsigned clusterRank() {
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n\t"
      "barrier.cluster.wait.acquire.aligned;" ::
          : "memory");
}
template <typename T>
__device__ __forceinline__ T* clusterMap(T* local, unsigned rank) {
  unsigned long long remote;
  asm("mapa.u64 %0, %1, %2;"
      : "=l"(remote)
      : "l"(reinterpret_cast<unsigned long long>(local)), "r"(rank));
  return reinterpret_cast<T*>(remote);
}

// The block's partials over its thread rows: the lanes of a warp that
// share a column thread first, then one value per warp through shared
// memory; thread row 0 ends with the block's sums.
template <int CX, int RY>
__device__ __forceinline__ void blockColumnReduce(float (&acc)[kV]) {
  constexpr int L = CX >= 32 ? 1 : (CX * RY < 32 ? RY : 32 / CX);
  constexpr int W = RY / L;
#pragma unroll
  for (int offset = CX; offset < CX * L; offset *= 2) {
#pragma unroll
    for (int v = 0; v < kV; ++v) acc[v] += __shfl_xor_sync(0xffffffffu, acc[v], offset);
  }
  __shared__ float red[W * CX * kV];
  if constexpr (W > 1) {
    if (threadIdx.y % L == 0) {
#pragma unroll
      for (int v = 0; v < kV; ++v) red[(v * W + threadIdx.y / L) * CX + threadIdx.x] = acc[v];
    }
    __syncthreads();
    if (threadIdx.y == 0) {
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        float r = red[(v * W) * CX + threadIdx.x];
#pragma unroll
        for (int w = 1; w < W; ++w) r += red[(v * W + w) * CX + threadIdx.x];
        acc[v] = r;
      }
    }
  }
}

// Thread row 0 writes its block's partial sums (row split blockIdx.y).
__device__ __forceinline__ void writePartial(const float (&acc)[kV], int col, float* partials) {
  if (threadIdx.y == 0) {
    float* p = partials + (size_t)blockIdx.y * kCols + col;
    reinterpret_cast<float4*>(p)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
  }
}

// The generated kernel's combine: every block of the cluster pushes its
// row 0's sums into rank 0's shared memory, and rank 0 adds them in rank
// order and stores the column sums.
template <int CX, int SPLITS>
__device__ __forceinline__ void rank0Combine(const float (&acc)[kV], int col, float* out) {
  __shared__ float part[SPLITS * kV * CX];
  const unsigned rank = clusterRank();
  if (threadIdx.y == 0) {
    float* at0 = clusterMap(part + rank * (kV * CX), 0u);
#pragma unroll
    for (int v = 0; v < kV; ++v) at0[v * CX + threadIdx.x] = acc[v];
  }
  clusterSync();
  if (rank == 0 && threadIdx.y == 0) {
#pragma unroll
    for (int v = 0; v < kV; ++v) {
      float r = 0.f;
#pragma unroll
      for (int i = 0; i < SPLITS; ++i) r += part[i * kV * CX + v * CX + threadIdx.x];
      out[col + v] = r;
    }
  }
}

template <int CX, int RY, int U, int SPLITS, int ORDER, int COMBINE, int HINT>
__global__ void __launch_bounds__(CX* RY)
    colSum(const __nv_bfloat16* __restrict__ in, float* __restrict__ out,
           float* __restrict__ partials, unsigned* __restrict__ semaphores) {
  constexpr int kPerSplit = kRows / SPLITS;
  const int col = (blockIdx.x * CX + threadIdx.x) * kV;
  float acc[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) acc[v] = 0.f;
  int begin, end, step;
  if constexpr (ORDER == kRotated) {
    constexpr int kSteps = kPerSplit / (RY * U);
    const int first = (int)blockIdx.y * kSteps / SPLITS;
    for (int i = 0; i < kSteps; ++i) {
      int stepIndex = first + i;
      if (stepIndex >= kSteps) stepIndex -= kSteps;
      const int j0 = (int)blockIdx.y * kPerSplit + stepIndex * RY * U + (int)threadIdx.y;
      uint4 ld[U];
#pragma unroll
      for (int u = 0; u < U; ++u) ld[u] = load16<HINT>(in + (j0 + u * RY) * kCols + col);
#pragma unroll
      for (int u = 0; u < U; ++u) addBf16x8(acc, ld[u]);
    }
    begin = 0;
    end = 0;
    step = 1;
  } else if constexpr (ORDER == kContiguous) {
    begin = blockIdx.y * kPerSplit + threadIdx.y;
    end = (blockIdx.y + 1) * kPerSplit;
    step = RY * U;
  } else {
    begin = blockIdx.y * RY * U + threadIdx.y;
    end = kRows;
    step = SPLITS * RY * U;
  }
  for (int j0 = begin; j0 < end; j0 += step) {
    uint4 ld[U];
#pragma unroll
    for (int u = 0; u < U; ++u) ld[u] = load16<HINT>(in + (j0 + u * RY) * kCols + col);
#pragma unroll
    for (int u = 0; u < U; ++u) addBf16x8(acc, ld[u]);
  }
  blockColumnReduce<CX, RY>(acc);
  if constexpr (COMBINE == kNone) {
    writePartial(acc, col, partials);
  } else if constexpr (COMBINE == kWorkspace) {
    if (threadIdx.y == 0) {
      float* p = partials + (size_t)blockIdx.y * kCols + col;
      reinterpret_cast<float4*>(p)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
      reinterpret_cast<float4*>(p)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      last = atomicAdd(semaphores + blockIdx.x, 1u) == SPLITS - 1u;
      if (last) semaphores[blockIdx.x] = 0u;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (threadIdx.y == 0) {
      float r[kV] = {};
#pragma unroll
      for (int i = 0; i < SPLITS; ++i) {
        const float4* p = reinterpret_cast<const float4*>(partials + (size_t)i * kCols + col);
        const float4 a = __ldcg(p), b = __ldcg(p + 1);
        r[0] += a.x;
        r[1] += a.y;
        r[2] += a.z;
        r[3] += a.w;
        r[4] += b.x;
        r[5] += b.y;
        r[6] += b.z;
        r[7] += b.w;
      }
#pragma unroll
      for (int v = 0; v < kV; ++v) out[col + v] = r[v];
    }
  } else if constexpr (COMBINE == kRank0) {
    rank0Combine<CX, SPLITS>(acc, col, out);
  } else {
    // Column thread x belongs to rank x % SPLITS, at index x / SPLITS.
    static_assert(CX % SPLITS == 0, "each rank owns CX / SPLITS column threads");
    constexpr int kOwned = CX / SPLITS;
    __shared__ float part[SPLITS * kOwned * kV];
    const unsigned rank = clusterRank();
    if (threadIdx.y == 0) {
      float* dst = clusterMap(part + (rank * kOwned + threadIdx.x / SPLITS) * kV,
                              (unsigned)(threadIdx.x % SPLITS));
      reinterpret_cast<float4*>(dst)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
      reinterpret_cast<float4*>(dst)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
    clusterSync();
    const int t = threadIdx.y * CX + threadIdx.x;
    if (t < kOwned * kV) {
      const int v = t % kV;
      const int xi = t / kV;
      float r = 0.f;
#pragma unroll
      for (int i = 0; i < SPLITS; ++i) r += part[(i * kOwned + xi) * kV + v];
      const int x = xi * SPLITS + (int)rank;
      out[(blockIdx.x * CX + x) * kV + v] = r;
    }
  }
}

// How a thread keeps its loads in flight (the block's rows contiguous, as
// generated): kBatch issues U rows, adds them, then issues the next U (the
// generated loop: in flight drops to zero at the end of every step);
// kRolling loads U rows ahead and refills each register as soon as it is
// added, so U loads stay in flight; kCpAsync copies rows into this thread's
// own slots of a STAGES-deep shared-memory ring (`cp.async`), STAGES - 1
// rows ahead, and adds each from shared memory once its copy has landed.
enum Pipe { kBatch = 0, kRolling = 1, kCpAsync = 2 };

__device__ __forceinline__ void cpAsync16(void* smem, const void* global) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// 8 row splits of contiguous rows, one cluster per column group (the
// generated kernel's layout), launched with __launch_bounds__(CX * RY, 2)
// as generated. DEPTH: U rows (kBatch, kRolling) or STAGES (kCpAsync).
// PROBE: thread (0, 0) of each block writes its SM and the global timer at
// its start, after its loop and at its exit into gTimeline (the `--timeline`
// mode; harness_timeline.h).
template <int CX, int RY, int PIPE, int DEPTH, int COMBINE, bool PROBE = false, int kSplits = 8>
__global__ void __launch_bounds__(CX* RY, 2)
    colSumPipe(const __nv_bfloat16* __restrict__ in, float* __restrict__ out,
               float* __restrict__ partials) {
  const bool tracer = PROBE && threadIdx.x == 0 && threadIdx.y == 0;
  const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  if (tracer) {
    gTimeline[block].start = globalTimer();
    gTimeline[block].sm = smId();
  }
  constexpr int kPerSplit = kRows / kSplits;
  const int col = (blockIdx.x * CX + threadIdx.x) * kV;
  const int begin = blockIdx.y * kPerSplit + threadIdx.y;
  const int end = (blockIdx.y + 1) * kPerSplit;
  const __nv_bfloat16* base = in + col;
  float acc[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) acc[v] = 0.f;
  if constexpr (PIPE == kBatch) {
    for (int j0 = begin; j0 < end; j0 += RY * DEPTH) {
      uint4 ld[DEPTH];
#pragma unroll
      for (int u = 0; u < DEPTH; ++u) ld[u] = load16<kPlain>(base + (j0 + u * RY) * kCols);
#pragma unroll
      for (int u = 0; u < DEPTH; ++u) addBf16x8(acc, ld[u]);
    }
  } else if constexpr (PIPE == kRolling) {
    static_assert(kPerSplit % (RY * DEPTH) == 0, "whole steps");
    uint4 ld[DEPTH];
#pragma unroll
    for (int u = 0; u < DEPTH; ++u) ld[u] = load16<kPlain>(base + (begin + u * RY) * kCols);
    for (int j0 = begin; j0 < end; j0 += RY * DEPTH) {
      const int next = j0 + RY * DEPTH;
      const bool more = next < end;
#pragma unroll
      for (int u = 0; u < DEPTH; ++u) {
        const uint4 cur = ld[u];
        if (more) ld[u] = load16<kPlain>(base + (next + u * RY) * kCols);
        addBf16x8(acc, cur);
      }
    }
  } else {
    constexpr int kRowsPerThread = kPerSplit / RY;
    static_assert(kRowsPerThread % DEPTH == 0, "whole rings");
    extern __shared__ uint4 ring[];  // [DEPTH][CX * RY]
    const int t = threadIdx.y * CX + threadIdx.x;
#pragma unroll
    for (int s = 0; s < DEPTH - 1; ++s) {
      cpAsync16(&ring[s * CX * RY + t], base + (begin + s * RY) * kCols);
      cpAsyncCommit();
    }
    for (int i0 = 0; i0 < kRowsPerThread; i0 += DEPTH) {
#pragma unroll
      for (int s = 0; s < DEPTH; ++s) {
        const int ahead = i0 + s + DEPTH - 1;
        if (ahead < kRowsPerThread) {
          cpAsync16(&ring[((s + DEPTH - 1) % DEPTH) * CX * RY + t],
                    base + (begin + ahead * RY) * kCols);
        }
        cpAsyncCommit();
        cpAsyncWait<DEPTH - 1>();
        addBf16x8(acc, ring[s * CX * RY + t]);
      }
    }
  }
  if (tracer) gTimeline[block].streamed = globalTimer();
  blockColumnReduce<CX, RY>(acc);
  if constexpr (COMBINE == kNone) {
    writePartial(acc, col, partials);
  } else {
    rank0Combine<CX, kSplits>(acc, col, out);
  }
  if (tracer) gTimeline[block].end = globalTimer();
}

// Full rows, as row_sum reads them: a block of 128 threads takes a whole
// 8 KB row per step (4 loads a thread), its rows in a grid-stride loop;
// each thread keeps its 32 columns' sums and writes one checksum. The
// streaming reference, not a column sum the host can check.
__global__ void __launch_bounds__(128)
    rowStream(const __nv_bfloat16* __restrict__ in, float* __restrict__ sink) {
  float acc[4][kV] = {};
  for (int row = blockIdx.x; row < kRows; row += gridDim.x) {
    uint4 ld[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      ld[u] = load16<kPlain>(in + row * kCols + (u * 128 + threadIdx.x) * kV);
#pragma unroll
    for (int u = 0; u < 4; ++u) addBf16x8(acc[u], ld[u]);
  }
  float s = 0.f;
#pragma unroll
  for (int u = 0; u < 4; ++u)
#pragma unroll
    for (int v = 0; v < kV; ++v) s += acc[u][v];
  sink[blockIdx.x * 128 + threadIdx.x] = s;
}

__global__ void emptyKernel() {}

struct Context {
  Flush* flush;
  const __nv_bfloat16* in;
  float* out;
  float* partials;
  unsigned* semaphores;
  std::vector<double> reference;  // per column, double
  std::vector<double> magnitude;  // per column, sum of |x|
  double copyBytesPerUs;
  int failures = 0;
};

// Poisons the outputs, runs `launch` once and checks its column sums (or,
// for a partials-only kernel, the host's sum of its `splits` partial rows)
// against the CPU's, then times it.
static void checkAndTime(Context& ctx, const char* label, const std::function<void()>& launch,
                         int splits, bool partialsOnly) {
  // Check: poison, run, compare.
  CHECK(cudaMemset(ctx.out, 0xff, kCols * sizeof(float)));
  CHECK(cudaMemset(ctx.partials, 0xff, (size_t)splits * kCols * sizeof(float)));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> got(kCols, 0.0);
  if (partialsOnly) {
    std::vector<float> p((size_t)splits * kCols);
    CHECK(cudaMemcpy(p.data(), ctx.partials, p.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int s = 0; s < splits; ++s)
      for (int c = 0; c < kCols; ++c) got[c] += p[(size_t)s * kCols + c];
  } else {
    std::vector<float> o(kCols);
    CHECK(cudaMemcpy(o.data(), ctx.out, kCols * sizeof(float), cudaMemcpyDeviceToHost));
    for (int c = 0; c < kCols; ++c) got[c] = o[c];
  }
  double worst = 0;
  bool ok = true;
  for (int c = 0; c < kCols; ++c) {
    const double err = std::fabs(got[c] - ctx.reference[c]);
    const double tol = 1e-5 * ctx.magnitude[c] + 1e-3;
    if (!(err <= tol)) ok = false;
    worst = std::max(worst, err / tol);
  }
  const double us = timeUs(*ctx.flush, launch);
  const double bytes = (double)kRows * kCols * 2 + kCols * 4;
  std::printf("%-58s %7.2f us  %5.1f%% of copy BW  check %s (worst err/tol %.3f)\n", label, us,
              100.0 * bytes / us / ctx.copyBytesPerUs, ok ? "ok" : "FAILED", worst);
  if (!ok) ++ctx.failures;
}

template <int CX, int RY, int U, int SPLITS, int ORDER, int COMBINE, int HINT>
void variant(Context& ctx, const char* label) {
  auto kernel = colSum<CX, RY, U, SPLITS, ORDER, COMBINE, HINT>;
  const dim3 grid(kCols / (CX * kV), SPLITS);
  const dim3 block(CX, RY);
  if (SPLITS > 8) {  // clusters over the portable 8 blocks
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  auto launch = [&] {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 1;
    attribute[0].val.clusterDim.y = SPLITS;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = (COMBINE == kRank0 || COMBINE == kScatter) ? 1 : 0;
    CHECK(cudaLaunchKernelEx(&config, kernel, ctx.in, ctx.out, ctx.partials, ctx.semaphores));
    CHECK(cudaGetLastError());
  };
  checkAndTime(ctx, label, launch, SPLITS, COMBINE == kNone);
}

// `policy`: the cluster scheduling policy preference asked for at launch
// (a cudaClusterSchedulingPolicy; 0, the default, asks for none).
// `carveout`: the preferred shared-memory carveout in percent (-1: the
// driver's choice; 0: as much L1 as possible).
// `formClusters`: launch in clusters of 8 even where the kernel does not
// combine in them (partials only), to time the clusters' placement alone.
template <int CX, int RY, int PIPE, int DEPTH, int COMBINE, bool PROBE = false, int SPLITS = 8>
void pipelineVariant(Context& ctx, const char* label, int policy = 0, int carveout = -1,
                     bool formClusters = false, size_t padTo = 0) {
  auto kernel = colSumPipe<CX, RY, PIPE, DEPTH, COMBINE, PROBE, SPLITS>;
  // padTo: dynamic shared memory asked for at launch and never used, to cap
  // the blocks an SM can hold (80 KB: at most 2 of the 228 KB).
  const size_t smem = std::max(PIPE == kCpAsync ? size_t{DEPTH} * CX * RY * 16 : 0, padTo);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  // HARNESS_CARVEOUT in the environment sets it for every variant of the
  // process (a kernel keeps its carveout, so one value per process).
  if (carveout < 0 && std::getenv("HARNESS_CARVEOUT") != nullptr) {
    carveout = std::atoi(std::getenv("HARNESS_CARVEOUT"));
  }
  if (carveout >= 0) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  }
  // One launch configuration: clusters of 1 x 8 (the first attribute) for
  // the rank-0 combine, and the policy (the second) where one is asked for.
  cudaLaunchAttribute attribute[2];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = 1;
  attribute[0].val.clusterDim.y = SPLITS;
  attribute[0].val.clusterDim.z = 1;
  attribute[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attribute[1].val.clusterSchedulingPolicyPreference =
      static_cast<cudaClusterSchedulingPolicy>(policy);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kCols / (CX * kV), SPLITS);
  config.blockDim = dim3(CX, RY);
  config.dynamicSmemBytes = smem;
  config.attrs = attribute;
  config.numAttrs = 1;
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  std::printf("  (%s: %d clusters of %d resident at once, %zu bytes of dynamic shared memory)\n",
              label, clusters, SPLITS, smem);
  config.numAttrs = COMBINE == kRank0 || formClusters ? (policy != 0 ? 2 : 1) : 0;
  auto launch = [&] {
    CHECK(cudaLaunchKernelEx(&config, kernel, ctx.in, ctx.out, ctx.partials));
    CHECK(cudaGetLastError());
  };
  checkAndTime(ctx, label, launch, SPLITS, COMBINE == kNone);
  if constexpr (PROBE) {
    const bool clustered = COMBINE == kRank0 || formClusters;
    printTimeline(*ctx.flush, launch, config.gridDim.x * config.gridDim.y,
                  clustered ? (int)config.gridDim.x : 0);
  }
}

// A kernel FuserLab generated (`fuserlab-cli compile ... --out DIR`), from
// its cubin: `FILE:GX:GY:BX:BY:SMEM` on the command line; launched as the
// executor launches it (cudaLaunchKernel of the library kernel; the cluster
// shape is compiled in), checked and timed like the variants.
static void generatedVariant(Context& ctx, const std::string& spec) {
  const std::vector<std::string> f = splitSpec(spec);
  if (f.size() != 6 && f.size() != 7) {
    std::printf("bad spec %s\n", spec.c_str());
    ++ctx.failures;
    return;
  }
  const cudaKernel_t k = loadCubinKernel(f[0], "reduction_seg0");
  struct Tensor2 {
    const void* data;
    long long size[2], stride[2];
  } t0{ctx.in, {kRows, kCols}, {kCols, 1}};
  struct Tensor1 {
    void* data;
    long long size[1], stride[1];
  } t2{ctx.out, {kCols}, {1}};
  void* args[] = {&t0, &t2};
  const dim3 grid(std::stoi(f[1]), std::stoi(f[2])), block(std::stoi(f[3]), std::stoi(f[4]));
  const size_t smem = std::stoul(f[5]);
  if (smem > 48 * 1024) {  // e.g. 81920: unused, caps the blocks an SM holds at 2
    CHECK(cudaFuncSetAttribute(static_cast<const void*>(k),
                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  }
  // A 7th field launches through cudaLaunchKernelEx with attributes: its
  // low two bits a cluster scheduling policy (1 spread, 2 load balancing),
  // bit 3 (8) clusters of 1 x 8 for a kernel compiled without them.
  // Bit 4 (16) asks for the most L1 (a shared-memory carveout of 0%).
  const int flags = f.size() == 7 ? std::stoi(f[6]) : 0;
  const int policy = flags & 3;
  if (flags & 16) {
    CHECK(cudaFuncSetAttribute(static_cast<const void*>(k),
                               cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  }
  auto launch = [&] {
    if ((flags & ~16) == 0) {
      CHECK(cudaLaunchKernel(static_cast<const void*>(k), grid, block, args, smem, nullptr));
    } else {
      cudaLaunchConfig_t config = {};
      config.gridDim = grid;
      config.blockDim = block;
      config.dynamicSmemBytes = smem;
      cudaLaunchAttribute attribute[2];
      int n = 0;
      if (policy != 0) {
        attribute[n].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
        attribute[n++].val.clusterSchedulingPolicyPreference =
            static_cast<cudaClusterSchedulingPolicy>(policy);
      }
      if (flags & 8) {
        attribute[n].id = cudaLaunchAttributeClusterDimension;
        attribute[n].val.clusterDim.x = 1;
        attribute[n].val.clusterDim.y = 8;
        attribute[n++].val.clusterDim.z = 1;
      }
      config.attrs = attribute;
      config.numAttrs = n;
      CHECK(cudaLaunchKernelExC(&config, static_cast<const void*>(k), args));
    }
    CHECK(cudaGetLastError());
  };
  CHECK(cudaMemset(ctx.out, 0xff, kCols * sizeof(float)));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> o(kCols);
  CHECK(cudaMemcpy(o.data(), ctx.out, kCols * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int c = 0; c < kCols; ++c) {
    if (!(std::fabs(o[c] - ctx.reference[c]) <= 1e-5 * ctx.magnitude[c] + 1e-3)) ok = false;
  }
  const double us = timeUs(*ctx.flush, launch);
  const double bytes = (double)kRows * kCols * 2 + kCols * 4;
  std::printf("%-58s %7.2f us  %5.1f%% of copy BW  check %s\n", spec.c_str(), us,
              100.0 * bytes / us / ctx.copyBytesPerUs, ok ? "ok" : "FAILED");
  if (!ok) ++ctx.failures;
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  Flush flush(prop);

  Context ctx;
  ctx.flush = &flush;
  ctx.copyBytesPerUs = copyBytesPerUs();
  std::printf("copy bandwidth: %.0f GB/s; 85%% of it for this column sum: %.2f us\n",
              ctx.copyBytesPerUs / 1e3,
              ((double)kRows * kCols * 2 + kCols * 4) / (0.85 * ctx.copyBytesPerUs));

  // Random bf16 input (normal), and its column sums in double.
  std::vector<__nv_bfloat16> host((size_t)kRows * kCols);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  ctx.reference.assign(kCols, 0.0);
  ctx.magnitude.assign(kCols, 0.0);
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      const __nv_bfloat16 x = __float2bfloat16(normal(rng));
      host[(size_t)r * kCols + c] = x;
      const double d = __bfloat162float(x);
      ctx.reference[c] += d;
      ctx.magnitude[c] += std::fabs(d);
    }
  }
  __nv_bfloat16* in;
  CHECK(cudaMalloc(&in, host.size() * sizeof(__nv_bfloat16)));
  CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  ctx.in = in;
  CHECK(cudaMalloc(&ctx.out, kCols * sizeof(float)));
  CHECK(cudaMalloc(&ctx.partials, (size_t)64 * kCols * sizeof(float)));
  CHECK(cudaMalloc(&ctx.semaphores, 1024 * sizeof(unsigned)));
  CHECK(cudaMemset(ctx.semaphores, 0, 1024 * sizeof(unsigned)));

  // References: an empty launch between the events, with and without clusters,
  // and the full-row stream.
  {
    auto emptyPlain = [&] { emptyKernel<<<dim3(64, 8), dim3(8, 16)>>>(); };
    std::printf("%-58s %7.2f us\n", "empty kernel, 64 x 8 blocks", timeUs(flush, emptyPlain));
    auto emptyCluster = [&] {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(64, 8);
      config.blockDim = dim3(8, 16);
      cudaLaunchAttribute attribute[1];
      attribute[0].id = cudaLaunchAttributeClusterDimension;
      attribute[0].val.clusterDim.x = 1;
      attribute[0].val.clusterDim.y = 8;
      attribute[0].val.clusterDim.z = 1;
      config.attrs = attribute;
      config.numAttrs = 1;
      CHECK(cudaLaunchKernelEx(&config, emptyKernel));
    };
    std::printf("%-58s %7.2f us\n", "empty kernel, 64 x 8 blocks, clusters of 8",
                timeUs(flush, emptyCluster));
    const double bytes = (double)kRows * kCols * 2;
    for (int blocks : {prop.multiProcessorCount * 4, prop.multiProcessorCount * 8, 2048}) {
      auto stream = [&] { rowStream<<<blocks, 128>>>(in, ctx.partials); };
      const double us = timeUs(flush, stream);
      std::printf(
          "full-row stream (row_sum's loads), %4d blocks            %7.2f us  %5.1f%% of copy BW\n",
          blocks, us, 100.0 * bytes / us / ctx.copyBytesPerUs);
    }
  }

  if (argc > 1 && std::string(argv[1]) == "--timeline") {
    // Where the time goes, block by block (each variant traced: one global
    // timer read at a block's start, after its loop and at its exit).
    pipelineVariant<16, 16, kBatch, 4, kRank0, true>(ctx,
                                                     "traced: batch of 4 (as generated), rank-0");
    pipelineVariant<16, 16, kBatch, 4, kNone, true>(ctx, "traced: batch of 4, partials only");
    pipelineVariant<16, 16, kBatch, 4, kNone, true>(
        ctx, "traced: batch of 4, partials only, in clusters", 0, -1, true);
    pipelineVariant<16, 16, kCpAsync, 8, kNone, true>(ctx,
                                                      "traced: cp.async ring of 8, partials only");
    pipelineVariant<16, 16, kCpAsync, 8, kNone, true>(
        ctx, "traced: cp.async ring of 8, partials only, in clusters", 0, -1, true);
    pipelineVariant<16, 16, kCpAsync, 8, kRank0, true>(ctx, "traced: cp.async ring of 8, rank-0");
    pipelineVariant<16, 16, kCpAsync, 4, kRank0, true>(ctx, "traced: cp.async ring of 4, rank-0");
    // Finer blocks: more of them per SM, so the SMs' shares differ less.
    pipelineVariant<8, 16, kBatch, 4, kRank0, true>(
        ctx, "traced: 8 x 16 threads, 64 x 8 blocks, batch 4");
    pipelineVariant<8, 32, kBatch, 4, kRank0, true, 4>(
        ctx, "traced: 8 x 32 threads, 64 x 4 blocks, clusters of 4");
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "untraced: batch of 4 (as generated), rank-0");
    for (int i = 2; i < argc; ++i) generatedVariant(ctx, argv[i]);
    std::printf("%d variant(s) failed the check\n", ctx.failures);
    return ctx.failures == 0 ? 0 : 1;
  }
  if (argc > 1 && std::string(argv[1]) == "--pipeline") {
    // The load pipeline, 16 x 16 threads in 32 x 8 blocks (the generated
    // shape), each with the cluster combine and streaming alone (partials).
    // Cubins after the flag are timed first and last.
    for (int i = 2; i < argc; ++i) generatedVariant(ctx, argv[i]);
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4 rows (as generated), rank-0");
    variant<16, 16, 4, 8, kContiguous, kRank0, kNoL1>(ctx, "16 x 16, loads L1::no_allocate");
    variant<16, 16, 8, 8, kContiguous, kRank0, kNoL1>(ctx,
                                                      "16 x 16, 8 rows, loads L1::no_allocate");
    // Clusters of 4 (cheaper to place than 8): 512-thread blocks, one per SM.
    variant<16, 32, 4, 4, kContiguous, kRank0, kPlain>(
        ctx, "16 x 32 threads, 32 x 4 blocks, clusters of 4");
    variant<16, 32, 8, 4, kContiguous, kRank0, kPlain>(
        ctx, "16 x 32 threads, 32 x 4, clusters of 4, 8 rows");
    variant<16, 32, 4, 4, kContiguous, kNone, kPlain>(
        ctx, "16 x 32 threads, 32 x 4 blocks, partials only");
    variant<16, 32, 4, 4, kInterleaved, kRank0, kPlain>(
        ctx, "16 x 32 threads, 32 x 4, clusters of 4, interleaved");
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4, clusters spread", 1);
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4, clusters load-balanced", 2);
    variant<16, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx,
                                                       "16 x 16, read-only loads (LDG.CONSTANT)");
    variant<16, 16, 4, 8, kContiguous, kRank0, kCoherent>(ctx,
                                                          "16 x 16, coherent loads (as generated)");
    pipelineVariant<16, 16, kRolling, 4, kRank0>(ctx, "rolling 4 rows ahead, rank-0");
    pipelineVariant<16, 16, kRolling, 2, kRank0>(ctx, "rolling 2 rows ahead, rank-0");
    pipelineVariant<16, 16, kRolling, 8, kRank0>(ctx, "rolling 8 rows ahead, rank-0");
    pipelineVariant<16, 16, kCpAsync, 4, kRank0>(ctx, "cp.async ring of 4, rank-0");
    pipelineVariant<16, 16, kCpAsync, 8, kRank0>(ctx, "cp.async ring of 8, rank-0");
    pipelineVariant<16, 16, kCpAsync, 16, kRank0>(ctx, "cp.async ring of 16, rank-0");
    pipelineVariant<16, 16, kBatch, 4, kNone>(ctx, "batch of 4, partials only (no cluster)");
    pipelineVariant<16, 16, kRolling, 4, kNone>(ctx, "rolling 4, partials only (no cluster)");
    pipelineVariant<16, 16, kCpAsync, 8, kNone>(ctx, "cp.async ring of 8, partials only");
    // Where the cluster costs the ring: the placement alone, or the combine.
    pipelineVariant<16, 16, kCpAsync, 8, kNone>(
        ctx, "cp.async ring of 8, partials only, in clusters", 0, -1, true);
    pipelineVariant<16, 16, kBatch, 4, kNone>(ctx, "batch of 4, partials only, in clusters", 0, -1,
                                              true);
    pipelineVariant<16, 16, kCpAsync, 4, kNone>(ctx, "cp.async ring of 4, partials only");
    pipelineVariant<16, 16, kCpAsync, 8, kRank0>(ctx, "cp.async ring of 8, rank-0, clusters spread",
                                                 1);
    pipelineVariant<8, 16, kRolling, 4, kRank0>(
        ctx, "8 x 16 threads (64 x 8 blocks), rolling 4, rank-0");
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4 again");
    pipelineVariant<16, 16, kRolling, 4, kRank0>(ctx, "rolling 4 again");
    pipelineVariant<16, 16, kCpAsync, 8, kRank0>(ctx, "cp.async ring of 8 again");
    for (int i = 2; i < argc; ++i) generatedVariant(ctx, argv[i]);
    // Last, since a kernel keeps its carveout for the rest of the process:
    // the L1/shared split, the most L1 (0) and the most shared memory (100).
    // Both are slower than the driver's choice (H100: 40.0 and 29.8 us).
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4, carveout 0 (most L1)", 0, 0);
    pipelineVariant<16, 16, kBatch, 8, kRank0>(ctx, "batch of 8, carveout 0", 0, 0);
    pipelineVariant<16, 16, kBatch, 4, kRank0>(ctx, "batch of 4, carveout 100 (most shared)", 0,
                                               100);
    std::printf("%d variant(s) failed the check\n", ctx.failures);
    return ctx.failures == 0 ? 0 : 1;
  }
  for (int i = 1; i < argc; ++i) generatedVariant(ctx, argv[i]);
  if (argc > 1) {
    variant<8, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx,
                                                      "harness: 8 x 16 threads, 64 x 8 blocks");
    variant<16, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx,
                                                       "harness: 16 x 16 threads, 32 x 8 blocks");
    // Clusters of 16 (non-portable): more row splits, one combine.
    variant<16, 16, 4, 16, kContiguous, kRank0, kPlain>(
        ctx, "16 x 16 threads, 32 x 16 blocks, clusters of 16");
    variant<16, 16, 4, 16, kContiguous, kScatter, kPlain>(
        ctx, "16 x 16 threads, 32 x 16, clusters of 16, scatter");
    variant<32, 8, 4, 16, kContiguous, kRank0, kPlain>(
        ctx, "32 x 8 threads, 16 x 16 blocks, clusters of 16");
    variant<32, 8, 8, 16, kContiguous, kRank0, kPlain>(
        ctx, "32 x 8 threads, 16 x 16, clusters of 16, 8 rows");
    variant<32, 16, 4, 16, kContiguous, kRank0, kPlain>(
        ctx, "32 x 16 threads, 16 x 16 blocks, clusters of 16");
    for (int i = 1; i < argc; ++i) generatedVariant(ctx, argv[i]);
    variant<16, 16, 4, 16, kContiguous, kRank0, kPlain>(ctx,
                                                        "16 x 16 threads, clusters of 16, again");
    std::printf("%d variant(s) failed the check\n", ctx.failures);
    return ctx.failures == 0 ? 0 : 1;
  }
  // <CX, RY, U, SPLITS, ORDER, COMBINE, HINT>
  variant<8, 16, 4, 8, kContiguous, kRank0, kPlain>(
      ctx, "generated: 8 x 16 threads, 64 x 8 blocks, rank-0");
  variant<16, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 16 threads, 32 x 8 blocks, rank-0");
  variant<16, 16, 8, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 16 threads, 8 rows in flight");
  variant<16, 16, 2, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 16 threads, 2 rows in flight");
  variant<16, 16, 4, 8, kRotated, kRank0, kPlain>(ctx, "16 x 16 threads, rotated starts");
  variant<8, 16, 4, 8, kRotated, kRank0, kPlain>(ctx, "8 x 16 threads, rotated starts");
  variant<16, 16, 4, 8, kContiguous, kScatter, kPlain>(ctx, "16 x 16 threads, scatter combine");
  variant<16, 8, 8, 8, kContiguous, kRank0, kPlain>(
      ctx, "16 x 8 threads, 8 rows in flight, 32 x 8 blocks");
  variant<32, 8, 8, 8, kContiguous, kRank0, kPlain>(ctx, "32 x 8 threads, 8 rows, 16 x 8 blocks");
  variant<16, 32, 4, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 32 threads, 32 x 8 blocks");
  variant<16, 32, 2, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 32 threads, 2 rows in flight");
  variant<8, 32, 4, 8, kContiguous, kRank0, kPlain>(ctx, "8 x 32 threads, 64 x 8 blocks");
  variant<16, 16, 4, 4, kContiguous, kRank0, kPlain>(ctx, "16 x 16 threads, 32 x 4 blocks");
  // Run-to-run spread: the first variants again.
  variant<8, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx, "generated again");
  variant<16, 16, 4, 8, kContiguous, kRank0, kPlain>(ctx, "16 x 16 threads again");
  std::printf("%d variant(s) failed the check\n", ctx.failures);
  return ctx.failures == 0 ? 0 : 1;
}
