// The device helper header ("fuserlab_device.cuh") compiled with every
// generated kernel. It is self-contained: NVRTC compiles it without include
// paths, so it defines its own fixed-width integer types and includes no
// toolkit header. The CUDA built-ins it uses (math functions, __shfl_*_sync,
// bit casts) are the ones NVRTC provides without includes.
//
// Element semantics follow the CPU reference executor
// (core/reference/reference_math.h and element_type.h) so that the GPU and the
// reference agree: integer arithmetic wraps, division truncates, remainder
// takes the divisor's sign, maximum/minimum/clamp propagate NaN, conversions
// to half/bfloat16 round to nearest even exactly once (also from double and
// int64, through round-to-odd), floating point to integer truncates,
// saturates and maps NaN to 0, and anything to bool is `!= 0`.
//
// Names the emitters (and the reduction/persistent emitters) use:
//   fl::Tensor<T, R>            kernel parameter (see core/codegen/kernel.h)
//   fl::half, fl::bfloat16      16-bit storage types
//   fl::load_value / store_value / to_element<T>  element <-> value (float
//                               for 16-bit types)
//   fl::round_to_half / round_to_bf16   a value rounded to the dtype, as float
//   fl::to_bool / to_int32 / to_int64 / to_float / to_double   castElement
//   fl::Array<T, N, Align>      N elements for one vectorized access
//   fl::load_vector / store_vector   16-byte (or narrower) accesses
//   fl::load_lane(chunk, i)     lane i of a loaded chunk, as load_value
//   fl::add/sub/mul/div/...     op semantics on float, double, int64_t
//   fl::tanh_approx             hardware tanh (bf16-output kernels only)
//   fl::exp_approx              hardware exp (half/bf16-output kernels only)
//   fl::sigmoid_approx / silu_approx   from exp_approx and fdiv_approx (same)
//   fl::fdiv / fdiv_approx      float a / b: IEEE, or div.full.f32 (half/bf16-
//                               output kernels only)
//   fl::SumOp/ProdOp/MaxOp/MinOp   reduction ops: identity() and operator()
//   fl::warp_reduce(v, op)      butterfly over the 32 lanes; every lane gets it
//   fl::block_reduce_x(v, op, smem)  over threadIdx.x, per threadIdx.y row;
//                                    smem holds blockDim.x * blockDim.y values
//   fl::block_broadcast_x(v, src_x, smem)  one row's value to the whole row
//   fl::Welford<T>              {avg, m2, n}; welford_update / welford_combine,
//                               welford_fold_lanes (chunks into lanes of one count),
//                               ShiftedChunks, shifted_fold_lanes / shifted_to_welford
//                               (chunks of one count in every step and thread),
//                               warp_welford, block_welford_x
//   fl::rng::uniformStandardF / uniformRangeF / normalStandardF / ...
//                               random ops' values from Philox (appended:
//                               core/ir/random_numbers.inc), with
//                               fl::rng::RoundIdentity / RoundToHalf /
//                               RoundToBFloat16 for the output dtype
#include "core/codegen/codegen.h"

#include <string>

namespace fuserlab::codegen {
namespace {

constexpr const char* kDeviceHeader =
    R"FLDEVICE(// fuserlab_device.cuh: FuserLab's device helpers (generated code includes this).
#pragma once

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

namespace fl {

// ---------------------------------------------------------------------------
// Kernel parameters (ABI: core/codegen/kernel.h).
template <class T, int R>
struct Tensor {
  T* data;
  int64_t size[R];
  int64_t stride[R];
};
template <class T>
struct Tensor<T, 0> {
  T* data;
};

// ---------------------------------------------------------------------------
// Programmatic dependent launch (sm_90+). Every generated kernel opens with
// this: it waits for the kernel before it in the stream to finish and its
// writes to be visible before touching global memory. The runtime launches a
// kernel as a programmatic dependent only where it opens this way
// (GeneratedKernel::waitsForPriorGrids); launched plainly, it is free. No
// kernel triggers its dependents early (griddepcontrol.launch_dependents):
// they are scheduled as its blocks exit. An early trigger in every block
// cost a plain launch of a many-wave kernel 29% on an H100 (the suite's
// cast chain, 65536 blocks: 63.7 -> 82.1 us) and bought nothing on the
// examples with several kernels (docs/performance.md).
__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// ---------------------------------------------------------------------------
// 16-bit floating-point storage.
struct alignas(2) half {
  uint16_t bits;
};
struct alignas(2) bfloat16 {
  uint16_t bits;
};

// float -> half, round to nearest even (cvt.rn.f16.f32, sm_53+).
__device__ __forceinline__ half float_to_half(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  half h;
  h.bits = bits;
  return h;
}
__device__ __forceinline__ float half_to_float(half value) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(value.bits));
  return f;
}
// float -> bfloat16, round to nearest even; NaN stays NaN (quiet), as the
// host's BFloat16: cvt.rn.bf16.f32 on sm_80+, bit operations before.
__device__ __forceinline__ bfloat16 float_to_bf16(float value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  bfloat16 b;
  b.bits = bits;
  return b;
#else
  const uint32_t raw = __float_as_uint(value);
  const uint32_t rounded = (raw + 0x7FFFu + ((raw >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (raw >> 16) | 0x0040u;
  bfloat16 b;
  b.bits = (uint16_t)((raw & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded);
  return b;
#endif
}
__device__ __forceinline__ float bf16_to_float(bfloat16 value) {
  return __uint_as_float(((uint32_t)value.bits) << 16);
}

// Round-to-odd narrowing: a value rounded to odd into a format at least two
// bits wider than the final one, then rounded to nearest, is rounded once.
__device__ __forceinline__ float double_to_float_round_to_odd(double value) {
  const float truncated = __double2float_rz(value);
  if ((double)truncated == value || value != value) return truncated;
  return __uint_as_float(__float_as_uint(truncated) | 1u);
}
__device__ __forceinline__ double int64_to_double_round_to_odd(int64_t value) {
  const uint64_t magnitude = value < 0 ? 0ull - (uint64_t)value : (uint64_t)value;
  if (magnitude < (1ull << 53)) return (double)value;
  const int dropped = 64 - __clzll((long long)magnitude) - 53;
  const uint64_t mask = (1ull << dropped) - 1;
  uint64_t kept = magnitude & ~mask;
  if ((magnitude & mask) != 0) kept |= 1ull << dropped;
  const double result = (double)kept;  // exact
  return value < 0 ? -result : result;
}

// A value rounded to half / bfloat16, held as float (how generated code
// keeps 16-bit values between ops).
__device__ __forceinline__ float round_to_half(float x) {
  return half_to_float(float_to_half(x));
}
__device__ __forceinline__ float round_to_half(double x) {
  return round_to_half(double_to_float_round_to_odd(x));
}
__device__ __forceinline__ float round_to_half(int64_t x) {
  return round_to_half(int64_to_double_round_to_odd(x));
}
__device__ __forceinline__ float round_to_half(int32_t x) {
  return round_to_half((double)x);
}
__device__ __forceinline__ float round_to_half(bool x) { return x ? 1.0f : 0.0f; }
__device__ __forceinline__ float round_to_bf16(float x) {
  return bf16_to_float(float_to_bf16(x));
}
__device__ __forceinline__ float round_to_bf16(double x) {
  return round_to_bf16(double_to_float_round_to_odd(x));
}
__device__ __forceinline__ float round_to_bf16(int64_t x) {
  return round_to_bf16(int64_to_double_round_to_odd(x));
}
__device__ __forceinline__ float round_to_bf16(int32_t x) {
  return round_to_bf16((double)x);
}
__device__ __forceinline__ float round_to_bf16(bool x) { return x ? 1.0f : 0.0f; }

// ---------------------------------------------------------------------------
// Conversions with the reference's castElement semantics.
__device__ __forceinline__ bool to_bool(bool x) { return x; }
__device__ __forceinline__ bool to_bool(int32_t x) { return x != 0; }
__device__ __forceinline__ bool to_bool(int64_t x) { return x != 0; }
__device__ __forceinline__ bool to_bool(float x) { return x != 0.0f; }  // NaN: true
__device__ __forceinline__ bool to_bool(double x) { return x != 0.0; }

// Floating point to integer: truncation, saturation, NaN -> 0 (cvt.rzi).
__device__ __forceinline__ int64_t to_int64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) return 0x7FFFFFFFFFFFFFFFll;
  if (x <= -9223372036854775808.0) return (int64_t)(0x8000000000000000ull);
  return (int64_t)x;
}
__device__ __forceinline__ int64_t to_int64(float x) { return to_int64((double)x); }
__device__ __forceinline__ int64_t to_int64(int64_t x) { return x; }
__device__ __forceinline__ int64_t to_int64(int32_t x) { return x; }
__device__ __forceinline__ int64_t to_int64(bool x) { return x ? 1 : 0; }
__device__ __forceinline__ int32_t to_int32(double x) {
  if (x != x) return 0;
  if (x >= 2147483648.0) return 0x7FFFFFFF;
  if (x <= -2147483648.0) return (int32_t)0x80000000u;
  return (int32_t)x;
}
__device__ __forceinline__ int32_t to_int32(float x) { return to_int32((double)x); }
__device__ __forceinline__ int32_t to_int32(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
__device__ __forceinline__ int32_t to_int32(int32_t x) { return x; }
__device__ __forceinline__ int32_t to_int32(bool x) { return x ? 1 : 0; }
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(double x) { return (float)x; }
__device__ __forceinline__ float to_float(int64_t x) { return (float)x; }  // one rounding
__device__ __forceinline__ float to_float(int32_t x) { return (float)x; }
__device__ __forceinline__ float to_float(bool x) { return x ? 1.0f : 0.0f; }
__device__ __forceinline__ double to_double(double x) { return x; }
__device__ __forceinline__ double to_double(float x) { return (double)x; }
__device__ __forceinline__ double to_double(int64_t x) { return (double)x; }
__device__ __forceinline__ double to_double(int32_t x) { return (double)x; }
__device__ __forceinline__ double to_double(bool x) { return x ? 1.0 : 0.0; }

// Element <-> value: 16-bit types are computed on as float.
__device__ __forceinline__ float load_value(half x) { return half_to_float(x); }
__device__ __forceinline__ float load_value(bfloat16 x) { return bf16_to_float(x); }
__device__ __forceinline__ float load_value(float x) { return x; }
__device__ __forceinline__ double load_value(double x) { return x; }
__device__ __forceinline__ int64_t load_value(int64_t x) { return x; }
__device__ __forceinline__ int32_t load_value(int32_t x) { return x; }
__device__ __forceinline__ bool load_value(bool x) { return x; }
// The value must already be rounded to the element type (exact conversion).
__device__ __forceinline__ void store_value(half* p, float v) { *p = float_to_half(v); }
__device__ __forceinline__ void store_value(bfloat16* p, float v) { *p = float_to_bf16(v); }
__device__ __forceinline__ void store_value(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_value(double* p, double v) { *p = v; }
__device__ __forceinline__ void store_value(int64_t* p, int64_t v) { *p = v; }
__device__ __forceinline__ void store_value(int32_t* p, int32_t v) { *p = v; }
__device__ __forceinline__ void store_value(bool* p, bool v) { *p = v; }
// A value as an element of type T: fl::to_element<fl::half>(v).
template <class T>
struct ElementOf {
  template <class V>
  __device__ __forceinline__ static T from(V v) { return (T)v; }
};
template <>
struct ElementOf<half> {
  __device__ __forceinline__ static half from(float v) { return float_to_half(v); }
};
template <>
struct ElementOf<bfloat16> {
  __device__ __forceinline__ static bfloat16 from(float v) { return float_to_bf16(v); }
};
template <class T, class V>
__device__ __forceinline__ T to_element(V v) { return ElementOf<T>::from(v); }

// ---------------------------------------------------------------------------
// Vector accesses.
template <class T, int N, int Align = (int)sizeof(T) * N>
struct alignas(Align) Array {
  T v[N];
  __device__ __forceinline__ T& operator[](int i) { return v[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return v[i]; }
};
//! N elements at `p`, which must be aligned to N * sizeof(T) bytes.
template <int N, class T>
__device__ __forceinline__ Array<T, N> load_vector(const T* p) {
  return *reinterpret_cast<const Array<T, N>*>(p);
}
template <int N, class T>
__device__ __forceinline__ void store_vector(T* p, const Array<T, N>& a) {
  *reinterpret_cast<Array<T, N>*>(p) = a;
}
//! Lane i of a loaded chunk, as load_value gives it. A bfloat16 chunk of
//! whole 32-bit words reads the lane's word and shifts or masks the value
//! into place: extracting the 16-bit element first costs an odd lane a PRMT
//! and a MOV besides the shift (col_sum bf16 8192x4096, H100: 26.9 -> 26.75
//! us; docs/performance.md).
template <class T, int N, int A>
__device__ __forceinline__ auto load_lane(const Array<T, N, A>& a, int i) {
  return load_value(a[i]);
}
template <int N, int A>
__device__ __forceinline__ float load_lane(const Array<bfloat16, N, A>& a, int i) {
  if constexpr (N % 2 == 0 && A % 4 == 0) {
    const uint32_t word = reinterpret_cast<const uint32_t*>(a.v)[i / 2];
    return __uint_as_float((i & 1) ? (word & 0xFFFF0000u) : (word << 16));
  } else {
    return bf16_to_float(a[i]);
  }
}

// ---------------------------------------------------------------------------
// Arithmetic with the reference's semantics. Floating point is IEEE (no fast
// math); integers wrap (through uint64) and never trap.
__device__ __forceinline__ bool is_nan(float x) { return x != x; }
__device__ __forceinline__ bool is_nan(double x) { return x != x; }
__device__ __forceinline__ bool is_nan(int64_t) { return false; }

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ int64_t add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ int64_t sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ int64_t mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
__device__ __forceinline__ float neg(float a) { return -a; }
__device__ __forceinline__ double neg(double a) { return -a; }
__device__ __forceinline__ int64_t neg(int64_t a) { return (int64_t)(0ull - (uint64_t)a); }
__device__ __forceinline__ float abs(float a) { return fabsf(a); }
__device__ __forceinline__ double abs(double a) { return ::fabs(a); }
__device__ __forceinline__ int64_t abs(int64_t a) { return a < 0 ? neg(a) : a; }

// a / b in float, rounded to nearest as `/` is. The compiler's division
// sends a zero numerator down its slow path (a call), and a softmax's
// masked probabilities are exact zeros: in causal_mask_iota 97% of the
// warps' divisions took it (11.1 us against softmax's 8.2 on the same
// shape, H100). A zero's quotient needs no division: a zero signed as
// a * b would be, or NaN for a zero or NaN divisor.
__device__ __forceinline__ float fdiv(float a, float b) {
  const bool zero = a == 0.0f;
  // Through an opaque move: otherwise the compiler folds the select into
  // the division (a / b and 1 / b, then a select) and a zero reaches the
  // division again.
  float n;
  asm("mov.b32 %0, %1;" : "=f"(n) : "f"(zero ? 1.0f : a));
  const float q = n / b;
  if (!zero) return q;
  return (b == 0.0f || b != b) ? __int_as_float(0x7fffffff)
                               : __int_as_float((__float_as_int(a) ^ __float_as_int(b)) & (int)0x80000000);
}

// a / b by div.full.f32: at most 2 ulp from the IEEE quotient, over the
// whole range (the operands are scaled), with inf, NaN and signed zeros as
// `/` gives them; subnormal quotients flush to zero. No range check and no
// slow path: only for kernels whose every output is half or bf16
// (codegen::Approximations), whose ulp hides the error.
__device__ __forceinline__ float fdiv_approx(float a, float b) {
  float q;
  asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
  return q;
}

// C division (truncation); a zero divisor gives 0 instead of trapping (the
// reference reports it as an error).
__device__ __forceinline__ float div(float a, float b) { return a / b; }
__device__ __forceinline__ double div(double a, double b) { return a / b; }
__device__ __forceinline__ int64_t div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  return b == -1 ? neg(a) : a / b;
}
__device__ __forceinline__ float fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double fmod(double a, double b) { return ::fmod(a, b); }
__device__ __forceinline__ int64_t fmod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  return b == -1 ? 0 : a % b;
}
// Python remainder: the divisor's sign.
template <class T>
__device__ __forceinline__ T remainder(T a, T b) {
  T r = fl::fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
__device__ __forceinline__ float ceil_div(float a, float b) { return ceilf(a / b); }
__device__ __forceinline__ double ceil_div(double a, double b) { return ::ceil(a / b); }
__device__ __forceinline__ int64_t ceil_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  const int64_t q = div(a, b);
  const bool inexact = fl::fmod(a, b) != 0;
  return inexact && ((a < 0) == (b < 0)) ? q + 1 : q;
}
// torch.gcd: Euclid on the unsigned magnitudes (INT64_MIN does not
// overflow), as ir::gcdOfMagnitudes computes it for the reference.
__device__ __forceinline__ int64_t gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0ull - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? 0ull - (uint64_t)b : (uint64_t)b;
  while (y != 0) {
    const uint64_t t = x % y;
    x = y;
    y = t;
  }
  return (int64_t)x;
}
__device__ __forceinline__ float pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double pow(double a, double b) { return ::pow(a, b); }
__device__ __forceinline__ int64_t pow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) != 0 ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  int64_t square = base;
  for (int64_t e = exponent; e != 0; e >>= 1) {
    if ((e & 1) != 0) result = mul(result, square);
    square = mul(square, square);
  }
  return result;
}
// torch.maximum / minimum: NaN if either operand is NaN.
template <class T>
__device__ __forceinline__ T maximum(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? b : a;
}
template <class T>
__device__ __forceinline__ T minimum(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return b < a ? b : a;
}
// Floats on sm_80+: one FMNMX.NAN (`max.NaN`/`min.NaN`: a NaN operand gives
// the canonical NaN). The generic form compiles to a branch per call, which
// made an amax over registers and its warp butterfly most of a short row's
// instructions (softmax of 8192 rows of 256 bf16, H100: 7.7 -> 6.2 us;
// docs/performance.md).
__device__ __forceinline__ float maximum(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return maximum<float>(a, b);
#endif
}
__device__ __forceinline__ float minimum(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return minimum<float>(a, b);
#endif
}
template <class T>
__device__ __forceinline__ T clamp(T x, T low, T high) {
  return minimum(maximum(x, low), high);
}
// torch.lerp: exact at both ends.
template <class T>
__device__ __forceinline__ T lerp(T start, T end, T weight) {
  const T difference = end - start;
  return fl::abs(weight) < T(0.5) ? start + weight * difference
                                  : end - difference * (T(1) - weight);
}
__device__ __forceinline__ int64_t left_shift(int64_t a, int64_t b) {
  if (b < 0 || b >= 64) return 0;
  return (int64_t)((uint64_t)a << b);
}
__device__ __forceinline__ int64_t right_shift(int64_t a, int64_t b) {
  if (b < 0 || b >= 64) return a < 0 ? -1 : 0;
  return a >> b;
}

//! tanh by the hardware (tanh.approx.f32, sm_75+; one MUFU op instead of
//! tanhf's ~20 instructions), max relative error about 2^-11: only for
//! kernels whose every output is bf16 (codegen::Approximations).
__device__ __forceinline__ float tanh_approx(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return tanhf(x);
#endif
}
//! exp by the hardware: ex2.approx.f32 (one MUFU op, subnormals kept) of
//! x * log2(e); relative error under 1e-5 for |x| < 100, inf, -inf and NaN as
//! expf: only for kernels whose every output is half or bf16
//! (codegen::Approximations).
__device__ __forceinline__ float exp_approx(float x) {
  float y;
  asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}
__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }
__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }
__device__ __forceinline__ double silu(double x) { return x / (1.0 + ::exp(-x)); }
//! sigmoid and silu from exp_approx and fdiv_approx (each within a few
//! float ulp; inf and zeros as the accurate forms give them), for the
//! kernels that may use both (codegen::Approximations): expf and the IEEE
//! division cost a silu * mul kernel 35 registers and a branch per element.
__device__ __forceinline__ float sigmoid_approx(float x) {
  return fdiv_approx(1.0f, 1.0f + exp_approx(-x));
}
__device__ __forceinline__ float silu_approx(float x) {
  return fdiv_approx(x, 1.0f + exp_approx(-x));
}
template <class T>
__device__ __forceinline__ T relu(T x) {
  if (is_nan(x)) return x;
  return x > T(0) ? x : T(0);
}
template <class T>
__device__ __forceinline__ T sign(T x) {
  return (T)((T(0) < x) - (x < T(0)));
}
__device__ __forceinline__ float frac(float x) { return x - truncf(x); }
__device__ __forceinline__ double frac(double x) { return x - ::trunc(x); }
__device__ __forceinline__ float rsqrt_exact(float x) { return 1.0f / sqrtf(x); }
__device__ __forceinline__ double rsqrt_exact(double x) { return 1.0 / ::sqrt(x); }

// Slice bounds as the reference normalizes them: negative from the end,
// clamped to [0, size].
__device__ __forceinline__ int64_t slice_bound(int64_t bound, int64_t size) {
  if (bound < 0) bound += size;
  return bound < 0 ? 0 : (bound > size ? size : bound);
}

// ---------------------------------------------------------------------------
// Reductions. Ops have identity() and operator(); max/min propagate NaN.
template <class T> __device__ __forceinline__ T lowest_value();
template <> __device__ __forceinline__ float lowest_value<float>() { return -__int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double lowest_value<double>() { return -__longlong_as_double(0x7ff0000000000000ll); }
template <> __device__ __forceinline__ int64_t lowest_value<int64_t>() { return (int64_t)0x8000000000000000ull; }
template <class T> __device__ __forceinline__ T highest_value();
template <> __device__ __forceinline__ float highest_value<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double highest_value<double>() { return __longlong_as_double(0x7ff0000000000000ll); }
template <> __device__ __forceinline__ int64_t highest_value<int64_t>() { return 0x7FFFFFFFFFFFFFFFll; }

template <class T>
struct SumOp {
  __device__ __forceinline__ static T identity() { return T(0); }
  __device__ __forceinline__ T operator()(T a, T b) const { return fl::add(a, b); }
};
template <class T>
struct ProdOp {
  __device__ __forceinline__ static T identity() { return T(1); }
  __device__ __forceinline__ T operator()(T a, T b) const { return fl::mul(a, b); }
};
template <class T>
struct MaxOp {
  __device__ __forceinline__ static T identity() { return lowest_value<T>(); }
  __device__ __forceinline__ T operator()(T a, T b) const { return fl::maximum(a, b); }
};
template <class T>
struct MinOp {
  __device__ __forceinline__ static T identity() { return highest_value<T>(); }
  __device__ __forceinline__ T operator()(T a, T b) const { return fl::minimum(a, b); }
};

//! Butterfly reduction over the 32 lanes of a warp; every lane gets the result.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

//! Reduces `value` over threadIdx.x, separately for each threadIdx.y; every
//! thread of the row gets the result. `smem` holds blockDim.x * blockDim.y
//! values; every thread of the block must call this (it synchronizes).
//! blockDim.x need not be a multiple of 32.
template <class T, class Op>
__device__ __forceinline__ T block_reduce_x(T value, Op op, T* smem) {
  const int row = threadIdx.y * blockDim.x;
  smem[row + threadIdx.x] = value;
  __syncthreads();
  // Fold down to a power of two, then halve.
  int active = 1;
  while (active * 2 <= (int)blockDim.x) active *= 2;
  if ((int)threadIdx.x < (int)blockDim.x - active) {
    smem[row + threadIdx.x] = op(smem[row + threadIdx.x], smem[row + threadIdx.x + active]);
  }
  __syncthreads();
  for (int stride = active / 2; stride > 0; stride /= 2) {
    if ((int)threadIdx.x < stride) {
      smem[row + threadIdx.x] = op(smem[row + threadIdx.x], smem[row + threadIdx.x + stride]);
    }
    __syncthreads();
  }
  const T result = smem[row];
  __syncthreads();
  return result;
}

//! Thread (src_x, threadIdx.y)'s `value` to every thread of its row.
template <class T>
__device__ __forceinline__ T block_broadcast_x(T value, int src_x, T* smem) {
  if ((int)threadIdx.x == src_x) smem[threadIdx.y] = value;
  __syncthreads();
  const T result = smem[threadIdx.y];
  __syncthreads();
  return result;
}

//! Welford's running mean and sum of squared deviations (m2) over n values.
template <class T>
struct Welford {
  T avg;
  T m2;
  int64_t n;
};
template <class T>
__device__ __forceinline__ Welford<T> welford_identity() {
  Welford<T> w;
  w.avg = T(0);
  w.m2 = T(0);
  w.n = 0;
  return w;
}
template <class T>
__device__ __forceinline__ void welford_update(Welford<T>& w, T x) {
  w.n += 1;
  const T delta = x - w.avg;
  w.avg += delta / (T)w.n;
  w.m2 += delta * (x - w.avg);
}
template <class T>
__device__ __forceinline__ Welford<T> welford_combine(const Welford<T>& a, const Welford<T>& b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  Welford<T> r;
  r.n = a.n + b.n;
  // Equal counts (every butterfly step over full tiles): the ratio is
  // exactly one half, so the division is skipped and the bits are the same.
  const T nb_over_n = a.n == b.n ? T(0.5) : (T)b.n / (T)r.n;
  const T delta = b.avg - a.avg;
  r.avg = a.avg + delta * nb_over_n;
  r.m2 = a.m2 + b.m2 + delta * delta * (T)a.n * nb_over_n;
  return r;
}
//! Folds chunks of `nb` values each (means avg[v], squared deviations
//! m2[v]) into a[first + v] for v < V, accumulators of one count (the lanes
//! of an outer reduction's column group count the same rows): the bits of
//! V welford_combine calls, with one count conversion and at most one
//! division for all of them instead of one per lane.
template <int V, int N, class T>
__device__ __forceinline__ void welford_fold_lanes(Welford<T> (&a)[N], int first, const T (&avg)[V],
                                                   const T (&m2)[V], int64_t nb) {
  const int64_t na = a[first].n;
  if (na == 0) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      a[first + v].avg = avg[v];
      a[first + v].m2 = m2[v];
      a[first + v].n = nb;
    }
    return;
  }
  const T na_t = (T)na;
  const T nb_over_n = na == nb ? T(0.5) : (T)nb / (T)(na + nb);
#pragma unroll
  for (int v = 0; v < V; ++v) {
    Welford<T>& r = a[first + v];
    const T delta = avg[v] - r.avg;
    r.m2 = r.m2 + m2[v] + delta * delta * na_t * nb_over_n;
    r.avg = r.avg + delta * nb_over_n;
    r.n = na + nb;
  }
}
//! Chunks of one count folded as sums shifted by the first chunk's mean,
//! for an outer reduction whose every loop step holds the same rows in
//! every thread: k is that mean, a and b the sums of (avg - k) and of its
//! square, m the sum of the chunks' m2. No division a step (a Chan fold
//! divides once a step: 1 us of var_mean's 29.7 over bf16 [16384, 2048] on
//! an H100, docs/performance.md); shifted_to_welford divides once. The
//! shift keeps a, b small where the chunk means sit near each other, so
//! b - a^2 / steps, the spread of the chunk means, keeps its precision.
template <class T>
struct ShiftedChunks {
  T k;
  T a;
  T b;
  T m;
};
template <int N, class T>
__device__ __forceinline__ void shifted_identity(ShiftedChunks<T> (&s)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) s[i] = ShiftedChunks<T>{T(0), T(0), T(0), T(0)};
}
template <int V, int N, class T>
__device__ __forceinline__ void shifted_fold_lanes(ShiftedChunks<T> (&s)[N], int first,
                                                   const T (&avg)[V], const T (&m2)[V],
                                                   bool first_chunk) {
#pragma unroll
  for (int v = 0; v < V; ++v) {
    ShiftedChunks<T>& r = s[first + v];
    if (first_chunk) r.k = avg[v];
    const T e = avg[v] - r.k;
    r.a += e;
    r.b += e * e;
    r.m += m2[v];
  }
}
//! The Welford statistics of `steps` chunks of `per_step` values each.
template <int V, int N, class T>
__device__ __forceinline__ void shifted_to_welford(Welford<T> (&w)[N], int first,
                                                   const ShiftedChunks<T> (&s)[N], int steps,
                                                   int per_step) {
#pragma unroll
  for (int v = 0; v < V; ++v) {
    Welford<T>& r = w[first + v];
    if (steps == 0) {
      r = welford_identity<T>();
      continue;
    }
    const ShiftedChunks<T>& c = s[first + v];
    const T mean_e = c.a / (T)steps;
    const T spread = c.b - c.a * mean_e;
    r.avg = c.k + mean_e;
    r.m2 = c.m + (T)per_step * (spread > T(0) ? spread : T(0));
    r.n = (int64_t)steps * per_step;
  }
}
template <class T>
__device__ __forceinline__ Welford<T> warp_welford(Welford<T> w) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    Welford<T> other;
    other.avg = __shfl_xor_sync(0xffffffffu, w.avg, offset);
    other.m2 = __shfl_xor_sync(0xffffffffu, w.m2, offset);
    other.n = __shfl_xor_sync(0xffffffffu, w.n, offset);
    w = welford_combine(w, other);
  }
  return w;
}
//! Welford over threadIdx.x per threadIdx.y row (as block_reduce_x); `smem`
//! holds blockDim.x * blockDim.y entries.
template <class T>
__device__ __forceinline__ Welford<T> block_welford_x(Welford<T> w, Welford<T>* smem) {
  const int row = threadIdx.y * blockDim.x;
  smem[row + threadIdx.x] = w;
  __syncthreads();
  int active = 1;
  while (active * 2 <= (int)blockDim.x) active *= 2;
  if ((int)threadIdx.x < (int)blockDim.x - active) {
    smem[row + threadIdx.x] = welford_combine(smem[row + threadIdx.x], smem[row + threadIdx.x + active]);
  }
  __syncthreads();
  for (int stride = active / 2; stride > 0; stride /= 2) {
    if ((int)threadIdx.x < stride) {
      smem[row + threadIdx.x] = welford_combine(smem[row + threadIdx.x], smem[row + threadIdx.x + stride]);
    }
    __syncthreads();
  }
  const Welford<T> result = smem[row];
  __syncthreads();
  return result;
}

}  // namespace fl
)FLDEVICE";

// After the helpers: the random ops' Philox generator and distributions
// (core/ir/random_numbers.inc, embedded as text), and the functors that round
// their float results to half and bfloat16 as the rest of the header does.
constexpr const char* kRandomRounding = R"FLDEVICE(
namespace fl {
namespace rng {
struct RoundToHalf {
  __device__ __forceinline__ float operator()(float x) const { return fl::round_to_half(x); }
};
struct RoundToBFloat16 {
  __device__ __forceinline__ float operator()(float x) const { return fl::round_to_bf16(x); }
};
}  // namespace rng
}  // namespace fl
)FLDEVICE";

}  // namespace

//! The text of core/ir/random_numbers.inc (random_numbers_source.cpp, generated).
std::string_view randomNumbersSource();

std::string_view deviceHelperSource() {
  static const std::string source = std::string(kDeviceHeader) +
                                    "\n// --- core/ir/random_numbers.inc\n" +
                                    std::string(randomNumbersSource()) + kRandomRounding;
  return source;
}

}  // namespace fuserlab::codegen
