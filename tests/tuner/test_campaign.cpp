// Tuning at scale without a GPU (issue 48 items 1, 2 and 5), with fake
// runners whose time depends only on the variant: a RunnerPool measures each
// variant once on one of its runners and reaches the same winner as one
// runner; two shards of a plan merged equal one process, in either merge
// order; a time limit stops the sweep and keeps what was measured.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "db/jsonl_tuning_store.h"
#include "db/merge.h"
#include "db/sqlite_tuning_store.h"
#include "db/stable_hash.h"
#include "tests/tuner/tuner_fixture.h"
#include "tuner/runner_pool.h"
#include "tuner/shard.h"
#include "tuner/tuner.h"

namespace fuserlab::tuner {
namespace {

// A variant's median is a function of its params alone (as on one GPU
// model), so any runner, pool or shard measures the same.
class FakeRunner : public VariantRunner {
 public:
  explicit FakeRunner(int sleepMs = 0) : sleepMs_(sleepMs) {}
  VariantOutcome run(const TuningTarget&, const Variant& variant) override {
    if (sleepMs_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs_));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++calls[variant.id];
    }
    VariantOutcome o;
    o.variant = variant.id;
    const double base =
        500 + double(db::StableHasher("fake").add(variant.paramsHash).value() % 1000);
    o.stats = summarize({base, base + 1, base - 1, base + 2, base - 2});
    return o;
  }
  std::map<size_t, int> calls;

 private:
  int sleepMs_;
  std::mutex mutex_;
};

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fuserlab_campaign_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // sizes -> chosen params of every entry of the database at `path`.
  std::map<std::string, report::Json> winners(const std::string& path) {
    db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Read);
    std::map<std::string, report::Json> result;
    for (const db::Entry& entry : database.entries()) result[entry.segment.sizes] = entry.params;
    return result;
  }
  std::filesystem::path dir_;
};

const std::vector<std::string> kPlan = {"256x11008:bf16,256x11008:bf16",
                                        "128x4096:bf16,128x4096:bf16", "64x2048:bf16,64x2048:bf16",
                                        "32x1024:bf16,32x1024:bf16", "8x512:bf16,8x512:bf16"};

TuneOptions sweep() {
  TuneOptions options;
  options.strategy = {StrategyKind::Random, 12, 7, 4};
  options.margin = 0.0;
  return options;
}

TEST_F(CampaignTest, PoolMeasuresEachVariantOnceAndAgreesWithOneRunner) {
  ExampleTarget e = exampleTarget("silu_mul.py", kPlan[0]);
  FakeRunner single;
  TuneResult one;
  {
    db::HeuristicsDatabase database(file("one.db"), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    one = tuneSegment(*e.target, sweep(), store, single, nullptr, nullptr, nullptr);
  }
  std::vector<std::unique_ptr<VariantRunner>> runners;
  runners.push_back(std::make_unique<FakeRunner>(5));
  runners.push_back(std::make_unique<FakeRunner>(5));
  auto* first = static_cast<FakeRunner*>(runners[0].get());
  auto* second = static_cast<FakeRunner*>(runners[1].get());
  RunnerPool pool(std::move(runners));
  db::HeuristicsDatabase database(file("pool.db"), db::HeuristicsDatabase::Access::Write);
  db::SqliteTuningStore store(database);
  const TuneResult two = tuneSegment(*e.target, sweep(), store, pool, nullptr, nullptr, nullptr);
  EXPECT_EQ(two.measured, 12);
  EXPECT_EQ(pool.measuredPerRunner()[0] + pool.measuredPerRunner()[1], 12);
  EXPECT_GT(pool.measuredPerRunner()[0], 0);
  EXPECT_GT(pool.measuredPerRunner()[1], 0);
  for (const auto& [id, n] : first->calls) {
    EXPECT_EQ(n, 1);
    EXPECT_EQ(second->calls.count(id), 0u) << "variant " << id << " ran on both";
  }
  ASSERT_TRUE(one.decision && two.decision);
  EXPECT_EQ(two.decision->chosen, one.decision->chosen);
  EXPECT_EQ(winners(file("pool.db")), winners(file("one.db")));
}

TEST_F(CampaignTest, PoolStopsHandingOutVariantsWhenAskedTo) {
  ExampleTarget e = exampleTarget("silu_mul.py", kPlan[0]);
  std::vector<std::unique_ptr<VariantRunner>> runners;
  runners.push_back(std::make_unique<FakeRunner>(1));
  runners.push_back(std::make_unique<FakeRunner>(1));
  RunnerPool pool(std::move(runners));
  std::vector<const Variant*> batch;
  for (size_t i = 0; i < 10; ++i) batch.push_back(&e.space.variants.at(i));
  std::atomic<int> asked{0};
  std::vector<size_t> done;
  pool.runBatch(
      *e.target, batch, [&] { return ++asked > 4; },
      [&](size_t index, VariantOutcome outcome) {
        EXPECT_EQ(outcome.variant, batch[index]->id);
        done.push_back(index);
      });
  EXPECT_GE(done.size(), 1u);
  EXPECT_LE(done.size(), 4u);
  EXPECT_EQ(std::set<size_t>(done.begin(), done.end()).size(), done.size());
}

TEST_F(CampaignTest, TwoShardsMergedEqualOneProcessInEitherOrder) {
  std::vector<ExampleTarget> targets;
  for (const auto& sizes : kPlan) targets.push_back(exampleTarget("silu_mul.py", sizes));
  FakeRunner runner;
  {
    db::HeuristicsDatabase database(file("one.db"), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    for (auto& t : targets) {
      tuneSegment(*t.target, sweep(), store, runner, nullptr, nullptr, nullptr);
    }
  }
  for (int k = 0; k < 2; ++k) {
    db::HeuristicsDatabase database(file("shard" + std::to_string(k) + ".db"),
                                    db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    for (size_t i : shardItems(targets.size(), Shard{k, 2, "test"})) {
      tuneSegment(*targets[i].target, sweep(), store, runner, nullptr, nullptr, nullptr);
    }
  }
  EXPECT_EQ(winners(file("shard0.db")).size(), 3u);
  EXPECT_EQ(winners(file("shard1.db")).size(), 2u);
  for (const auto& [out, order] :
       {std::pair<std::string, std::vector<std::string>>{"ab.db", {"shard0.db", "shard1.db"}},
        {"ba.db", {"shard1.db", "shard0.db"}}}) {
    db::HeuristicsDatabase merged(file(out), db::HeuristicsDatabase::Access::Write);
    for (const auto& in : order) db::mergeDatabase(merged, file(in));
  }
  EXPECT_EQ(winners(file("ab.db")), winners(file("one.db")));
  EXPECT_EQ(winners(file("ba.db")), winners(file("one.db")));
  // Provenance stays: each entry keeps its run (host, command) and every
  // measured variant.
  db::HeuristicsDatabase merged(file("ab.db"), db::HeuristicsDatabase::Access::Read);
  for (const db::Entry& entry : merged.entries(true)) {
    EXPECT_EQ(entry.origin, "tuner");
    EXPECT_EQ(entry.variants.size(), 12u) << entry.summary();
    EXPECT_TRUE(entry.measurement.has_value());
  }
}

// The same key measured alike with other params in two files (two shards
// that both met a shared segment): the merge keeps the same one whatever the
// order, by the smaller params hash.
TEST_F(CampaignTest, MergeOfEqualMeasurementsDoesNotDependOnTheOrder) {
  ExampleTarget e = exampleTarget("silu_mul.py", kPlan[1]);
  auto entryWith = [&](size_t variant) {
    db::Entry entry;
    entry.segment = e.target->segmentRecord();
    entry.device = e.target->deviceRecord();
    entry.paramsSchema = e.target->key.paramsSchema;
    entry.minCompilerVersion = "0.0.0";
    entry.params = scheduler::paramsToJson(e.space.variants.at(variant).params);
    entry.paramsHash = e.space.variants.at(variant).paramsHash;
    entry.origin = "tuner";
    entry.run = db::RunRecord::now("test");
    entry.createdAt = entry.run.createdAt;
    db::MeasurementRecord m;
    m.params = entry.params;
    m.paramsHash = entry.paramsHash;
    m.samples = 20;
    m.medianNs = 1000;
    m.run = entry.run;
    entry.measurement = m;
    return entry;
  };
  const db::Entry a = entryWith(1), b = entryWith(2);
  EXPECT_NE(db::betterMeasured(a, b), db::betterMeasured(b, a));
  for (const auto& [out, first, second] :
       {std::tuple<std::string, db::Entry, db::Entry>{"ab.db", a, b}, {"ba.db", b, a}}) {
    db::HeuristicsDatabase database(file(out), db::HeuristicsDatabase::Access::Write);
    db::mergeEntry(database, first);
    db::mergeEntry(database, second);
  }
  EXPECT_EQ(winners(file("ab.db")), winners(file("ba.db")));
}

TEST_F(CampaignTest, TimeLimitStopsTheSweepAndKeepsWhatWasMeasured) {
  ExampleTarget e = exampleTarget("silu_mul.py", kPlan[0]);
  FakeRunner runner(10);
  TuneOptions options = sweep();
  options.strategy.budget = 0;  // every variant: far more than 150 ms
  options.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
  db::HeuristicsDatabase database(file("t.db"), db::HeuristicsDatabase::Access::Write);
  db::SqliteTuningStore store(database);
  const TuneResult r = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
  EXPECT_TRUE(r.timedOut);
  EXPECT_GE(r.measured, 1);
  EXPECT_LT(static_cast<size_t>(r.measured), e.space.variants.size());
  ASSERT_TRUE(r.decision.has_value());  // the default is measured first
  EXPECT_GT(r.entryId, 0);

  // Past the limit already: nothing runs; the next run resumes.
  options.deadline = std::chrono::steady_clock::now();
  const TuneResult none = tuneSegment(*e.target, options, store, runner, nullptr, nullptr, nullptr);
  EXPECT_EQ(none.measured, 0);
  EXPECT_TRUE(none.timedOut);
}

// A sweep into a JSON-lines file (tune --jsonl) reaches the winner a sweep
// into a database reaches, resumes from the file without measuring again,
// answers a campaign's "already tuned?", and `db import` of the file gives a
// database with that winner and every measured variant (issue 44: the tuner
// behind a store interface).
TEST_F(CampaignTest, AJsonLinesSweepResumesAndImportsToTheDatabasesWinner) {
  ExampleTarget e = exampleTarget("silu_mul.py", kPlan[0]);
  FakeRunner runner;
  TuneResult inDatabase;
  {
    db::HeuristicsDatabase database(file("one.db"), db::HeuristicsDatabase::Access::Write);
    db::SqliteTuningStore store(database);
    inDatabase = tuneSegment(*e.target, sweep(), store, runner, nullptr, nullptr, nullptr);
  }
  TuneResult inFile;
  {
    db::JsonLinesTuningStore store(file("sweep.jsonl"));
    inFile = tuneSegment(*e.target, sweep(), store, runner, nullptr, nullptr, nullptr);
    EXPECT_EQ(inFile.entryId, 1);
  }
  ASSERT_TRUE(inDatabase.decision && inFile.decision);
  EXPECT_EQ(inFile.decision->chosen, inDatabase.decision->chosen);
  EXPECT_EQ(inFile.measured, 12);

  db::JsonLinesTuningStore reopened(file("sweep.jsonl"));
  const TuneResult again =
      tuneSegment(*e.target, sweep(), reopened, runner, nullptr, nullptr, nullptr);
  EXPECT_EQ(again.measured, 0);
  EXPECT_EQ(again.resumed, 12);
  db::Entry like;
  like.segment = e.target->segmentRecord();
  like.device = e.target->deviceRecord();
  like.paramsSchema = e.target->key.paramsSchema;
  EXPECT_TRUE(reopened.tunedEntry(like).has_value());
  like.segment.sizes += "x";
  EXPECT_FALSE(reopened.tunedEntry(like).has_value());

  {
    db::HeuristicsDatabase imported(file("imported.db"), db::HeuristicsDatabase::Access::Write);
    std::ifstream in(file("sweep.jsonl"));
    db::importLines(imported, in, "sweep.jsonl");
    EXPECT_EQ(imported.measurementsFor(e.target->segmentRecord(), e.target->deviceRecord()).size(),
              12u);
  }
  EXPECT_EQ(winners(file("imported.db")), winners(file("one.db")));
}

TEST_F(CampaignTest, AJsonLinesFileWithABadLineIsRefusedWithItsLineNumber) {
  {
    std::ofstream out(file("bad.jsonl"));
    out << "\n{\"kind\": \"measurement\", \"format\": 1}\n";
  }
  try {
    db::JsonLinesTuningStore store(file("bad.jsonl"));
    FAIL() << "a measurement line without its parts was read";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("bad.jsonl line 2"), std::string::npos) << error.message();
  }
}

}  // namespace
}  // namespace fuserlab::tuner
