#include "core/tensor/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/tensor/element_type.h"

namespace fuserlab::runtime {
namespace {

// A slow, obviously correct reference: the value a 16-bit pattern encodes,
// computed with ldexp.
double halfValue(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double bfloat16Value(uint16_t bits) {
  const int exponent = (bits >> 7) & 0xFF;
  const int mantissa = bits & 0x7F;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -133);
  if (exponent == 255) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(128 + mantissa, exponent - 134);
}

// Reference rounding of a finite or infinite double to a binary format with
// `mantissaBits` explicit mantissa bits and exponent bias `bias`: scale so
// that one unit in the last place is 1 and let nearbyint round to nearest
// even (exact in double because the inputs have at most 53 bits).
uint16_t referenceRound(double value, int mantissaBits, int bias, int maxExponent) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  const uint16_t infinity = static_cast<uint16_t>(maxExponent << mantissaBits);
  if (std::isinf(magnitude)) return sign | infinity;
  const int minExponent = 1 - bias;
  int exponent = std::ilogb(magnitude);
  if (magnitude == 0 || exponent < minExponent) exponent = minExponent;
  const double units = std::nearbyint(std::ldexp(magnitude, mantissaBits - exponent));
  // units is in [2^m, 2^(m+1)] for normals, [0, 2^m] for subnormals; a carry
  // into the next binade (units == 2^(m+1)) is handled by adding to the bits.
  const int64_t unitsInt = static_cast<int64_t>(units);
  int64_t bits;
  if (unitsInt < (int64_t{1} << mantissaBits)) {
    bits = unitsInt;  // subnormal (or the smallest normal reached by rounding)
  } else {
    bits = (int64_t{exponent + bias} << mantissaBits) + (unitsInt - (int64_t{1} << mantissaBits));
  }
  if (bits >= infinity) bits = infinity;
  return static_cast<uint16_t>(sign | bits);
}

uint16_t referenceHalf(double value) { return referenceRound(value, 10, 15, 31); }
uint16_t referenceBFloat16(double value) { return referenceRound(value, 7, 127, 255); }

bool isHalfNan(uint16_t bits) { return (bits & 0x7C00) == 0x7C00 && (bits & 0x3FF); }
bool isBFloat16Nan(uint16_t bits) { return (bits & 0x7F80) == 0x7F80 && (bits & 0x7F); }

TEST(Float16Test, EveryHalfPatternConvertsExactlyAndRoundTrips) {
  for (uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const float value = Half{bits}.toFloat();
    const uint16_t back = Half::fromFloat(value).bits;
    if (isHalfNan(bits)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << pattern;
      ASSERT_TRUE(std::bit_cast<uint32_t>(value) & 0x00400000u)
          << "not quiet " << std::hex << pattern;
      ASSERT_EQ(std::signbit(value), (bits & 0x8000) != 0) << std::hex << pattern;
      // Quieting sets bit 9; sign and payload survive.
      ASSERT_EQ(back, bits | 0x0200) << std::hex << pattern;
    } else {
      ASSERT_EQ(static_cast<double>(value), halfValue(bits)) << std::hex << pattern;
      ASSERT_EQ(back, bits) << std::hex << pattern;
    }
  }
}

TEST(Float16Test, EveryBFloat16PatternConvertsExactlyAndRoundTrips) {
  for (uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const float value = BFloat16{bits}.toFloat();
    const uint16_t back = BFloat16::fromFloat(value).bits;
    if (isBFloat16Nan(bits)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << pattern;
      ASSERT_TRUE(std::bit_cast<uint32_t>(value) & 0x00400000u)
          << "not quiet " << std::hex << pattern;
      ASSERT_EQ(back, bits | 0x0040) << std::hex << pattern;
    } else {
      ASSERT_EQ(static_cast<double>(value), bfloat16Value(bits)) << std::hex << pattern;
      ASSERT_EQ(back, bits) << std::hex << pattern;
    }
  }
}

// Every float whose low 13 (half) / 16 (bfloat16) bits are near a tie, plus a
// dense stride through all 2^32 patterns, against the reference rounding.
TEST(Float16Test, FloatToHalfAndBFloat16MatchReferenceRounding) {
  auto check = [](uint32_t pattern) {
    const float value = std::bit_cast<float>(pattern);
    if (std::isnan(value)) return;
    ASSERT_EQ(Half::fromFloat(value).bits, referenceHalf(value)) << std::hex << pattern;
    ASSERT_EQ(BFloat16::fromFloat(value).bits, referenceBFloat16(value)) << std::hex << pattern;
  };
  for (uint64_t pattern = 0; pattern < (uint64_t{1} << 32); pattern += 4093) {
    check(static_cast<uint32_t>(pattern));
  }
  for (uint32_t high = 0; high < (1u << 16); high += 7) {
    for (uint32_t low :
         {0x0000u, 0x0FFFu, 0x1000u, 0x1001u, 0x3000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      check((high << 16) | low);
    }
  }
}

TEST(Float16Test, DoubleConversionRoundsOnce) {
  // 1 + 2^-8 + 2^-40: float rounding alone gives the tie 1 + 2^-8, which then
  // rounds to even (1.0); the correct bfloat16 result rounds up.
  const double aboveTie = 1.0 + 0x1.0p-8 + 0x1.0p-40;
  EXPECT_EQ(BFloat16::fromFloat(static_cast<float>(aboveTie)).bits, 0x3F80);
  EXPECT_EQ(BFloat16::fromDouble(aboveTie).bits, 0x3F81);
  const double halfAboveTie = 1.0 + 0x1.0p-11 + 0x1.0p-40;
  EXPECT_EQ(Half::fromDouble(halfAboveTie).bits, 0x3C01);
  EXPECT_EQ(Half::fromDouble(1.0 + 0x1.0p-11 - 0x1.0p-40).bits, 0x3C00);

  std::mt19937_64 random(1234);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t pattern = random();
    // Exponents around the half and bfloat16 ranges, including subnormals.
    const int exponent = static_cast<int>(pattern % 300) - 150;
    const double value =
        std::ldexp(1.0 + static_cast<double>(pattern >> 12) * 0x1.0p-52, exponent) *
        ((pattern & 1) ? -1 : 1);
    ASSERT_EQ(Half::fromDouble(value).bits, referenceHalf(value)) << value;
    ASSERT_EQ(BFloat16::fromDouble(value).bits, referenceBFloat16(value)) << value;
  }
}

TEST(Float16Test, KnownRoundingCases) {
  // bfloat16 has 7 mantissa bits: 1 + 2^-8 is a tie and rounds to even (1),
  // 1 + 3 * 2^-8 is a tie and rounds to even (1 + 2^-6).
  EXPECT_EQ(roundToBFloat16(1.0f + 0x1.0p-8f), 1.0f);
  EXPECT_EQ(roundToBFloat16(1.0f + 3 * 0x1.0p-8f), 1.0f + 0x1.0p-6f);
  EXPECT_EQ(roundToBFloat16(1.0f + 0x1.0p-8f + 0x1.0p-20f), 1.0f + 0x1.0p-7f);
  // Half has 10: 1 + 2^-11 is a tie (down to 1), 1 + 3 * 2^-11 rounds up.
  EXPECT_EQ(roundToHalf(1.0f + 0x1.0p-11f), 1.0f);
  EXPECT_EQ(roundToHalf(1.0f + 3 * 0x1.0p-11f), 1.0f + 0x1.0p-9f);
  EXPECT_EQ(roundToHalf(0.1f), 0.0999755859375f);
  // Half subnormals: the smallest is 2^-24; half of it is a tie to 0.
  EXPECT_EQ(roundToHalf(0x1.0p-24f), 0x1.0p-24f);
  EXPECT_EQ(roundToHalf(0x1.0p-25f), 0.0f);
  EXPECT_EQ(roundToHalf(0x1.8p-25f), 0x1.0p-24f);
  EXPECT_EQ(Half::fromFloat(-0.0f).bits, 0x8000);
  EXPECT_EQ(BFloat16::fromFloat(-0.0f).bits, 0x8000);
}

TEST(Float16Test, OverflowGivesInfinity) {
  EXPECT_EQ(roundToHalf(65504.0f), 65504.0f);
  EXPECT_EQ(roundToHalf(65519.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(roundToHalf(65520.0f)));  // the tie rounds to even: inf
  EXPECT_EQ(Half::fromFloat(1e10f).bits, 0x7C00);
  EXPECT_EQ(Half::fromFloat(-1e10f).bits, 0xFC00);
  EXPECT_EQ(Half::fromFloat(std::numeric_limits<float>::infinity()).bits, 0x7C00);
  EXPECT_EQ(Half::fromDouble(1e300).bits, 0x7C00);
  EXPECT_EQ(BFloat16::fromFloat(std::numeric_limits<float>::max()).bits, 0x7F80);
  EXPECT_EQ(BFloat16::fromFloat(-std::numeric_limits<float>::max()).bits, 0xFF80);
  EXPECT_EQ(BFloat16::fromFloat(0x1.FEp127f).bits, 0x7F7F);  // largest bfloat16
  EXPECT_EQ(BFloat16::fromDouble(1e300).bits, 0x7F80);
}

TEST(Float16Test, NanStaysQuietNan) {
  const float quiet = std::numeric_limits<float>::quiet_NaN();
  const float signaling = std::bit_cast<float>(0x7F800001u);
  const float negativeNan = std::bit_cast<float>(0xFFC12345u);
  for (float nan : {quiet, signaling, negativeNan}) {
    const Half half = Half::fromFloat(nan);
    EXPECT_TRUE(isHalfNan(half.bits));
    EXPECT_TRUE(half.bits & 0x0200);
    EXPECT_EQ((half.bits & 0x8000) != 0, std::signbit(nan));
    const BFloat16 bf16 = BFloat16::fromFloat(nan);
    EXPECT_TRUE(isBFloat16Nan(bf16.bits));
    EXPECT_TRUE(bf16.bits & 0x0040);
    EXPECT_EQ((bf16.bits & 0x8000) != 0, std::signbit(nan));
  }
  EXPECT_TRUE(isHalfNan(Half::fromDouble(std::nan("")).bits));
  EXPECT_TRUE(isBFloat16Nan(BFloat16::fromDouble(std::nan("")).bits));
  EXPECT_TRUE(std::isnan(roundToHalf(quiet)));
  EXPECT_TRUE(std::isnan(roundToBFloat16(signaling)));
}

TEST(Float16Test, CastElementFollowsGpuConversionRules) {
  EXPECT_EQ(castElement<int32_t>(2.9), 2);
  EXPECT_EQ(castElement<int32_t>(-2.9), -2);
  EXPECT_EQ(castElement<int32_t>(1e20), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(castElement<int64_t>(-1e30f), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(castElement<int64_t>(std::nan("")), 0);
  EXPECT_EQ(castElement<int32_t>(int64_t{0x100000005}), 5);  // wraps
  EXPECT_EQ(castElement<uint8_t>(std::nan("")), 1);
  EXPECT_EQ(castElement<uint8_t>(Half::fromFloat(-0.0f)), 0);
  EXPECT_EQ(castElement<uint8_t>(uint8_t{7}), 1);
  EXPECT_EQ(castElement<double>(uint8_t{1}), 1.0);
  EXPECT_EQ(castElement<Half>(int32_t{2049}).bits, Half::fromFloat(2048.0f).bits);
  EXPECT_EQ(castElement<Half>(BFloat16::fromFloat(3.0f)).bits, Half::fromFloat(3.0f).bits);
  // int64 -> bfloat16 rounds once: 2^62 + 2^54 + 1 is just above a tie.
  const int64_t aboveTie = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  EXPECT_EQ(castElement<BFloat16>(aboveTie).toFloat(), 0x1.02p62f);
  EXPECT_EQ(castElement<BFloat16>(int64_t{1} << 62).toFloat(), 0x1.0p62f);
}

}  // namespace
}  // namespace fuserlab::runtime
