#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tests/tuner/tuner_fixture.h"
#include "tuner/strategy.h"

namespace fuserlab::tuner {
namespace {

// A synthetic space: 3 knobs of 5 values, every point accepted, the
// default at (0, 0, 0).
SearchSpace syntheticSpace() {
  SearchSpace space;
  space.knobs = {{"a", {0, 1, 2, 3, 4}}, {"b", {0, 1, 2, 3, 4}}, {"c", {0, 1, 2, 3, 4}}};
  space.defaultPoint = {0, 0, 0};
  for (int64_t n = 0; n < 125; ++n) {
    Variant v;
    v.id = space.variants.size();
    v.point = {n / 25, (n / 5) % 5, n % 5};
    v.isDefault = n == 0;
    v.paramsHash = std::to_string(n);
    space.mapPoint(v.point, v.id);
    space.variants.push_back(v);
  }
  return space;
}

// Separable bowl with its minimum at (3, 1, 4).
double bowl(const Point& p) {
  return 100 + 7 * std::pow(p[0] - 3, 2) + 5 * std::pow(p[1] - 1, 2) + 3 * std::pow(p[2] - 4, 2);
}

MeasureBatch costOf(const SearchSpace& space, std::vector<size_t>* seen) {
  return [&space, seen](const std::vector<size_t>& ids) {
    std::vector<std::optional<double>> costs;
    for (size_t id : ids) {
      seen->push_back(id);
      costs.push_back(bowl(space.variants[id].point));
    }
    return costs;
  };
}

TEST(StrategyTest, ExhaustiveCoversEveryVariantOnce) {
  const SearchSpace space = syntheticSpace();
  std::vector<size_t> seen;
  const auto result = runStrategy(space, {StrategyKind::Exhaustive}, costOf(space, &seen));
  EXPECT_EQ(seen.size(), space.variants.size());
  EXPECT_EQ(std::set<size_t>(seen.begin(), seen.end()).size(), space.variants.size());
  EXPECT_EQ(seen.front(), 0u);
  EXPECT_EQ(space.variants[*result.best].point, (Point{3, 1, 4}));
}

TEST(StrategyTest, RandomRespectsBudgetAndSeed) {
  const SearchSpace space = syntheticSpace();
  auto draw = [&](uint64_t seed) {
    std::vector<size_t> seen;
    StrategyOptions options{StrategyKind::Random, 20, seed, 16};
    runStrategy(space, options, costOf(space, &seen));
    return seen;
  };
  const auto a = draw(7), b = draw(7), c = draw(8);
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(a.front(), 0u);  // the default is always measured
  EXPECT_EQ(std::set<size_t>(a.begin(), a.end()).size(), 20u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a, plannedVariants(space, {StrategyKind::Random, 20, 7, 16}));
}

TEST(StrategyTest, CoordinateDescentFindsTheOptimumOfASeparableCost) {
  const SearchSpace space = syntheticSpace();
  std::vector<size_t> seen;
  const auto result = runStrategy(space, {StrategyKind::Coordinate}, costOf(space, &seen));
  ASSERT_TRUE(result.best.has_value());
  EXPECT_EQ(space.variants[*result.best].point, (Point{3, 1, 4}));
  EXPECT_LT(seen.size(), space.variants.size() / 2);  // far fewer than all
  EXPECT_EQ(seen.front(), 0u);
}

TEST(StrategyTest, CoordinateDescentSkipsFailedVariantsAndHonoursBudget) {
  const SearchSpace space = syntheticSpace();
  std::vector<size_t> seen;
  auto measure = [&](const std::vector<size_t>& ids) {
    std::vector<std::optional<double>> costs;
    for (size_t id : ids) {
      seen.push_back(id);
      const Point& p = space.variants[id].point;
      // The optimum's knob-a value 3 fails everywhere.
      costs.push_back(p[0] == 3 ? std::nullopt : std::optional<double>(bowl(p)));
    }
    return costs;
  };
  const auto result = runStrategy(space, {StrategyKind::Coordinate}, measure);
  EXPECT_NE(space.variants[*result.best].point[0], 3);
  seen.clear();
  runStrategy(space, {StrategyKind::Coordinate, 6, 0, 16}, measure);
  EXPECT_EQ(seen.size(), 6u);
}

TEST(StrategyTest, CancelStopsBetweenBatches) {
  const SearchSpace space = syntheticSpace();
  std::atomic<bool> cancel{false};
  std::vector<size_t> seen;
  auto measure = [&](const std::vector<size_t>& ids) {
    cancel = true;
    return costOf(space, &seen)(ids);
  };
  const auto result = runStrategy(space, {StrategyKind::Exhaustive, 0, 0, 10}, measure, &cancel);
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(seen.size(), 10u);
}

TEST(StrategyTest, CoordinateDescentOnARealSpaceStartsAtTheDefault) {
  ExampleTarget e = exampleTarget("rms_norm.py", "4x256x2048:bf16,2048:bf16");
  const auto planned = plannedVariants(e.space, {StrategyKind::Coordinate});
  ASSERT_FALSE(planned.empty());
  EXPECT_EQ(planned.front(), 0u);
  EXPECT_GT(planned.size(), 4u);
}

}  // namespace
}  // namespace fuserlab::tuner
