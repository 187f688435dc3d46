// Benchmark: the heuristics database's runtime lookup. Fills a database with
// ENTRIES made-up entries (default 10000) plus one for seed 001's segment on
// the H100, loads it into a DatabaseProvider, and times, at the moment the
// compiler asks about seed 001's segment:
//   index probe  - DatabaseProvider::find with the key already computed
//                  (exact hit, bucket hit, miss);
//   key          - segmentKey: the structural hash and size texts;
//   full lookup  - DatabaseProvider::lookup, key and probe.
// Prints ns per call (median of 5 runs of LOOKUPS calls) and the ratio to a
// 1 us budget; exits 0 either way (timing is reported, not asserted).
//
//   bench_db_lookup [ENTRIES] [LOOKUPS]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/scheduler/heuristic_params.h"
#include "db/compiler_version.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/transaction.h"
#include "tests/source_dir.h"

namespace {

using namespace fuserlab;
using Clock = std::chrono::steady_clock;

double nsPerCall(int calls, const std::function<void()>& call) {
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    runs.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

db::Entry entryFor(const db::SegmentKey& key, const report::Json& params) {
  db::Entry entry;
  entry.segment = {key.structureHash, key.scheduler, key.sizes, key.sizeBucket, "bench"};
  entry.device = db::DeviceRecord::fromSpec(scheduler::defaultDevice());
  entry.device.fingerprint = key.deviceFingerprint;
  entry.paramsSchema = key.paramsSchema;
  entry.minCompilerVersion = std::string(db::compilerVersion());
  entry.params = params;
  entry.paramsHash = "0";
  entry.origin = "manual";
  entry.run = db::RunRecord::now("bench_db_lookup");
  entry.createdAt = entry.run.createdAt;
  return entry;
}

// Asks nothing of its own: hands the compiler's question to `onAsk`.
class Probe : public scheduler::HeuristicProvider {
 public:
  std::function<void(const ir::Fusion&, scheduler::SchedulerType,
                     const scheduler::SegmentRuntimeInfo&)>
      onAsk;
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    onAsk(segment, type, info);
    return std::nullopt;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int entries = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int lookups = argc > 2 ? std::atoi(argv[2]) : 200000;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bench_db_lookup_" + std::to_string(getpid()) + ".db"))
                               .string();
  frontend::Script script = frontend::readScriptFile(
      fuserlab::test::sourceDir() + "/resources/examples/seed001_nanogpt_layer_norm.py");
  const auto inputs = frontend::makeInputShapes(*script.inputs);
  const auto& device = scheduler::defaultDevice();
  auto compile = [&](const scheduler::HeuristicProvider* provider) {
    return runtime::compileFusion(script.fusion(), compiler::CompileOptions(), device, inputs,
                                  provider, false);
  };

  // Seed 001's key and the heuristic's params for it.
  db::SegmentKey seedKey;
  Probe recorder;
  recorder.onAsk = [&](const ir::Fusion& segment, scheduler::SchedulerType type,
                       const scheduler::SegmentRuntimeInfo& info) {
    seedKey = db::segmentKey(segment, type, info);
  };
  const report::Json params = compile(&recorder).report.segments.at(0).params;

  const auto fillStart = Clock::now();
  {
    db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Write);
    db::Transaction transaction(database.connection());
    for (int i = 0; i < entries; ++i) {
      db::SegmentKey key = seedKey;
      key.structureHash = db::hex64(0x9e3779b97f4a7c15ull * (i + 1));
      key.sizes = key.sizeBucket = std::to_string(64 + i) + "x1024";
      database.store(entryFor(key, params));
    }
    database.store(entryFor(seedKey, params));
    transaction.commit();
  }
  const double fillMs = std::chrono::duration<double, std::milli>(Clock::now() - fillStart).count();

  // A writing open runs PRAGMA quick_check once (a damaged file takes no
  // writes); Access::Verify opens the same way without it.
  auto openMs = [&](db::HeuristicsDatabase::Access access) {
    constexpr int kOpens = 10;
    const auto start = Clock::now();
    for (int i = 0; i < kOpens; ++i) db::HeuristicsDatabase database(path, access);
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / kOpens;
  };
  const double checkedOpenMs = openMs(db::HeuristicsDatabase::Access::Write);
  const double uncheckedOpenMs = openMs(db::HeuristicsDatabase::Access::Verify);
  const auto fileBytes = std::filesystem::file_size(path);
  const auto loadStart = Clock::now();
  const db::DatabaseProvider provider(path);
  const double loadMs = std::chrono::duration<double, std::milli>(Clock::now() - loadStart).count();

  double probeExact = 0, probeBucket = 0, probeMiss = 0, keyNs = 0, fullNs = 0;
  const char* lastSource = "none";
  Probe timer;
  timer.onAsk = [&](const ir::Fusion& segment, scheduler::SchedulerType type,
                    const scheduler::SegmentRuntimeInfo& info) {
    std::vector<std::vector<int64_t>> extents;
    for (const auto& input : info.inputs) extents.push_back(input.sizes);
    const db::SegmentKey key = db::segmentKey(segment, type, info);
    db::SegmentKey nearby = key;
    nearby.sizes = "16x128x1650,1650,1650";  // same bucket, other sizes
    db::SegmentKey miss = key;
    miss.sizeBucket = miss.sizes = "1x1,1,1";
    probeExact = nsPerCall(lookups, [&] { (void)provider.find(key, extents); });
    probeBucket = nsPerCall(lookups, [&] { (void)provider.find(nearby, extents); });
    probeMiss = nsPerCall(lookups, [&] { (void)provider.find(miss, extents); });
    keyNs = nsPerCall(lookups / 10, [&] { (void)db::segmentKey(segment, type, info); });
    fullNs = nsPerCall(lookups / 10, [&] { (void)provider.lookup(segment, type, info); });
    auto answer = provider.lookup(segment, type, info);
    lastSource = answer && answer->source == db::kSourceExact ? "database_exact" : "other";
  };
  compile(&timer);
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");

  std::printf(
      "heuristics database: %d entries + seed 001's (filled in %.1f ms, "
      "loaded into the index in %.1f ms)\n",
      entries, fillMs, loadMs);
  std::printf(
      "opening for writing: %.2f ms with quick_check, %.2f ms without "
      "(%.2f MiB file)\n",
      checkedOpenMs, uncheckedOpenMs, static_cast<double>(fileBytes) / (1 << 20));
  std::printf("seed 001 segment lookup answers: %s\n", lastSource);
  std::printf("  index probe, exact hit   %8.1f ns  (%.3f of 1 us)\n", probeExact,
              probeExact / 1000);
  std::printf("  index probe, bucket hit  %8.1f ns  (%.3f of 1 us)\n", probeBucket,
              probeBucket / 1000);
  std::printf("  index probe, miss        %8.1f ns  (%.3f of 1 us)\n", probeMiss, probeMiss / 1000);
  std::printf("  segment key (hash+sizes) %8.1f ns\n", keyNs);
  std::printf("  full lookup (key+probe)  %8.1f ns  (%.3f of 1 us)\n", fullNs, fullNs / 1000);
  return 0;
}
