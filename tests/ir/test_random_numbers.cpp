// The random ops' generator (core/ir/random_numbers.h): Philox4x32-10 against
// Random123's published known-answer vectors, nvFuser's mapping of an element
// index to a Philox block and word, the uniform conversions' ranges, and the
// log/sin/cos written from IEEE operations against libm.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>

#include "core/ir/random_numbers.h"

namespace fuserlab::ir::rng {
namespace {

struct KnownAnswer {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> expected;
};

// Random123's kat_vectors, philox4x32 with 10 rounds.
constexpr std::array<KnownAnswer, 3> kPhilox4x32x10 = {{
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}};

TEST(RandomNumbersTest, PhiloxMatchesRandom123KnownAnswers) {
  for (const KnownAnswer& kat : kPhilox4x32x10) {
    PhiloxBlock counter;
    for (int i = 0; i < 4; ++i) counter.word[i] = kat.counter[i];
    const PhiloxBlock out = philox4x32(counter, kat.key[0], kat.key[1]);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(out.word[i], kat.expected[i])
          << "word " << i << " of counter " << std::hex << kat.counter[0];
    }
  }
}

TEST(RandomNumbersTest, SeedIsTheKeyAndOffsetAndSubsequenceTheCounter) {
  // nvFuser's philox(seed, subsequence, offset): key = seed (low word
  // first), counter = {offset lo, offset hi, subsequence lo, subsequence hi}.
  const KnownAnswer& kat = kPhilox4x32x10[2];
  const uint64_t seed = (uint64_t{kat.key[1]} << 32) | kat.key[0];
  const uint64_t offset = (uint64_t{kat.counter[1]} << 32) | kat.counter[0];
  const uint64_t subsequence = (uint64_t{kat.counter[3]} << 32) | kat.counter[2];
  const PhiloxBlock out = philox(seed, subsequence, offset);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.word[i], kat.expected[i]);
}

TEST(RandomNumbersTest, FourFloatElementsShareABlockAndTwoDoubleElements) {
  const uint64_t seed = 1234;
  const uint64_t offset = 7;
  const PhiloxBlock block = philox(seed, /*subsequence=*/5, offset);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(uniformStandardF(seed, offset, 20 + c, RoundIdentity()), uniformFloat(block.word[c]))
        << "component " << c;
  }
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(uniformStandardD(seed, offset, 10 + c),
              uniformDouble(block.word[2 * c], block.word[2 * c + 1]));
  }
}

TEST(RandomNumbersTest, UniformConversionsStayInTheUnitInterval) {
  EXPECT_EQ(rawUniformFloat(0), 0.5f * 2.3283064365386963e-10f);
  EXPECT_EQ(rawUniformFloat(0xffffffffu), 1.0f);  // rounds up to 1 ...
  EXPECT_EQ(uniformFloat(0xffffffffu), 0.0f);     // ... which maps to 0
  EXPECT_GT(uniformFloat(0), 0.0f);
  EXPECT_LT(uniformDouble(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_GT(uniformDouble(0, 0), 0.0);
}

TEST(RandomNumbersTest, LogSinAndCosAreWithinTwoUlpsOfLibm) {
  for (double u = 1e-300; u < 1.0; u *= 1.37) {
    EXPECT_NEAR(logD(u), std::log(u), 4.5e-16 * std::fabs(std::log(u))) << u;
  }
  EXPECT_TRUE(std::isinf(logD(0.0)) && logD(0.0) < 0);
  for (double v = 0.0; v < 2 * M_PI + 0.01; v += 1.0 / 64) {
    EXPECT_NEAR(sinOrCos(v, false), std::sin(v), 2.3e-16) << v;
    EXPECT_NEAR(sinOrCos(v, true), std::cos(v), 2.3e-16) << v;
  }
}

TEST(RandomNumbersTest, BoxMullerPairsTakeSineAndCosine) {
  const double u = 0.25;
  const double v = 1.0;
  const double radius = std::sqrt(-2.0 * std::log(u));
  EXPECT_NEAR(boxMuller(u, v, 0), radius * std::sin(v), 1e-15);
  EXPECT_NEAR(boxMuller(u, v, 1), radius * std::cos(v), 1e-15);
}

TEST(RandomNumbersTest, NarrowUniformRangeMapsARoundedHighToLow) {
  // A rounding that sends every value above `low` to `high` (element 0's
  // word, 0x6627e8d5, gives low + 0.4): the result is `low`, never `high`.
  struct ToHigh {
    float operator()(float x) const { return x > 1.0f ? 2.0f : x; }
  };
  EXPECT_EQ(uniformRangeF(0, 0, 0, 1.0f, 2.0f, /*narrow=*/true, ToHigh()), 1.0f);
}

}  // namespace
}  // namespace fuserlab::ir::rng
