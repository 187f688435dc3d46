// The numbers a random op (uniform, normal, rand_like, randn_like) produces:
// nvFuser's counter-based Philox4x32-10 generator and its distributions
// (nvFuser runtime/random_numbers.cu), written once for both executors. The
// CPU reference includes this header as C++; the code generator embeds its
// text verbatim in the device header, where NVRTC compiles it as device code
// (core/codegen/CMakeLists.txt generates that copy). The same text on both
// sides is what lets `run --backend cuda --check` compare random tensors
// exactly.
//
// Element `index` of a random tensor (its linear index in the tensor's
// logical, row-major shape) takes Philox's block
//     philox(key = seed, counter = {offset lo, offset hi, subsequence lo, hi})
// with subsequence = index / 4 and the 32-bit word index % 4 (index / 2 and
// two words per element for Double), exactly as nvFuser's lowering does, so
// uniform values match nvFuser's bit for bit.
//
// Bit-exactness rests on every floating-point step being the same IEEE
// operation on both sides: no contraction of a * b + c into an FMA behind our
// back (the device side calls the _rn intrinsics, which NVCC never contracts;
// the host is compiled as ISO C++, where GCC does not contract), explicit
// fma() where one is meant, and no libm: log, sin and cos are computed here
// from +, -, *, / and sqrt (which IEEE rounds exactly on both) in double, so
// normal() differs from nvFuser's logf/sinf/cosf in the last bit or so, never
// between the CPU and the GPU. The float paths of normal() compute in double
// and round once.
#ifndef FUSERLAB_IR_RANDOM_NUMBERS_H_
#define FUSERLAB_IR_RANDOM_NUMBERS_H_

#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
#define FL_RNG_DEVICE 1
#define FL_RNG_FN __device__ __forceinline__
#define FL_RNG_NAMESPACE_BEGIN namespace fl { namespace rng {
#define FL_RNG_NAMESPACE_END } }
#else
#include <bit>
#include <cmath>
#include <cstdint>
#define FL_RNG_FN inline
#define FL_RNG_NAMESPACE_BEGIN namespace fuserlab::ir::rng {
#define FL_RNG_NAMESPACE_END }
#endif

FL_RNG_NAMESPACE_BEGIN

// ---------------------------------------------------------------------------
// IEEE operations that are the same on the host and the device.
#ifdef FL_RNG_DEVICE
FL_RNG_FN double addD(double a, double b) { return __dadd_rn(a, b); }
FL_RNG_FN double subD(double a, double b) { return __dsub_rn(a, b); }
FL_RNG_FN double mulD(double a, double b) { return __dmul_rn(a, b); }
FL_RNG_FN double divD(double a, double b) { return __ddiv_rn(a, b); }
FL_RNG_FN double fmaD(double a, double b, double c) { return __fma_rn(a, b, c); }
FL_RNG_FN double sqrtD(double a) { return __dsqrt_rn(a); }
FL_RNG_FN float subF(float a, float b) { return __fsub_rn(a, b); }
FL_RNG_FN float mulF(float a, float b) { return __fmul_rn(a, b); }
FL_RNG_FN float fmaF(float a, float b, float c) { return __fmaf_rn(a, b, c); }
FL_RNG_FN float toFloat(double a) { return __double2float_rn(a); }
FL_RNG_FN float uintToFloat(uint32_t a) { return __uint2float_rn(a); }
FL_RNG_FN double bitsToDouble(uint64_t bits) {
  return __longlong_as_double((long long)bits);
}
FL_RNG_FN uint64_t doubleToBits(double a) {
  return (uint64_t)__double_as_longlong(a);
}
FL_RNG_FN uint32_t mulHi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
#else
FL_RNG_FN double addD(double a, double b) { return a + b; }
FL_RNG_FN double subD(double a, double b) { return a - b; }
FL_RNG_FN double mulD(double a, double b) { return a * b; }
FL_RNG_FN double divD(double a, double b) { return a / b; }
FL_RNG_FN double fmaD(double a, double b, double c) { return std::fma(a, b, c); }
FL_RNG_FN double sqrtD(double a) { return std::sqrt(a); }
FL_RNG_FN float subF(float a, float b) { return a - b; }
FL_RNG_FN float mulF(float a, float b) { return a * b; }
FL_RNG_FN float fmaF(float a, float b, float c) { return std::fma(a, b, c); }
FL_RNG_FN float toFloat(double a) { return static_cast<float>(a); }
FL_RNG_FN float uintToFloat(uint32_t a) { return static_cast<float>(a); }
FL_RNG_FN double bitsToDouble(uint64_t bits) { return std::bit_cast<double>(bits); }
FL_RNG_FN uint64_t doubleToBits(double a) { return std::bit_cast<uint64_t>(a); }
FL_RNG_FN uint32_t mulHi(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
}
#endif

// ---------------------------------------------------------------------------
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), as Random123 and nvFuser define it.

//! One Philox block: four 32-bit words.
struct PhiloxBlock {
  uint32_t word[4];
};

FL_RNG_FN PhiloxBlock philoxRound(PhiloxBlock c, uint32_t key0, uint32_t key1) {
  const uint32_t kMultiplier0 = 0xD2511F53u;
  const uint32_t kMultiplier1 = 0xCD9E8D57u;
  const uint32_t hi0 = mulHi(kMultiplier0, c.word[0]);
  const uint32_t lo0 = kMultiplier0 * c.word[0];
  const uint32_t hi1 = mulHi(kMultiplier1, c.word[2]);
  const uint32_t lo1 = kMultiplier1 * c.word[2];
  PhiloxBlock out;
  out.word[0] = hi1 ^ c.word[1] ^ key0;
  out.word[1] = lo1;
  out.word[2] = hi0 ^ c.word[3] ^ key1;
  out.word[3] = lo0;
  return out;
}

//! Philox4x32-10 of the 128-bit counter {counter0..3} under the 64-bit key
//! {key0, key1}: Random123's philox4x32(ctr, key).
FL_RNG_FN PhiloxBlock philox4x32(PhiloxBlock counter, uint32_t key0, uint32_t key1) {
  const uint32_t kBump0 = 0x9E3779B9u;
  const uint32_t kBump1 = 0xBB67AE85u;
  for (int round = 0; round < 9; ++round) {
    counter = philoxRound(counter, key0, key1);
    key0 += kBump0;
    key1 += kBump1;
  }
  return philoxRound(counter, key0, key1);
}

//! nvFuser's philox(seed, subsequence, offset): key = seed, counter =
//! {offset lo, offset hi, subsequence lo, subsequence hi}.
FL_RNG_FN PhiloxBlock philox(uint64_t seed, uint64_t subsequence, uint64_t offset) {
  PhiloxBlock counter;
  counter.word[0] = (uint32_t)offset;
  counter.word[1] = (uint32_t)(offset >> 32);
  counter.word[2] = (uint32_t)subsequence;
  counter.word[3] = (uint32_t)(subsequence >> 32);
  return philox4x32(counter, (uint32_t)seed, (uint32_t)(seed >> 32));
}

// ---------------------------------------------------------------------------
// Uniform numbers from Philox words (nvFuser's raw_uniform_float and friends).

//! A float in (0, 1]: x / 2^32 + 2^-33 (the product is exact, so with or
//! without an FMA the result is the same).
FL_RNG_FN float rawUniformFloat(uint32_t x) {
  const float kScale = 2.3283064365386963e-10f;  // 2^-32
  return fmaF(uintToFloat(x), kScale, 0.5f * kScale);
}

//! A float in [0, 1): rawUniformFloat with 1 mapped to 0.
FL_RNG_FN float uniformFloat(uint32_t x) {
  const float r = rawUniformFloat(x);
  return r == 1.0f ? 0.0f : r;
}

//! A double in [0, 1) from 53 bits of two words, 1 mapped to 0.
FL_RNG_FN double uniformDouble(uint32_t x, uint32_t y) {
  const double kScale = 1.1102230246251565e-16;  // 2^-53
  const uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
  const double r = fmaD((double)z, kScale, 0.5 * kScale);
  return r == 1.0 ? 0.0 : r;
}

// ---------------------------------------------------------------------------
// log, sin and cos in double from IEEE operations alone (see the top).

//! log(u) for u in [0, 1] (and any positive normal u): -inf for 0.
FL_RNG_FN double logD(double u) {
  if (u == 0.0) return bitsToDouble(0xFFF0000000000000ull);
  const uint64_t bits = doubleToBits(u);
  int exponent = (int)((bits >> 52) & 0x7FF) - 1023;
  double m = bitsToDouble((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > 1.4142135623730951) {  // m in [sqrt(1/2), sqrt(2))
    m = mulD(m, 0.5);
    exponent += 1;
  }
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
  const double f = subD(m, 1.0);
  const double s = divD(f, addD(m, 1.0));
  const double z = mulD(s, s);
  double p = 1.0 / 23.0;
  p = fmaD(p, z, 1.0 / 21.0);
  p = fmaD(p, z, 1.0 / 19.0);
  p = fmaD(p, z, 1.0 / 17.0);
  p = fmaD(p, z, 1.0 / 15.0);
  p = fmaD(p, z, 1.0 / 13.0);
  p = fmaD(p, z, 1.0 / 11.0);
  p = fmaD(p, z, 1.0 / 9.0);
  p = fmaD(p, z, 1.0 / 7.0);
  p = fmaD(p, z, 1.0 / 5.0);
  p = fmaD(p, z, 1.0 / 3.0);
  // 2s + 2s^3 p, then exponent * log(2) as an exact high part plus a low one.
  const double twoS = mulD(2.0, s);
  const double logM = fmaD(mulD(twoS, z), p, twoS);
  const double kLn2Hi = 6.93147180369123816490e-01;  // 33 bits: e * hi is exact
  const double kLn2Lo = 1.90821492927058770002e-10;
  const double e = (double)exponent;
  return addD(mulD(e, kLn2Hi), fmaD(e, kLn2Lo, logM));
}

//! sin(r) and cos(r) for |r| <= pi/4 (Taylor series to r^23 / r^22).
FL_RNG_FN double sinKernel(double r) {
  const double z = mulD(r, r);
  double p = -1.0 / 25852016738884976640000.0;  // -1/23!
  p = fmaD(p, z, 1.0 / 51090942171709440000.0);  // 1/21!
  p = fmaD(p, z, -1.0 / 121645100408832000.0);   // -1/19!
  p = fmaD(p, z, 1.0 / 355687428096000.0);       // 1/17!
  p = fmaD(p, z, -1.0 / 1307674368000.0);        // -1/15!
  p = fmaD(p, z, 1.0 / 6227020800.0);            // 1/13!
  p = fmaD(p, z, -1.0 / 39916800.0);             // -1/11!
  p = fmaD(p, z, 1.0 / 362880.0);                // 1/9!
  p = fmaD(p, z, -1.0 / 5040.0);                 // -1/7!
  p = fmaD(p, z, 1.0 / 120.0);                   // 1/5!
  p = fmaD(p, z, -1.0 / 6.0);                    // -1/3!
  return fmaD(mulD(r, z), p, r);
}

FL_RNG_FN double cosKernel(double r) {
  const double z = mulD(r, r);
  double p = -1.0 / 1124000727777607680000.0;    // -1/22!
  p = fmaD(p, z, 1.0 / 2432902008176640000.0);   // 1/20!
  p = fmaD(p, z, -1.0 / 6402373705728000.0);     // -1/18!
  p = fmaD(p, z, 1.0 / 20922789888000.0);        // 1/16!
  p = fmaD(p, z, -1.0 / 87178291200.0);          // -1/14!
  p = fmaD(p, z, 1.0 / 479001600.0);             // 1/12!
  p = fmaD(p, z, -1.0 / 3628800.0);              // -1/10!
  p = fmaD(p, z, 1.0 / 40320.0);                 // 1/8!
  p = fmaD(p, z, -1.0 / 720.0);                  // -1/6!
  p = fmaD(p, z, 1.0 / 24.0);                    // 1/4!
  // 1 - z/2 + z^2 p: the small terms first, 1 last.
  const double tail = fmaD(mulD(z, z), p, mulD(-0.5, z));
  return addD(1.0, tail);
}

//! sin(v) (wantCos false) or cos(v) for 0 <= v < 8: the angles Box-Muller
//! takes, reduced by multiples of pi/2 (Cody-Waite, two parts).
FL_RNG_FN double sinOrCos(double v, bool wantCos) {
  const double kTwoOverPi = 6.36619772367581382433e-01;
  const double kPio2Hi = 1.57079632673412561417e+00;  // 33 bits: k * hi is exact
  const double kPio2Lo = 6.07710050650619224932e-11;
  const int k = (int)addD(mulD(v, kTwoOverPi), 0.5);
  const double kd = (double)k;
  const double r = subD(subD(v, mulD(kd, kPio2Hi)), mulD(kd, kPio2Lo));
  // sin(r + k pi/2) and cos(r + k pi/2) by quadrant.
  const int quadrant = (k + (wantCos ? 1 : 0)) & 3;
  switch (quadrant) {
    case 0: return sinKernel(r);
    case 1: return cosKernel(r);
    case 2: return -sinKernel(r);
    default: return -cosKernel(r);
  }
}

//! Box-Muller: sqrt(-2 log u) times sin(v) for an even component, cos(v)
//! for an odd one.
FL_RNG_FN double boxMuller(double u, double v, int component) {
  const double radius = sqrtD(mulD(-2.0, logD(u)));
  return mulD(radius, sinOrCos(v, (component & 1) != 0));
}

// ---------------------------------------------------------------------------
// The distributions per output dtype. `Round` is a functor rounding a float
// to the output dtype (the identity for Float; round to nearest even for
// Half and BFloat16), which each side supplies.

//! How many elements share one Philox block: 2 for Double, else 4.
FL_RNG_FN int elementsPerBlock(bool isDouble) { return isDouble ? 2 : 4; }

//! The Philox block of element `index`, and its component (the word, or
//! pair of words for Double, it takes).
FL_RNG_FN PhiloxBlock elementBlock(uint64_t seed, uint64_t offset, uint64_t index,
                                   bool isDouble, int* component) {
  const uint64_t perBlock = (uint64_t)elementsPerBlock(isDouble);
  *component = (int)(index % perBlock);
  return philox(seed, index / perBlock, offset);
}

struct RoundIdentity {
  FL_RNG_FN float operator()(float x) const { return x; }
};

//! uniform(0, 1) (rand_like, uniform with constant bounds 0 and 1): in
//! [0, 1) after rounding to the dtype.
template <class Round>
FL_RNG_FN float uniformStandardF(uint64_t seed, uint64_t offset, uint64_t index,
                                 Round round) {
  int c = 0;
  const PhiloxBlock b = elementBlock(seed, offset, index, false, &c);
  const float r = round(rawUniformFloat(b.word[c]));
  return r == 1.0f ? 0.0f : r;
}

//! uniform(low, high): low + (high - low) u. Float maps a u of 1 to 0 first;
//! Half and BFloat16 map a result that rounds to high to low (nvFuser).
template <class Round>
FL_RNG_FN float uniformRangeF(uint64_t seed, uint64_t offset, uint64_t index, float low,
                              float high, bool narrow, Round round) {
  int c = 0;
  const PhiloxBlock b = elementBlock(seed, offset, index, false, &c);
  const float range = subF(high, low);
  if (!narrow) return fmaF(range, uniformFloat(b.word[c]), low);
  const float r = round(fmaF(range, rawUniformFloat(b.word[c]), low));
  return r == round(high) ? round(low) : r;
}

//! normal(0, 1) (randn_like, normal with constant mean 0 and std 1).
template <class Round>
FL_RNG_FN float normalStandardF(uint64_t seed, uint64_t offset, uint64_t index,
                                Round round) {
  int c = 0;
  const PhiloxBlock b = elementBlock(seed, offset, index, false, &c);
  const int pair = c / 2 * 2;
  const double u = (double)uniformFloat(b.word[pair]);
  const double v = (double)mulF(uniformFloat(b.word[pair + 1]), 6.2831855f);
  return round(toFloat(boxMuller(u, v, c)));
}

//! normal(mean, std): normal01 * std + mean, fused.
template <class Round>
FL_RNG_FN float normalGeneralF(uint64_t seed, uint64_t offset, uint64_t index, float mean,
                               float stddev, Round round) {
  const float n = normalStandardF(seed, offset, index, RoundIdentity());
  return round(fmaF(n, stddev, mean));
}

FL_RNG_FN double uniformStandardD(uint64_t seed, uint64_t offset, uint64_t index) {
  int c = 0;
  const PhiloxBlock b = elementBlock(seed, offset, index, true, &c);
  return uniformDouble(b.word[2 * c], b.word[2 * c + 1]);
}

FL_RNG_FN double uniformRangeD(uint64_t seed, uint64_t offset, uint64_t index, double low,
                               double high) {
  return fmaD(subD(high, low), uniformStandardD(seed, offset, index), low);
}

FL_RNG_FN double normalStandardD(uint64_t seed, uint64_t offset, uint64_t index) {
  int c = 0;
  const PhiloxBlock b = elementBlock(seed, offset, index, true, &c);
  const double u = uniformDouble(b.word[0], b.word[1]);
  const double v = mulD(uniformDouble(b.word[2], b.word[3]), 6.2831853071795860);
  return boxMuller(u, v, c);
}

FL_RNG_FN double normalGeneralD(uint64_t seed, uint64_t offset, uint64_t index, double mean,
                                double stddev) {
  return fmaD(normalStandardD(seed, offset, index), stddev, mean);
}

FL_RNG_NAMESPACE_END

#undef FL_RNG_NAMESPACE_BEGIN
#undef FL_RNG_NAMESPACE_END

#endif  // FUSERLAB_IR_RANDOM_NUMBERS_H_
