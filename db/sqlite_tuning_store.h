// SqliteTuningStore: a TuningStore over the SQLite heuristics database, each
// record in its own transaction.
#pragma once

#include "db/heuristics_database.h"
#include "db/tuning_store.h"

namespace fuserlab::db {

class SqliteTuningStore final : public TuningStore {
 public:
  //! `database` (opened for writing) must outlive the store.
  explicit SqliteTuningStore(HeuristicsDatabase& database) : database_(database) {}

  std::vector<MeasurementRecord> history(const SegmentRecord& segment,
                                         const DeviceRecord& device) override;
  void recordMeasurement(const SegmentRecord& segment, const DeviceRecord& device,
                         const MeasurementRecord& measurement) override;
  int64_t recordWinner(const Entry& entry) override;
  std::optional<int64_t> tunedEntry(const Entry& like) override;
  std::string describe() const override { return database_.path(); }

 private:
  HeuristicsDatabase& database_;
};

}  // namespace fuserlab::db
