// Reshape indexing in blocks (core/codegen/reshape_index.h): the blocks'
// digits equal the full linearization's on random reshapes, the GroupNorm
// reshape passes the batch index through and computes the rest in 32 bits,
// and extents that are not literals keep the full linearization's text.
#include <gtest/gtest.h>

#include <random>

#include "core/codegen/reshape_index.h"

namespace fuserlab::codegen {
namespace {

// Digits of `position` over `extents`, row-major.
std::vector<int64_t> digits(int64_t position, const std::vector<int64_t>& extents) {
  std::vector<int64_t> out(extents.size(), 0);
  for (size_t k = extents.size(); k-- > 0;) {
    out[k] = position % extents[k];
    position /= extents[k];
  }
  return out;
}

int64_t linear(const std::vector<int64_t>& index, const std::vector<int64_t>& extents, size_t begin,
               size_t end) {
  int64_t value = 0;
  for (size_t a = begin; a < end; ++a) value = value * extents[a] + index[a];
  return value;
}

// A random factorization of `n` into `parts` extents (1s included).
std::vector<int64_t> factor(int64_t n, int parts, std::mt19937& rng) {
  std::vector<int64_t> out(parts, 1);
  for (int64_t p = 2; n > 1;) {
    if (n % p == 0) {
      out[std::uniform_int_distribution<int>(0, parts - 1)(rng)] *= p;
      n /= p;
    } else {
      ++p;
    }
  }
  return out;
}

TEST(ReshapeIndexTest, BlocksGiveTheFullLinearizationsDigits) {
  std::mt19937 rng(7);
  const std::vector<int64_t> sizes = {1, 6, 12, 64, 360, 2 * 3 * 5 * 7 * 4, 40960 * 32};
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t n = sizes[trial % sizes.size()];
    const auto out = factor(n, 1 + static_cast<int>(rng() % 5), rng);
    const auto in = factor(n, 1 + static_cast<int>(rng() % 5), rng);
    const auto blocks = reshapeBlocks(out, in);
    ASSERT_TRUE(blocks.has_value());
    for (int s = 0; s < 20; ++s) {
      const int64_t position = std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
      const auto outIndex = digits(position, out);
      const auto expected = digits(position, in);
      std::vector<int64_t> got(in.size(), -1);
      for (const ReshapeBlock& b : *blocks) {
        int64_t value = linear(outIndex, out, b.outBegin, b.outEnd);
        for (size_t k = b.inEnd; k-- > b.inBegin;) {
          got[k] = value % in[k];
          value /= in[k];
        }
      }
      ASSERT_EQ(got, expected) << "trial " << trial;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8000);
}

TEST(ReshapeIndexTest, GroupNormPassesTheBatchThroughAndComputesTheRestIn32Bits) {
  const auto blocks = reshapeBlocks({32, 320, 64, 64}, {32, 32, 40960});
  ASSERT_TRUE(blocks.has_value());
  ASSERT_EQ(blocks->size(), 2u);
  EXPECT_EQ((*blocks)[0].outEnd, 1u);
  EXPECT_EQ((*blocks)[0].inEnd, 1u);
  const auto index = reshapeProducerIndex(
      {"(int64_t)32ll", "(int64_t)320ll", "((int64_t)64ll /* i2 */)", "(int64_t)64ll"},
      {"(int64_t)32ll", "(int64_t)32ll", "(int64_t)40960ll"}, {"a0", "a1", "a2", "lane_a3"});
  ASSERT_EQ(index.size(), 3u);
  EXPECT_EQ(index[0], "a0");
  for (size_t k = 1; k < 3; ++k) {
    EXPECT_NE(index[k].find("(int32_t)"), std::string::npos) << index[k];
    EXPECT_EQ(index[k].find("a0"), std::string::npos) << index[k];
  }
}

TEST(ReshapeIndexTest, ExtentsThatAreNotLiteralsKeepTheWholeLinearPosition) {
  const auto index =
      reshapeProducerIndex({"T0.size[0]", "(int64_t)8ll"}, {"(int64_t)16ll"}, {"a0", "a1"});
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index[0], "((int64_t)(a0) * (int64_t)8ll + (a1))");
}

// In a vectorized pass: GroupNorm's lane (the innermost of [.., 64]) stays in
// one run of 40960, so the group index is computed at the vector's base and
// the innermost producer axis is the lane plus an aligned shift.
TEST(ReshapeIndexTest, ALaneInsideOneRunOfTheProducersInnerAxisStaysLaneAffine) {
  const ReshapeLanes lanes{"lane_a3", "a3", 8};
  const std::vector<std::string> out = {"(int64_t)32ll", "(int64_t)320ll", "(int64_t)64ll",
                                        "(int64_t)64ll"};
  const std::vector<std::string> in = {"(int64_t)32ll", "(int64_t)32ll", "(int64_t)40960ll"};
  const auto index = reshapeProducerIndexInLanes(out, in, {"a0", "a1", "a2", "lane_a3"}, lanes);
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->laneAxis, 2u);
  EXPECT_EQ(index->index[0], "a0");
  EXPECT_EQ(index->index[1].find("lane_a3"), std::string::npos) << index->index[1];
  EXPECT_NE(index->index[1].find("a3"), std::string::npos) << index->index[1];
  EXPECT_NE(index->innerTerm.find("% (int32_t)(int64_t)40960ll"), std::string::npos)
      << index->innerTerm;
  EXPECT_EQ(index->innerTerm.find("lane_a3"), std::string::npos) << index->innerTerm;

  // A producer run the width does not divide (40962 = 6827 x 6): lanes
  // could cross it, so no lane-affine form.
  EXPECT_FALSE(reshapeProducerIndexInLanes({"(int64_t)6ll", "(int64_t)6827ll"},
                                           {"(int64_t)40962ll"}, {"a0", "lane_a1"}, lanes)
                   .has_value());
  // The lane not innermost in its block ([64, 8] to [512] with the lane on
  // the 64): consecutive lanes are 8 apart in the producer.
  EXPECT_FALSE(reshapeProducerIndexInLanes({"(int64_t)64ll", "(int64_t)8ll"}, {"(int64_t)512ll"},
                                           {"lane_a1", "a0"}, lanes)
                   .has_value());
}

TEST(ReshapeIndexTest, LiteralsAreReadInTheFormsKernelsWriteThem) {
  EXPECT_EQ(integerLiteral("(int64_t)320ll"), 320);
  EXPECT_EQ(integerLiteral("((int64_t)64ll /* i2 */)"), 64);
  EXPECT_EQ(integerLiteral("7"), 7);
  EXPECT_FALSE(integerLiteral("T0.size[1]").has_value());
  EXPECT_FALSE(integerLiteral("((int64_t)2ll * (int64_t)3ll)").has_value());
  EXPECT_FALSE(integerLiteral("((int64_t)-1ll)").has_value());
}

}  // namespace
}  // namespace fuserlab::codegen
