// The tuning loop with a fake runner (no GPU): measurements and the winner
// reach the database, a second run resumes, failed variants are never
// chosen, and the runtime then takes the stored params (database_exact).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/compiler/fusion_compiler.h"
#include "db/database_provider.h"
#include "db/sqlite_tuning_store.h"
#include "tests/tuner/tuner_fixture.h"
#include "tuner/tuner.h"

namespace fuserlab::tuner {
namespace {

// Variant v takes 1000 ns, except `fast` (500 ns) and `broken` (fails).
class FakeRunner : public VariantRunner {
 public:
  VariantOutcome run(const TuningTarget&, const Variant& variant) override {
    ++calls[variant.id];
    VariantOutcome o;
    o.variant = variant.id;
    if (variant.id == broken) {
      o.error = "wrong results: out differs";
      return o;
    }
    const double base = variant.id == fast ? 500 : 1000;
    o.stats = summarize({base, base + 1, base - 1, base + 2, base - 2});
    return o;
  }
  size_t fast = 0, broken = 0;
  std::map<size_t, int> calls;
};

class TuningLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("fuserlab_tune_" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path_);
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(path_.string() + suffix);
    }
  }
  std::filesystem::path path_;
};

TEST_F(TuningLoopTest, StoresEveryMeasurementAndTheWinnerThenResumes) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  FakeRunner runner;
  runner.broken = 2;
  runner.fast = 3;
  TuneOptions options;
  options.strategy = {StrategyKind::Random, 8, 1, 4};
  const auto planned = plannedVariants(e.space, options.strategy);
  // Make the winner and the broken one part of the random draw.
  runner.broken = planned[2];
  runner.fast = planned[3];
  {
    db::HeuristicsDatabase database(path_.string(), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    const TuneResult r = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
    EXPECT_EQ(r.measured, 8);
    EXPECT_EQ(r.resumed, 0);
    ASSERT_TRUE(r.decision.has_value());
    EXPECT_EQ(r.decision->chosen, runner.fast);
    EXPECT_GT(r.entryId, 0);
    const auto entry = database.entry(r.entryId);
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(entry->origin, "tuner");
    EXPECT_EQ(entry->params, scheduler::paramsToJson(e.space.variants[runner.fast].params));
    EXPECT_EQ(entry->variants.size(), 8u);
    int failed = 0;
    for (const auto& m : entry->variants) failed += m.error ? 1 : 0;
    EXPECT_EQ(failed, 1);
  }
  // Same command again: nothing is measured twice.
  {
    db::HeuristicsDatabase database(path_.string(), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    const TuneResult r = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
    EXPECT_EQ(r.measured, 0);
    EXPECT_EQ(r.resumed, 8);
    EXPECT_EQ(r.decision->chosen, runner.fast);
    for (const auto& [id, calls] : runner.calls) EXPECT_EQ(calls, 1) << "variant " << id;
  }
  // A larger budget measures only the new variants.
  {
    options.strategy.budget = 10;
    db::HeuristicsDatabase database(path_.string(), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    const TuneResult r = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
    EXPECT_EQ(r.measured, 2);
    EXPECT_EQ(r.resumed, 8);
  }
  // The runtime now takes the tuned params from the database.
  db::DatabaseProvider provider(path_.string());
  const auto shapes =
      frontend::makeInputShapes(frontend::parseInputsOption("256x11008:bf16,256x11008:bf16"));
  const auto compiled =
      runtime::compileFusion(e.script.fusion(), compiler::CompileOptions(),
                             scheduler::defaultDevice(), shapes, &provider, false);
  const auto& seg = compiled.report.segments.at(0);
  EXPECT_EQ(seg.paramsSource, db::kSourceExact);
  EXPECT_EQ(seg.params, scheduler::paramsToJson(e.space.variants[runner.fast].params));
}

TEST_F(TuningLoopTest, CancelStopsAndTheNextRunResumes) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  FakeRunner runner;
  std::atomic<bool> cancel{false};
  struct StopAfter : TuneListener {
    std::atomic<bool>* cancel;
    void onProgress(const ProgressEvent& event) override {
      if (event.kind == ProgressEvent::Kind::Measured && event.done == 3) *cancel = true;
    }
  } listener;
  listener.cancel = &cancel;
  TuneOptions options;
  options.strategy = {StrategyKind::Exhaustive, 12, 0, 4};
  db::HeuristicsDatabase database(path_.string(), db::HeuristicsDatabase::Access::Write);
  db::SqliteTuningStore store(database);
  const TuneResult first =
      tuneSegment(*e.target, options, store, runner, nullptr, &listener, &cancel);
  EXPECT_TRUE(first.strategy.cancelled);
  EXPECT_EQ(first.measured, 3);
  cancel = false;
  const TuneResult second =
      tuneSegment(*e.target, options, store, runner, nullptr, nullptr, &cancel);
  EXPECT_EQ(second.resumed, 3);
  EXPECT_EQ(second.measured, 9);
}

TEST_F(TuningLoopTest, FailedDefaultStoresNoEntry) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  FakeRunner runner;
  runner.broken = 0;
  runner.fast = 1;
  TuneOptions options;
  options.strategy = {StrategyKind::Exhaustive, 3, 0, 4};
  db::HeuristicsDatabase database(path_.string(), db::HeuristicsDatabase::Access::Write);
  db::SqliteTuningStore store(database);
  const TuneResult r = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
  EXPECT_FALSE(r.decision.has_value());
  EXPECT_EQ(r.entryId, 0);
  EXPECT_TRUE(database.entries().empty());
}

}  // namespace
}  // namespace fuserlab::tuner
