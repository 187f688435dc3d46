// Half (IEEE 754 binary16) and BFloat16 (the upper half of a binary32) as
// plain 16-bit storage types with exact conversions.
//
// Invariants: a conversion to a 16-bit type rounds to nearest, ties to even,
// exactly once - also from double, which goes through a round-to-odd float so
// there is no double rounding; overflow gives infinity; a NaN stays a NaN with
// its sign and leading payload bits and the quiet bit set. Conversions to float
// are exact. Everything is inline and free of data-dependent branches (selects
// only) so loops over millions of elements vectorize.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace fuserlab::runtime {

namespace detail {

//! Rounds `value` to float with round-to-odd (truncate, then set the last bit
//! if anything was lost). A float rounded this way and then rounded to nearest
//! into a format at least two bits narrower gives the correctly rounded result.
inline float roundToOddFloat(double value) {
  const float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) == value || std::isnan(value)) {
    return nearest;
  }
  uint32_t bits = std::bit_cast<uint32_t>(nearest);
  // Sign-magnitude: decrementing the bits steps the magnitude towards zero,
  // which turns "nearest" into "truncated" when nearest overshot (also from
  // infinity down to the largest finite float).
  if (std::fabs(static_cast<double>(nearest)) > std::fabs(value)) bits -= 1;
  return std::bit_cast<float>(bits | 1u);
}

}  // namespace detail

//! IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits; has subnormals.
struct Half {
  uint16_t bits;

  //! Round to nearest even; |value| >= 65520 gives infinity.
  static Half fromFloat(float value);
  //! Correctly rounded from double (no double rounding through float).
  static Half fromDouble(double value) { return fromFloat(detail::roundToOddFloat(value)); }
  //! Exact.
  float toFloat() const;
};

//! bfloat16: 1 sign, 8 exponent, 7 mantissa bits (float's exponent range).
struct BFloat16 {
  uint16_t bits;

  //! Round to nearest even; values past the largest bfloat16 give infinity.
  static BFloat16 fromFloat(float value);
  //! Correctly rounded from double (no double rounding through float).
  static BFloat16 fromDouble(double value) { return fromFloat(detail::roundToOddFloat(value)); }
  //! Exact.
  float toFloat() const;
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

//! The nearest half value to `value`, as a float.
inline float roundToHalf(float value) { return Half::fromFloat(value).toFloat(); }
//! The nearest bfloat16 value to `value`, as a float.
inline float roundToBFloat16(float value) { return BFloat16::fromFloat(value).toFloat(); }

// The binary16 conversions follow Fabian Giesen's float_to_half_fast3_rtne /
// half_to_float, written with selects instead of branches.
inline Half Half::fromFloat(float value) {
  const uint32_t raw = std::bit_cast<uint32_t>(value);
  const uint32_t sign = raw & 0x80000000u;
  const uint32_t magnitude = raw ^ sign;

  // Normal result: rebias the exponent (127 -> 15) and round the 13 dropped
  // mantissa bits to nearest even; a carry rounds up into the exponent, and
  // from the largest binade into infinity.
  const uint32_t mantissaOdd = (magnitude >> 13) & 1u;
  const uint32_t normal = (magnitude + 0xC8000FFFu + mantissaOdd) >> 13;

  // Subnormal or zero result (|value| < 2^-14): adding 0.5f aligns the 10
  // result bits at the bottom of the float's mantissa and the FPU rounds them
  // to nearest even.
  const uint32_t subnormal =
      std::bit_cast<uint32_t>(std::bit_cast<float>(magnitude) + 0.5f) - 0x3F000000u;

  // |value| >= 65536 (or inf/NaN): infinity, or a quiet NaN keeping the
  // leading payload bits.
  const uint32_t special =
      magnitude > 0x7F800000u ? (0x7E00u | ((magnitude >> 13) & 0x1FFu)) : 0x7C00u;

  uint32_t out = magnitude < 0x38800000u ? subnormal : normal;
  out = magnitude >= 0x47800000u ? special : out;
  return Half{static_cast<uint16_t>(out | (sign >> 16))};
}

inline float Half::toFloat() const {
  const uint32_t shifted = (static_cast<uint32_t>(bits) & 0x7FFFu) << 13;
  const uint32_t exponent = shifted & 0x0F800000u;
  const uint32_t rebiased = shifted + 0x38000000u;  // exponent 15 -> 127

  // Inf/NaN: push the exponent to all ones; NaNs become quiet.
  const uint32_t quietBit = (bits & 0x3FFu) != 0 ? 0x00400000u : 0u;
  const uint32_t special = (rebiased + 0x38000000u) | quietBit;
  // Zero/subnormal: build 2^-14 * (1 + m) and subtract 2^-14 (exact).
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(rebiased + 0x00800000u) -
                                                     std::bit_cast<float>(0x38800000u));

  uint32_t out = exponent == 0 ? subnormal : rebiased;
  out = exponent == 0x0F800000u ? special : out;
  return std::bit_cast<float>(out | ((static_cast<uint32_t>(bits) & 0x8000u) << 16));
}

inline BFloat16 BFloat16::fromFloat(float value) {
  const uint32_t raw = std::bit_cast<uint32_t>(value);
  const uint32_t rounded = (raw + 0x7FFFu + ((raw >> 16) & 1u)) >> 16;
  const uint32_t quietNan = (raw >> 16) | 0x0040u;
  const uint32_t out = (raw & 0x7FFFFFFFu) > 0x7F800000u ? quietNan : rounded;
  return BFloat16{static_cast<uint16_t>(out)};
}

inline float BFloat16::toFloat() const {
  const uint32_t raw = static_cast<uint32_t>(bits) << 16;
  const uint32_t quietBit = (raw & 0x7FFFFFFFu) > 0x7F800000u ? 0x00400000u : 0u;
  return std::bit_cast<float>(raw | quietBit);
}

}  // namespace fuserlab::runtime
