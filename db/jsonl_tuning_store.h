// JsonLinesTuningStore: a TuningStore that appends to a JSON-lines file, for
// headless and sharded sweeps that should not hold a SQLite file (a network
// filesystem, one file per shard). Two kinds of line:
//   {"kind": "measurement", "format": 1, "segment": ..., "device": ...,
//    "measurement": ...}                     one measured variant
//   an entry as `db export` writes it        the chosen params of a key
// Each line is flushed and synced before the call returns, so a killed sweep
// keeps every line it wrote; a sweep started again on the same file resumes
// from its measurements. `fuserlab-cli db import FILE` reads the file into a
// database (measurements and entries).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "db/tuning_store.h"

namespace fuserlab::db {

//! One measured variant of a tuning file's measurement line.
struct MeasurementLine {
  SegmentRecord segment;
  DeviceRecord device;
  MeasurementRecord measurement;
};

class JsonLinesTuningStore final : public TuningStore {
 public:
  //! Opens `path` for appending (created if missing) and reads back what it
  //! holds; a UserError names the path and line of a line it cannot read.
  explicit JsonLinesTuningStore(std::string path);
  ~JsonLinesTuningStore() override;
  JsonLinesTuningStore(const JsonLinesTuningStore&) = delete;
  JsonLinesTuningStore& operator=(const JsonLinesTuningStore&) = delete;

  std::vector<MeasurementRecord> history(const SegmentRecord& segment,
                                         const DeviceRecord& device) override;
  void recordMeasurement(const SegmentRecord& segment, const DeviceRecord& device,
                         const MeasurementRecord& measurement) override;
  //! The entry's id is its position among the file's entries (1, 2, ...).
  int64_t recordWinner(const Entry& entry) override;
  std::optional<int64_t> tunedEntry(const Entry& like) override;
  std::string describe() const override { return path_; }

 private:
  void append(const std::string& line);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<MeasurementLine> measured_;
  std::vector<Entry> entries_;
};

//! Whether `json` is a measurement line of a JSON-lines tuning file.
bool isMeasurementLine(const report::Json& json);
//! A measurement line's parts; a UserError where one is missing or malformed.
MeasurementLine parseMeasurementLine(const report::Json& json);

}  // namespace fuserlab::db
