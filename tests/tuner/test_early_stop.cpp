// The bandwidth floor and the early stop (tuner/bandwidth_floor.h) without a
// GPU: the bytes a segment must move, the stop rule at the floor, and a
// sweep with a fake runner that knows its copy bandwidth stopping once a
// variant is within the margin of the floor, and not stopping when asked
// not to, when the floor is disproved or when the bandwidth is unknown.
#include <gtest/gtest.h>

#include <map>

#include "db/sqlite_tuning_store.h"
#include "tests/tuner/tuner_fixture.h"
#include "tuner/bandwidth_floor.h"
#include "tuner/tuner.h"

namespace fuserlab::tuner {
namespace {

constexpr double kCopyBytesPerSecond = 3e12;

// Every variant takes `slowNs`, those in `times` their own time.
class FloorRunner : public VariantRunner {
 public:
  VariantOutcome run(const TuningTarget&, const Variant& variant) override {
    ++calls;
    VariantOutcome o;
    o.variant = variant.id;
    o.check = variant.id == 0 ? kCheckCpuReference : kCheckDefaultOutputs;
    const auto it = times.find(variant.id);
    const double t = it == times.end() ? slowNs : it->second;
    o.stats = summarize({t, t * 1.001, t * 0.999, t * 1.002, t * 0.998});
    return o;
  }
  std::optional<double> copyBytesPerSecond() const override { return bandwidth; }

  double slowNs = 0;
  std::map<size_t, double> times;
  std::optional<double> bandwidth = kCopyBytesPerSecond;
  int calls = 0;
};

// A TuningStore that keeps nothing: every sweep starts fresh.
class NoStore : public db::TuningStore {
 public:
  std::vector<db::MeasurementRecord> history(const db::SegmentRecord&,
                                             const db::DeviceRecord&) override {
    return {};
  }
  void recordMeasurement(const db::SegmentRecord&, const db::DeviceRecord&,
                         const db::MeasurementRecord&) override {}
  int64_t recordWinner(const db::Entry&) override { return 1; }
  std::optional<int64_t> tunedEntry(const db::Entry&) override { return std::nullopt; }
  std::string describe() const override { return "nowhere"; }
};

constexpr const char* kSizes = "256x11008:bf16,256x11008:bf16";
constexpr int64_t kSiluMulBytes = 3 * 256 * 11008 * 2;  // two inputs, one output, bf16

TEST(EarlyStopTest, SegmentBytesCountEachInputAndOutputOnce) {
  ExampleTarget e = exampleTarget("silu_mul.py", kSizes);
  EXPECT_EQ(segmentBytesMoved(*e.target), kSiluMulBytes);
}

TEST(EarlyStopTest, FloorIsBytesOverTheCopyBandwidthWithItsFactor) {
  const auto floor = bandwidthFloor(1'100'000'000, 1e12);
  ASSERT_TRUE(floor.has_value());
  EXPECT_DOUBLE_EQ(floor->factor, kFloorBandwidthFactor);
  EXPECT_NEAR(floor->floorNs, 1e6, 1e-3);  // 1.1 GB at 1.1 TB/s: 1 ms
  EXPECT_FALSE(bandwidthFloor(0, 1e12).has_value());
  EXPECT_FALSE(bandwidthFloor(100, 0).has_value());
}

TEST(EarlyStopTest, StopsOnlyWithinTheMarginPlusNoiseAndNeverBelowTheFloor) {
  BandwidthFloor floor;
  floor.floorNs = 1000;
  // 1015 ns: 15 ns above, the margin (2% of 1015) is 20.3 ns.
  const auto stop = earlyStopAt(floor, 4, 1015, 0, 0.02);
  ASSERT_TRUE(stop.has_value());
  EXPECT_EQ(stop->variant, 4u);
  EXPECT_NEAR(stop->abovePercent, 1.5, 1e-9);
  EXPECT_EQ(stop->message,
            "early stop: best 1.01 us (variant 4) is within 1.5% of the bandwidth floor 1.00 us");
  // 1030 ns: 30 ns above, the margin 20.6 ns; noise of 10 ns makes it.
  EXPECT_FALSE(earlyStopAt(floor, 4, 1030, 0, 0.02).has_value());
  EXPECT_TRUE(earlyStopAt(floor, 4, 1030, 10, 0.02).has_value());
  // Below the floor: the floor is wrong for it, nothing is proved.
  EXPECT_FALSE(earlyStopAt(floor, 4, 900, 0, 0.02).has_value());
}

class EarlyStopSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = exampleTarget("silu_mul.py", kSizes);
    floorNs_ = bandwidthFloor(kSiluMulBytes, kCopyBytesPerSecond)->floorNs;
    runner_.slowNs = 2 * floorNs_;
    options_.strategy = {StrategyKind::Random, 12, 1, 4};
    planned_ = plannedVariants(e_.space, options_.strategy);
    ASSERT_EQ(planned_.size(), 12u);
  }
  TuneResult tune() {
    return tuneSegment(*e_.target, options_, store_, runner_, nullptr, nullptr, nullptr);
  }

  ExampleTarget e_;
  double floorNs_ = 0;
  FloorRunner runner_;
  NoStore store_;
  TuneOptions options_;
  std::vector<size_t> planned_;
};

TEST_F(EarlyStopSweepTest, AVariantAtTheFloorStopsTheSegment) {
  runner_.times[planned_[5]] = floorNs_ * 1.01;
  const TuneResult r = tune();
  ASSERT_TRUE(r.earlyStop.has_value()) << r.earlyStopNote;
  EXPECT_EQ(r.earlyStop->variant, planned_[5]);
  EXPECT_NEAR(r.earlyStop->floorNs, floorNs_, 1e-6);
  EXPECT_NE(r.earlyStop->message.find("is within 1.0% of the bandwidth floor"), std::string::npos)
      << r.earlyStop->message;
  // Batches of 4: the stop comes in the second, after variant planned_[5];
  // the rest of that batch and the third batch are never run.
  EXPECT_EQ(r.measured, 6);
  EXPECT_EQ(runner_.calls, 6);
  EXPECT_EQ(r.bytesMoved, kSiluMulBytes);
  ASSERT_TRUE(r.decision.has_value());
  EXPECT_EQ(r.decision->chosen, planned_[5]);
}

TEST_F(EarlyStopSweepTest, NoEarlyStopMeasuresTheWholeBudget) {
  runner_.times[planned_[5]] = floorNs_ * 1.01;
  options_.earlyStop = false;
  const TuneResult r = tune();
  EXPECT_FALSE(r.earlyStop.has_value());
  EXPECT_EQ(r.measured, 12);
}

TEST_F(EarlyStopSweepTest, VariantsFarAboveTheFloorDoNotStop) {
  runner_.times[planned_[5]] = floorNs_ * 1.2;
  const TuneResult r = tune();
  EXPECT_FALSE(r.earlyStop.has_value());
  EXPECT_EQ(r.measured, 12);
  ASSERT_TRUE(r.floor.has_value());
}

TEST_F(EarlyStopSweepTest, AVariantBelowTheFloorDisprovesIt) {
  runner_.times[planned_[2]] = floorNs_ * 0.8;
  runner_.times[planned_[5]] = floorNs_ * 1.01;
  const TuneResult r = tune();
  EXPECT_FALSE(r.earlyStop.has_value());
  EXPECT_EQ(r.measured, 12);
  EXPECT_NE(r.earlyStopNote.find("below the bandwidth floor"), std::string::npos)
      << r.earlyStopNote;
}

TEST_F(EarlyStopSweepTest, WithoutACopyBandwidthNothingStops) {
  runner_.times[planned_[5]] = floorNs_ * 1.01;
  runner_.bandwidth.reset();
  const TuneResult r = tune();
  EXPECT_FALSE(r.earlyStop.has_value());
  EXPECT_EQ(r.measured, 12);
  EXPECT_NE(r.earlyStopNote.find("copy bandwidth"), std::string::npos) << r.earlyStopNote;
}

TEST_F(EarlyStopSweepTest, OutcomesKeepWhichCheckEachVariantGot) {
  options_.earlyStop = false;
  const TuneResult r = tune();
  for (const VariantOutcome& o : r.outcomes) {
    EXPECT_EQ(o.check, o.variant == 0 ? kCheckCpuReference : kCheckDefaultOutputs);
  }
}

}  // namespace
}  // namespace fuserlab::tuner
