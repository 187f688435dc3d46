// Device helpers of the reduction-family kernels, emitted into each
// reduction and persistent kernel after the device helper header (namespace
// fl::red). Block sizes are template parameters, so each kernel gets the
// cheapest reduction its shape allows: butterflies within warps, one shared
// memory round across them. Every thread of the block calls them together,
// and every thread of a row (or column) gets the same bits: butterflies
// combine the lower lane's operand first, and cross-warp partials are
// combined in a fixed order (a butterfly over the warps where there are 8,
// 16 or 32 of them, warp order otherwise).
#include "core/codegen/reduction/reduction_emitter_common.h"

namespace fuserlab::codegen {
namespace {

constexpr const char* kReductionHelpers = R"FLRED(namespace fl {
namespace red {

template <class T>
struct WelfordOp {
  __device__ __forceinline__ static Welford<T> identity() { return welford_identity<T>(); }
  __device__ __forceinline__ Welford<T> operator()(const Welford<T>& a, const Welford<T>& b) const {
    return welford_combine(a, b);
  }
};

template <class T>
__device__ __forceinline__ T shfl_xor(T v, int offset, unsigned mask) {
  return __shfl_xor_sync(mask, v, offset);
}
__device__ __forceinline__ bool shfl_xor(bool v, int offset, unsigned mask) {
  return __shfl_xor_sync(mask, (int)v, offset) != 0;
}
template <class T>
__device__ __forceinline__ Welford<T> shfl_xor(Welford<T> w, int offset, unsigned mask) {
  Welford<T> o;
  o.avg = __shfl_xor_sync(mask, w.avg, offset);
  o.m2 = __shfl_xor_sync(mask, w.m2, offset);
  o.n = __shfl_xor_sync(mask, w.n, offset);
  return o;
}

//! One butterfly step: the lane with the lower id is the left operand, so
//! both partners compute the same value.
template <class T, class Op>
__device__ __forceinline__ T butterfly(T v, Op op, int offset, unsigned mask) {
  const T other = shfl_xor(v, offset, mask);
  const bool upper = ((threadIdx.y * blockDim.x + threadIdx.x) & offset) != 0;
  return upper ? op(other, v) : op(v, other);
}

//! The lanes of this thread's warp in a block of THREADS threads (the last
//! warp may be partial).
template <int THREADS>
__device__ __forceinline__ unsigned warp_mask() {
  if (THREADS % 32 == 0) return 0xffffffffu;
  const int base = (int)((threadIdx.y * blockDim.x + threadIdx.x) & ~31u);
  const int lanes = THREADS - base < 32 ? THREADS - base : 32;
  return lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u);
}

//! Shared memory entries row_allreduce<BX, BY> needs.
template <int BX, int BY>
__host__ __device__ constexpr int row_allreduce_smem() {
  return BX == 1 ? 0 : ((BX <= 32 && 32 % BX == 0) ? 0 : (BX % 32 == 0 ? BY * (BX / 32) : BX * BY));
}

//! Reduces `v` over threadIdx.x within each threadIdx.y of a BX x BY block;
//! every thread gets its row's result.
template <int BX, int BY, class T, class Op>
__device__ __forceinline__ T row_allreduce(T v, Op op, T* smem) {
  if constexpr (BX == 1) {
    return v;
  } else if constexpr (BX <= 32 && 32 % BX == 0) {
#pragma unroll
    for (int offset = BX / 2; offset > 0; offset /= 2) {
      v = butterfly(v, op, offset, warp_mask<BX * BY>());
    }
    return v;
  } else if constexpr (BX % 32 == 0) {
    constexpr int W = BX / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      v = butterfly(v, op, offset, 0xffffffffu);
    }
    if (threadIdx.x % 32 == 0) smem[threadIdx.y * W + threadIdx.x / 32] = v;
    __syncthreads();
    T r;
    if constexpr (W >= 8 && (W & (W - 1)) == 0) {
      // Lane l takes warp l % W's partial, and a butterfly over W lanes
      // combines them: log2(W) steps instead of W - 1 in every thread, the
      // same tree (so the same bits) in every group of W lanes. (Four warps
      // or fewer: the W - 1 shared loads and ops are cheaper than the
      // shuffles, 1% on softmax 8192x4096.)
      r = smem[threadIdx.y * W + (threadIdx.x % 32) % W];
#pragma unroll
      for (int offset = W / 2; offset > 0; offset /= 2) r = butterfly(r, op, offset, 0xffffffffu);
    } else {
      r = smem[threadIdx.y * W];
#pragma unroll
      for (int w = 1; w < W; ++w) r = op(r, smem[threadIdx.y * W + w]);
    }
    __syncthreads();
    return r;
  } else {
    const int row = threadIdx.y * BX;
    smem[row + threadIdx.x] = v;
    __syncthreads();
    constexpr int P = (BX >= 512) ? 512 : (BX >= 256) ? 256 : (BX >= 128) ? 128 : (BX >= 64) ? 64
                    : (BX >= 32) ? 32 : (BX >= 16) ? 16 : (BX >= 8) ? 8 : (BX >= 4) ? 4 : (BX >= 2) ? 2 : 1;
    if ((int)threadIdx.x < BX - P) smem[row + threadIdx.x] = op(smem[row + threadIdx.x], smem[row + threadIdx.x + P]);
    __syncthreads();
#pragma unroll
    for (int stride = P / 2; stride > 0; stride /= 2) {
      if ((int)threadIdx.x < stride) smem[row + threadIdx.x] = op(smem[row + threadIdx.x], smem[row + threadIdx.x + stride]);
      __syncthreads();
    }
    const T r = smem[row];
    __syncthreads();
    return r;
  }
}

//! Threads along y that share a warp with the same threadIdx.x.
template <int CX, int RY>
__host__ __device__ constexpr int col_lanes_per_warp() {
  return (CX >= 32 || 32 % CX != 0 || (RY & (RY - 1)) != 0) ? 1 : ((CX * RY < 32) ? RY : 32 / CX);
}
//! Shared memory entries col_allreduce<CX, RY, N, G> needs.
template <int CX, int RY, int G>
__host__ __device__ constexpr int col_allreduce_smem() {
  return RY / col_lanes_per_warp<CX, RY>() > 1 ? (RY / col_lanes_per_warp<CX, RY>()) * CX * G : 0;
}

//! The first step of both column reductions: the lanes of a warp that
//! share a threadIdx.x combine their values (each gets the warp's result).
template <int CX, int RY, int N, class T, class Op>
__device__ __forceinline__ void col_warp_combine(T (&v)[N], Op op) {
  constexpr int L = col_lanes_per_warp<CX, RY>();
  if constexpr (L > 1) {
#pragma unroll
    for (int offset = CX; offset < CX * L; offset *= 2) {
#pragma unroll
      for (int n = 0; n < N; ++n) v[n] = butterfly(v[n], op, offset, warp_mask<CX * RY>());
    }
  }
}

//! Reduces each of the N values of `v` over threadIdx.y within each
//! threadIdx.x of a CX x RY block; every thread gets its column's results.
//! Shared memory holds G values per thread column and warp at a time.
template <int CX, int RY, int N, int G, class T, class Op>
__device__ __forceinline__ void col_allreduce(T (&v)[N], Op op, T* smem) {
  constexpr int L = col_lanes_per_warp<CX, RY>();
  col_warp_combine<CX, RY>(v, op);
  constexpr int W = RY / L;  // partials per column after the butterflies
  if constexpr (W > 1) {
    const int group = threadIdx.y / L;
    const bool leader = threadIdx.y % L == 0;
#pragma unroll
    for (int base = 0; base < N; base += G) {
#pragma unroll
      for (int n = base; n < base + G && n < N; ++n) {
        if (leader) smem[(group * CX + threadIdx.x) * G + (n - base)] = v[n];
      }
      __syncthreads();
#pragma unroll
      for (int n = base; n < base + G && n < N; ++n) {
        T r = smem[threadIdx.x * G + (n - base)];
#pragma unroll
        for (int w = 1; w < W; ++w) r = op(r, smem[(w * CX + threadIdx.x) * G + (n - base)]);
        v[n] = r;
      }
      __syncthreads();
    }
  }
}

//! As col_allreduce, but only thread row 0 (threadIdx.y == 0) gets the
//! results; the other rows keep partial values. For kernels whose every
//! store after the reduction is row 0's. The warps' partials are laid out
//! column thread fastest ([value][warp][column thread]), so the stores and
//! row 0's loads hit distinct banks, and the other rows load nothing: on
//! the suite's col_sum (16 x 16 threads, H100) 26.7 us against 27.7 with
//! col_allreduce. Row 0 loads one value at a time, which costs more where
//! many short blocks each reduce (docs/performance.md). The partials are
//! combined in the same order as col_allreduce's: the same bits.
//! SYNC_AFTER false drops the barrier after row 0's last reads, for a caller
//! whose every thread reaches a barrier (the cluster's) before `smem` is
//! written again: on the suite's col_sum 26.80 -> 26.66 us.
template <int CX, int RY, int N, int G, bool SYNC_AFTER = true, class T, class Op>
__device__ __forceinline__ void col_reduce(T (&v)[N], Op op, T* smem) {
  constexpr int L = col_lanes_per_warp<CX, RY>();
  col_warp_combine<CX, RY>(v, op);
  constexpr int W = RY / L;  // partials per column after the butterflies
  if constexpr (W > 1) {
    const int group = threadIdx.y / L;
    const bool leader = threadIdx.y % L == 0;
#pragma unroll
    for (int base = 0; base < N; base += G) {
#pragma unroll
      for (int n = base; n < base + G && n < N; ++n) {
        if (leader) smem[((n - base) * W + group) * CX + threadIdx.x] = v[n];
      }
      __syncthreads();
      if (threadIdx.y == 0) {
#pragma unroll
        for (int n = base; n < base + G && n < N; ++n) {
          T r = smem[((n - base) * W) * CX + threadIdx.x];
#pragma unroll
          for (int w = 1; w < W; ++w) r = op(r, smem[((n - base) * W + w) * CX + threadIdx.x]);
          v[n] = r;
        }
      }
      if (SYNC_AFTER || base + G < N) __syncthreads();
    }
  }
}

//! Loads that bypass L1: partials other blocks wrote.
__device__ __forceinline__ float load_cg(const float* p) { return __ldcg(p); }
__device__ __forceinline__ double load_cg(const double* p) { return __ldcg(p); }
__device__ __forceinline__ int64_t load_cg(const int64_t* p) {
  return (int64_t)__ldcg((const long long*)p);
}
template <class T>
__device__ __forceinline__ Welford<T> load_cg(const Welford<T>* p) {
  Welford<T> w;
  w.avg = load_cg(&p->avg);
  w.m2 = load_cg(&p->m2);
  w.n = load_cg(&p->n);
  return w;
}

//! Outer Welford accumulators (slot s = k * V + v; the V lanes of column
//! group k count the same rows) reduced over threadIdx.y in two passes of
//! plain sums instead of Chan combines: the count and the sum of n * avg
//! give each column's mean, then the sum of m2 + n * (avg - mean)^2 gives
//! its m2. One division a slot, no 64-bit counts or divisions per butterfly
//! step (a Welford col_allreduce over 8 lanes was most of a short block's
//! instructions; docs/performance.md). The mean's error is a float sum's,
//! as a mean computed by a sum; m2 feels it only to second order. ALL:
//! every thread gets the results (col_allreduce), else thread row 0 only
//! (col_reduce, SYNC_AFTER as there); `smem` holds col_allreduce's entries
//! of Welford<T>, which hold its T and 64-bit entries. EQUAL: every thread
//! row counted the same rows of each column (the block's rows tile its
//! range), so the mean is the rows' means summed over RY, with no pass
//! over the counts (var_mean bf16 [16384, 2048], H100: 0.65 us less).
template <int CX, int RY, int N, int G, int V, bool ALL, bool SYNC_AFTER = true,
          bool EQUAL = false, class T>
__device__ __forceinline__ void col_welford(Welford<T> (&w)[N], Welford<T>* smem) {
  static_assert(N % V == 0, "whole column groups");
  constexpr int K = N / V;
  int64_t n[K];
#pragma unroll
  for (int k = 0; k < K; ++k) n[k] = EQUAL ? w[k * V].n * RY : w[k * V].n;
  T s[N];
#pragma unroll
  for (int i = 0; i < N; ++i) s[i] = EQUAL ? w[i].avg : (T)w[i].n * w[i].avg;
  if constexpr (!EQUAL) {
    col_allreduce<CX, RY, K, (G < K ? G : K)>(n, SumOp<int64_t>(), reinterpret_cast<int64_t*>(smem));
  }
  col_allreduce<CX, RY, N, G>(s, SumOp<T>(), reinterpret_cast<T*>(smem));
  T q[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if constexpr (EQUAL) {
      s[i] = s[i] / T(RY);  // the mean (0 where no row counted)
    } else {
      s[i] = n[i / V] == 0 ? T(0) : s[i] / (T)n[i / V];  // the mean
    }
    const T d = w[i].avg - s[i];
    q[i] = w[i].m2 + (T)w[i].n * d * d;
  }
  if constexpr (ALL) {
    col_allreduce<CX, RY, N, G>(q, SumOp<T>(), reinterpret_cast<T*>(smem));
  } else {
    col_reduce<CX, RY, N, G, SYNC_AFTER>(q, SumOp<T>(), reinterpret_cast<T*>(smem));
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    w[i].avg = s[i];
    w[i].m2 = q[i];
    w[i].n = n[i / V];
  }
}

//! Welford partials p[0], p[stride], ... (`count` of them, loaded past L1
//! where CG: other blocks wrote them) merged in the same two passes as
//! col_welford: their count and sum of n * avg, then their m2 plus n times
//! the squared distance of their mean from the merged mean. EQUAL: every
//! partial counts the same rows (the blocks' ranges tile the rows), so the
//! mean is their means' sum over `count`, with no 64-bit count loaded.
template <bool CG, bool EQUAL = false, class T>
__device__ __forceinline__ Welford<T> welford_merge(const Welford<T>* p, int64_t stride, int count) {
  if constexpr (EQUAL) {
    // The count is loaded beside the means, not before them: a workspace
    // split's loads go to L2, and a test first would wait a round trip.
    Welford<T> r = welford_identity<T>();
    if (count <= 0) return r;
    const int64_t each = CG ? load_cg(&p->n) : p->n;
    T s = T(0);
    for (int i = 0; i < count; ++i) s += CG ? load_cg(&p[i * stride].avg) : p[i * stride].avg;
    const T mean = s / (T)count;
    T m2 = T(0);
    for (int i = 0; i < count; ++i) {
      const T d = (CG ? load_cg(&p[i * stride].avg) : p[i * stride].avg) - mean;
      m2 += (CG ? load_cg(&p[i * stride].m2) : p[i * stride].m2) + (T)each * d * d;
    }
    if (each == 0) return r;
    r.n = each * count;
    r.avg = mean;
    r.m2 = m2;
    return r;
  }
  int64_t n = 0;
  T s = T(0);
  for (int i = 0; i < count; ++i) {
    const Welford<T> w = CG ? load_cg(p + i * stride) : p[i * stride];
    n += w.n;
    s += (T)w.n * w.avg;
  }
  Welford<T> r = welford_identity<T>();
  if (n == 0) return r;
  r.n = n;
  r.avg = s / (T)n;
  for (int i = 0; i < count; ++i) {
    const Welford<T> w = CG ? load_cg(p + i * stride) : p[i * stride];
    const T d = w.avg - r.avg;
    r.m2 += w.m2 + (T)w.n * d * d;
  }
  return r;
}

//! Whether this block is the last of `count` blocks to arrive at
//! `semaphore` (zero before the launch); the same answer in every thread.
//! Writes before the call are visible to the last block after it. The last
//! block sets the semaphore back to zero (every other block has arrived and
//! will not touch it again in this launch), so the next launch finds it
//! zero without a memset.
__device__ __forceinline__ bool arrive_last(unsigned* semaphore, unsigned count, bool* flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const bool last = atomicAdd(semaphore, 1u) == count - 1u;
    if (last) *semaphore = 0u;
    *flag = last;
  }
  __syncthreads();
  const bool last = *flag;
  __syncthreads();
  if (last) __threadfence();
  return last;
}

//! Waits until `count` blocks arrived at `semaphore` (zero before the
//! launch) `round` times each; all of them must be resident.
__device__ __forceinline__ void grid_sync(unsigned* semaphore, unsigned count, unsigned round) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    atomicAdd(semaphore, 1u);
    while (*(volatile unsigned*)semaphore < count * round) __nanosleep(64);
    __threadfence();
  }
  __syncthreads();
}

//! After a block's last grid_sync on `semaphore`: the last of the `count`
//! blocks to get here (counted at `exits`, zero before the launch) has seen
//! every block leave its last wait, so no block reads the semaphore again
//! in this launch, and it sets both back to zero. The next launch finds
//! them zero without a memset before it (the executor zeroes the workspace
//! once, when it allocates it).
//! (Thread 0 of each block did the block's waits, so it alone arrives.)
__device__ __forceinline__ void grid_sync_reset(unsigned* semaphore, unsigned* exits, unsigned count) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && atomicAdd(exits, 1u) == count - 1u) {
    *semaphore = 0u;
    *exits = 0u;
  }
}

//! Thread-block clusters (sm_90 and later; the kernel is declared with
//! __cluster_dims__). cluster_sync: every thread of every block of the
//! cluster arrives, with release semantics for the shared memory it wrote,
//! and waits for the others (acquire). cluster_map: the address of the same
//! shared variable in the block of cluster rank `rank`, for ordinary loads
//! and stores.
__device__ __forceinline__ unsigned cluster_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
#else
  __trap();
  return 0u;
#endif
}

__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  __trap();
#endif
}

template <typename T>
__device__ __forceinline__ T* cluster_map(T* local, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned long long remote;
  asm("mapa.u64 %0, %1, %2;" : "=l"(remote)
      : "l"(reinterpret_cast<unsigned long long>(local)), "r"(rank));
  return reinterpret_cast<T*>(remote);
#else
  __trap();
  return local;
#endif
}

//! A cluster's combine into rank 0 without a closing cluster barrier
//! (outer reduction kernels): rank 0 holds an mbarrier, initialized at the
//! kernel's start and published by a cluster barrier that every thread
//! arrives at there (rank0_mbarrier_init) and waits on only after its loop
//! (cluster_wait), when it has long completed. The other ranks store their
//! partials into rank 0's shared memory with st.async, which counts the
//! bytes on that mbarrier as they land (store_async_rank0), and are done;
//! rank 0 says how many bytes to expect (rank0_expect) and waits for them
//! (rank0_wait). A closing barrier.cluster.arrive.release waits for every
//! remote store to be acknowledged first (0.38 us on the suite's col_sum,
//! H100; tests/perf/harness/col_sum_combine_probe.cu), and every rank waits
//! for the slowest; here only rank 0 waits, and for one-way traffic.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void rank0_mbarrier_init(unsigned long long* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (cluster_rank() == 0u && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#else
  __trap();
#endif
}

__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  __trap();
#endif
}

//! Stores the N values `v` at `slot`'s place (and after) in rank 0's
//! shared memory, counted on rank 0's `bar`: in 16-byte pieces where the
//! values' bytes are a multiple of 16 (`slot` 16-byte aligned), else 8 or 4.
//! Each piece is one transaction on the mbarrier, and they are what the
//! combine's time grows with.
template <int N, typename T>
__device__ __forceinline__ void store_async_rank0(T* slot, const T (&v)[N], unsigned long long* bar) {
  static_assert(sizeof(T) % 4 == 0 && alignof(T) >= 4, "st.async moves 32-bit words");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kWords = (int)(N * sizeof(T) / 4);
  constexpr int kPiece = kWords % 4 == 0 ? 4 : (kWords % 2 == 0 ? 2 : 1);
  unsigned to, at;
  asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(to) : "r"(shared_address(slot)));
  asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(at) : "r"(shared_address(bar)));
  const unsigned* w = reinterpret_cast<const unsigned*>(v);
#pragma unroll
  for (int i = 0; i < kWords; i += kPiece) {
    if constexpr (kPiece == 4) {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                   ::"r"(to + 4u * i), "r"(w[i]), "r"(w[i + 1]), "r"(w[i + 2]), "r"(w[i + 3]), "r"(at)
                   : "memory");
    } else if constexpr (kPiece == 2) {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                   ::"r"(to + 4u * i), "r"(w[i]), "r"(w[i + 1]), "r"(at) : "memory");
    } else {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                   ::"r"(to + 4u * i), "r"(w[i]), "r"(at) : "memory");
    }
  }
#else
  __trap();
#endif
}

//! Rank 0's one arrival: the bytes the other ranks' st.async will bring.
__device__ __forceinline__ void rank0_expect(unsigned long long* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               ::"r"(shared_address(bar)), "r"(bytes) : "memory");
#else
  __trap();
#endif
}

//! Until every expected byte has landed (the barrier's first phase; its
//! acquire makes them visible to the calling thread).
__device__ __forceinline__ void rank0_wait(unsigned long long* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(shared_address(bar)) : "memory");
  }
#else
  __trap();
#endif
}

//! An outer persistent kernel's column group split over the R blocks of a
//! cluster (along y): every block needs the group's total. Thread row 0
//! holds its block's partials (col_reduce) and stores them into slot [its
//! rank] of `xch` (R x CX x N values in shared memory) in every block of
//! the cluster; after one cluster barrier each thread combines the R slots
//! of its columns from its own block's shared memory, in rank order, so
//! every block gets the same bits. One barrier and local reads, where a
//! grid barrier needs a fence, an atomic, a spin and loads from L2
//! (BatchNorm forward [16384, 128] bf16: 18.6 -> 13.2 us, H100).
//! Each call takes its own `xch`: a block still reading one exchange's
//! slots is not written into by the next.
template <int CX, int N, int R, class T, class Op>
__device__ __forceinline__ void cluster_allreduce(T (&v)[N], Op op, T* xch, bool ok) {
  if (threadIdx.y == 0 && ok) {
    T* mine = xch + (cluster_rank() * CX + threadIdx.x) * N;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      T* slot = cluster_map(mine, (unsigned)r);
#pragma unroll
      for (int n = 0; n < N; ++n) slot[n] = v[n];
    }
  }
  cluster_sync();
  if (!ok) return;
#pragma unroll
  for (int n = 0; n < N; ++n) v[n] = xch[threadIdx.x * N + n];
#pragma unroll
  for (int r = 1; r < R; ++r) {
#pragma unroll
    for (int n = 0; n < N; ++n) v[n] = op(v[n], xch[(r * CX + threadIdx.x) * N + n]);
  }
}

//! An inner persistent kernel's rows split over the R blocks of a cluster
//! (along y, rank = blockIdx.y): after row_allreduce every thread holds its
//! block's partial of its row (threadIdx.y). Thread x 0 of each row stores
//! it into slot [its rank][threadIdx.y] of `xch` (R x BY values in shared
//! memory) in every block of the cluster; after one cluster barrier every
//! thread combines its row's R slots from its own block's shared memory, in
//! rank order, so every block gets the same bits. Each step takes its own
//! `xch`, as in cluster_allreduce.
template <int BY, int R, class T, class Op>
__device__ __forceinline__ T cluster_row_allreduce(T v, Op op, T* xch) {
  if (threadIdx.x == 0) {
    T* mine = xch + cluster_rank() * BY + threadIdx.y;
#pragma unroll
    for (int r = 0; r < R; ++r) *cluster_map(mine, (unsigned)r) = v;
  }
  cluster_sync();
  T total = xch[threadIdx.y];
#pragma unroll
  for (int r = 1; r < R; ++r) total = op(total, xch[r * BY + threadIdx.y]);
  return total;
}

}  // namespace red
}  // namespace fl
)FLRED";

// The running log-sum-exp of ReductionOpType::LogSumExp, emitted before the
// helpers above (their butterflies find its shfl_xor) into the kernels that
// have such a step only.
constexpr const char* kLogSumExpHelpers = R"FLLSE(namespace fl {

//! A running log-sum-exp: the largest value m seen and the sum s of
//! exp(x - m) over the values seen, rescaled when m grows: one exp an
//! element, where a max and then a sum of exps take two passes. A -inf adds
//! nothing; a NaN makes s NaN; the value is NaN where m is +inf or -inf,
//! as max + log(sum(exp(x - max))) gives there.
template <class T>
struct LogSumExp {
  T m;
  T s;
};
__device__ __forceinline__ float lse_exp(float v) { return expf(v); }
__device__ __forceinline__ double lse_exp(double v) { return ::exp(v); }
__device__ __forceinline__ float lse_log(float v) { return logf(v); }
__device__ __forceinline__ double lse_log(double v) { return ::log(v); }
template <class T>
__device__ __forceinline__ LogSumExp<T> lse_identity() {
  LogSumExp<T> a;
  a.m = lowest_value<T>();
  a.s = T(0);
  return a;
}
template <class T>
__device__ __forceinline__ void lse_update(LogSumExp<T>& a, T x) {
  if (x == lowest_value<T>()) return;
  const T d = x - a.m;
  const T e = lse_exp(-fabs(d));
  if (d > T(0)) {
    a.s = a.s * e + T(1);
    a.m = x;
  } else {
    a.s += e;
  }
}
//! a.s rescaled to the larger maximum m (a NaN sum stays NaN).
template <class T>
__device__ __forceinline__ T lse_scaled(const LogSumExp<T>& a, T m) {
  return a.m == lowest_value<T>() ? a.s * T(0) : a.s * lse_exp(a.m - m);
}
//! exp(x - m) for a chunk's terms: for float ex2.approx of (x - m) *
//! log2(e) (3 instructions; x - m is exact near the max, so the largest
//! terms are exact to ex2's 2^-22: an fma of x * log2(e) - m * log2(e) saves
//! one but is off by |m| * 2^-24 there, and log_softmax at the max of values
//! near 255 was 1.5e-5 instead of 0, difftest seed 465848), exp for double.
__device__ __forceinline__ float lse_exp_term(float x, float m) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"((x - m) * 1.4426950408889634f));
  return r;
}
__device__ __forceinline__ double lse_exp_term(double x, double m) { return ::exp(x - m); }
__device__ __forceinline__ float lse_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double lse_max(double a, double b) { return fmax(a, b); }
//! Folds a chunk of V values of one row: the chunk's max first (one rescale
//! at most; NaNs are left to the sum), then an exp a value. Where the max is
//! still -inf, every value is -inf (adds nothing) or NaN (makes the sum NaN).
template <class T, int V>
__device__ __forceinline__ void lse_fold(LogSumExp<T>& a, const T (&x)[V]) {
  T cm = x[0];
#pragma unroll
  for (int v = 1; v < V; ++v) cm = lse_max(cm, x[v]);
  if (cm > a.m) {
    a.s = lse_scaled(a, cm);
    a.m = cm;
  }
  T sum = T(0);
  if (a.m == lowest_value<T>()) {
#pragma unroll
    for (int v = 0; v < V; ++v) sum += x[v] == x[v] ? T(0) : x[v];
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) sum += lse_exp_term(x[v], a.m);
  }
  a.s += sum;
}
template <class T>
__device__ __forceinline__ LogSumExp<T> lse_combine(const LogSumExp<T>& a, const LogSumExp<T>& b) {
  LogSumExp<T> r;
  r.m = a.m > b.m ? a.m : b.m;
  r.s = lse_scaled(a, r.m) + lse_scaled(b, r.m);
  return r;
}
template <class T>
__device__ __forceinline__ T lse_value(const LogSumExp<T>& a) {
  if (a.m == lowest_value<T>() || a.m == highest_value<T>()) return a.m - a.m;  // NaN
  return a.m + lse_log(a.s);
}

namespace red {
template <class T>
struct LogSumExpOp {
  __device__ __forceinline__ static LogSumExp<T> identity() { return lse_identity<T>(); }
  __device__ __forceinline__ LogSumExp<T> operator()(const LogSumExp<T>& a,
                                                     const LogSumExp<T>& b) const {
    return lse_combine(a, b);
  }
};
template <class T>
__device__ __forceinline__ LogSumExp<T> load_cg(const LogSumExp<T>* p) {
  LogSumExp<T> a;
  a.m = __ldcg(&p->m);
  a.s = __ldcg(&p->s);
  return a;
}
template <class T>
__device__ __forceinline__ LogSumExp<T> shfl_xor(LogSumExp<T> a, int offset, unsigned mask) {
  LogSumExp<T> o;
  o.m = __shfl_xor_sync(mask, a.m, offset);
  o.s = __shfl_xor_sync(mask, a.s, offset);
  return o;
}
}  // namespace red
}  // namespace fl
)FLLSE";

}  // namespace

std::string_view reductionDeviceHelpers() { return kReductionHelpers; }
std::string_view logSumExpDeviceHelpers() { return kLogSumExpHelpers; }

}  // namespace fuserlab::codegen
