#include "tuner/tuner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "core/ir/error.h"
#include "db/compiler_version.h"

namespace fuserlab::tuner {

db::MeasurementRecord measurementOf(const Variant& variant, const VariantOutcome& outcome,
                                    const db::RunRecord& run) {
  db::MeasurementRecord m;
  m.params = scheduler::paramsToJson(variant.params);
  m.paramsHash = variant.paramsHash;
  m.run = run;
  if (outcome.stats) {
    m.samples = outcome.stats->samples;
    if (outcome.ok()) {
      m.medianNs = outcome.stats->medianNs;
      m.meanNs = outcome.stats->meanNs;
      m.minNs = outcome.stats->minNs;
      m.maxNs = outcome.stats->maxNs;
      m.stddevNs = outcome.stats->stddevNs;
    }
  }
  if (!outcome.error.empty()) m.error = outcome.error;
  return m;
}

Timing timingOf(size_t variant, const db::MeasurementRecord& measurement) {
  Timing t;
  t.variant = variant;
  t.ok = measurement.measured();
  if (t.ok) {
    t.medianNs = *measurement.medianNs;
    t.noiseNs = medianHalfWidthFromStddev(measurement.stddevNs.value_or(0), measurement.samples);
  }
  return t;
}

void VariantRunner::runBatch(const TuningTarget& target,
                             const std::vector<const Variant*>& variants, const StopCheck& stop,
                             const OutcomeSink& done) {
  for (size_t i = 0; i < variants.size(); ++i) {
    if (stop && stop()) return;
    done(i, run(target, *variants[i]));
  }
}

TuneResult tuneSegment(const TuningTarget& target, const TuneOptions& options,
                       db::TuningStore& store, VariantRunner& runner, Builder* builder,
                       TuneListener* listener, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  TuneResult result;
  result.space = buildSearchSpace(target.segmentFusion(), target.scheduler, target.bound.info,
                                  target.defaultParams);
  const SearchSpace& space = result.space;
  const db::SegmentRecord segment = target.segmentRecord();
  const db::DeviceRecord device = target.deviceRecord();
  const db::RunRecord run = db::RunRecord::now(options.command);
  result.bytesMoved = segmentBytesMoved(target);

  // What earlier runs measured, by params: the latest record of each wins.
  std::map<std::string, db::MeasurementRecord> stored;
  for (auto& m : store.history(segment, device)) {
    stored[m.paramsHash] = std::move(m);
  }
  std::map<size_t, db::MeasurementRecord> records;  // by variant id

  const size_t planned =
      options.strategy.budget > 0
          ? std::min<size_t>(space.variants.size(), static_cast<size_t>(options.strategy.budget))
          : space.variants.size();
  double bestMedian = 0;
  size_t done = 0;
  if (listener) {
    ProgressEvent event;
    event.planned = planned;
    listener->onProgress(event);
  }

  // Set when Ctrl-C or the time limit stops the sweep: the strategy ends
  // after the batch in flight.
  // stopNow runs on a pool's threads too.
  std::atomic<bool> stopped{false};
  std::atomic<bool> timedOut{false};
  std::atomic<bool> earlyStopped{false};
  const StopCheck stopNow = [&] {
    if (cancel != nullptr && cancel->load()) return true;
    if (earlyStopped.load()) return true;
    if (options.deadline && std::chrono::steady_clock::now() >= *options.deadline) {
      timedOut.store(true);
      return true;
    }
    return false;
  };

  // The early stop (bandwidth_floor.h), checked with each ok outcome once
  // the runner knows its GPU's copy bandwidth.
  bool floorDisproved = false;
  auto checkEarlyStop = [&](const VariantOutcome& outcome) {
    if (!options.earlyStop || earlyStopped.load() || floorDisproved || !outcome.ok()) return;
    if (!result.floor) {
      if (auto bandwidth = runner.copyBytesPerSecond()) {
        result.floor = bandwidthFloor(result.bytesMoved, *bandwidth, options.floorBandwidthFactor);
      }
      if (!result.floor) {
        result.earlyStopNote = "no early stop: the runner has not measured its copy bandwidth";
        return;
      }
      result.earlyStopNote.clear();
    }
    const SampleStats& stats = *outcome.stats;
    if (stats.medianNs < result.floor->floorNs) {
      floorDisproved = true;
      char text[200];
      std::snprintf(text, sizeof text,
                    "no early stop: variant %zu took %.2f us, below the bandwidth floor %.2f us",
                    outcome.variant, stats.medianNs / 1000, result.floor->floorNs / 1000);
      result.earlyStopNote = text;
      return;
    }
    const double noise = medianHalfWidthFromStddev(stats.stddevNs, stats.samples);
    if (auto stop =
            earlyStopAt(*result.floor, outcome.variant, stats.medianNs, noise, options.margin)) {
      result.earlyStop = std::move(stop);
      earlyStopped.store(true);
    }
  };

  // Stores (when fresh) and reports one variant's outcome, on this thread.
  auto finish = [&](const Variant& variant, VariantOutcome outcome, bool fresh,
                    std::optional<double>& cost) {
    outcome.variant = variant.id;
    if (fresh) {
      const db::MeasurementRecord record = measurementOf(variant, outcome, run);
      store.recordMeasurement(segment, device, record);
      records[variant.id] = record;
      stored[variant.paramsHash] = record;
      ++result.measured;
    }
    if (outcome.ok()) {
      cost = outcome.stats->medianNs;
      if (bestMedian == 0 || outcome.stats->medianNs < bestMedian) {
        bestMedian = outcome.stats->medianNs;
      }
    }
    ++done;
    checkEarlyStop(outcome);
    result.outcomes.push_back(std::move(outcome));
    if (listener) {
      ProgressEvent event;
      event.kind = ProgressEvent::Kind::Measured;
      event.done = done;
      event.planned = planned;
      event.outcome = &result.outcomes.back();
      event.variant = &variant;
      event.bestMedianNs = bestMedian;
      listener->onProgress(event);
    }
  };

  auto measure = [&](const std::vector<size_t>& batch) {
    std::vector<std::optional<double>> costs(batch.size());
    std::vector<size_t> fresh;
    for (size_t id : batch) {
      if (!stored.count(space.variants[id].paramsHash)) fresh.push_back(id);
    }
    if (!fresh.empty() && stopNow()) {
      stopped.store(true);
      fresh.clear();
    }
    std::map<size_t, BuildResult> built;
    if (builder != nullptr && !fresh.empty()) {
      for (BuildResult& b : builder->build(target, space, fresh)) built[b.variant] = b;
    }
    // Resumed and unbuildable variants first; the rest run as one batch (on
    // several GPUs at once when the runner is a pool), each reported as it
    // finishes.
    std::vector<const Variant*> runnable;
    std::vector<size_t> runnablePosition;
    for (size_t i = 0; i < batch.size(); ++i) {
      const Variant& variant = space.variants[batch[i]];
      if (auto it = stored.find(variant.paramsHash); it != stored.end()) {
        records[variant.id] = it->second;
        VariantOutcome outcome;
        outcome.resumed = true;
        if (it->second.error) outcome.error = *it->second.error;
        if (it->second.measured()) {
          SampleStats s;
          s.samples = it->second.samples;
          s.medianNs = *it->second.medianNs;
          s.stddevNs = it->second.stddevNs.value_or(0);
          outcome.stats = s;
        }
        ++result.resumed;
        finish(variant, std::move(outcome), false, costs[i]);
        continue;
      }
      if (std::find(fresh.begin(), fresh.end(), variant.id) == fresh.end()) continue;
      if (auto b = built.find(variant.id); b != built.end() && !b->second.ok) {
        VariantOutcome outcome;
        outcome.error = b->second.error;
        finish(variant, std::move(outcome), true, costs[i]);
        continue;
      }
      runnable.push_back(&variant);
      runnablePosition.push_back(i);
    }
    size_t ran = 0;
    if (!runnable.empty()) {
      runner.runBatch(target, runnable, stopNow, [&](size_t k, VariantOutcome outcome) {
        finish(*runnable[k], std::move(outcome), true, costs[runnablePosition[k]]);
        ++ran;
      });
    }
    if (ran < runnable.size() || earlyStopped.load()) stopped.store(true);  // no more batches
    return costs;
  };
  result.strategy = runStrategy(space, options.strategy, measure, &stopped);
  result.timedOut = timedOut.load();

  std::vector<Timing> timings;
  for (const auto& [id, record] : records) timings.push_back(timingOf(id, record));
  try {
    result.decision = decide(timings, options.margin);
  } catch (const UserError& error) {
    result.decisionError = error.message();
  }
  if (result.decision) {
    const Variant& chosen = space.variants[result.decision->chosen];
    db::Entry entry;
    entry.segment = segment;
    entry.device = device;
    entry.paramsSchema = target.key.paramsSchema;
    entry.minCompilerVersion = std::string(db::compilerVersion());
    entry.params = scheduler::paramsToJson(chosen.params);
    entry.paramsHash = chosen.paramsHash;
    entry.origin = "tuner";
    entry.portable = options.portable;
    entry.run = run;
    entry.createdAt = run.createdAt;
    entry.measurement = records.at(chosen.id);
    for (const auto& [id, record] : records) entry.variants.push_back(record);
    result.entryId = store.recordWinner(entry);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (listener) {
    ProgressEvent event;
    event.kind = ProgressEvent::Kind::Finished;
    event.done = done;
    event.planned = planned;
    event.bestMedianNs = bestMedian;
    listener->onProgress(event);
  }
  return result;
}

}  // namespace fuserlab::tuner
