// TuningStore: where a tuning sweep keeps what it measures — the small
// interface the tuner (tuner/tuner.h) writes through, so a sweep does not
// care what holds its results. Two stores: the SQLite heuristics database
// (SqliteTuningStore) and a JSON-lines file for headless and sharded sweeps
// (JsonLinesTuningStore; `db import` reads it into a database).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/entry.h"

namespace fuserlab::db {

class TuningStore {
 public:
  virtual ~TuningStore() = default;
  //! Every measurement kept for `segment` on `device`, oldest first (a
  //! sweep resumes from them: a variant measured before is not run again).
  virtual std::vector<MeasurementRecord> history(const SegmentRecord& segment,
                                                 const DeviceRecord& device) = 0;
  //! Keeps one measured variant, durably before returning (a sweep that is
  //! killed keeps what it measured).
  virtual void recordMeasurement(const SegmentRecord& segment, const DeviceRecord& device,
                                 const MeasurementRecord& measurement) = 0;
  //! Keeps the chosen params as the entry of `entry`'s key; returns its id
  //! in the store.
  virtual int64_t recordWinner(const Entry& entry) = 0;
  //! The id of a tuned entry with `like`'s key (segment, sizes, device,
  //! params schema), if the store has one (a campaign skips such a key).
  virtual std::optional<int64_t> tunedEntry(const Entry& like) = 0;
  //! The store as a person names it: a file path.
  virtual std::string describe() const = 0;
};

}  // namespace fuserlab::db
