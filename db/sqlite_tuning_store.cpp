#include "db/sqlite_tuning_store.h"

#include "db/transaction.h"

namespace fuserlab::db {

std::vector<MeasurementRecord> SqliteTuningStore::history(const SegmentRecord& segment,
                                                          const DeviceRecord& device) {
  return database_.measurementsFor(segment, device);
}

void SqliteTuningStore::recordMeasurement(const SegmentRecord& segment, const DeviceRecord& device,
                                          const MeasurementRecord& measurement) {
  Transaction transaction(database_.connection());
  database_.storeMeasurement(segment, device, measurement);
  transaction.commit();
}

int64_t SqliteTuningStore::recordWinner(const Entry& entry) {
  Transaction transaction(database_.connection());
  const int64_t id = database_.store(entry);
  transaction.commit();
  return id;
}

std::optional<int64_t> SqliteTuningStore::tunedEntry(const Entry& like) {
  const auto existing = database_.entryWithKey(like);
  if (existing && existing->origin == "tuner") return existing->id;
  return std::nullopt;
}

}  // namespace fuserlab::db
