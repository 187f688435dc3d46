// Entry: one row of chosen params with everything that keys and explains it,
// as plain data: the segment (structure, sizes), the device, the params and
// their schema, the compiler version range, the run it came from and the
// measurement it was chosen by. The CLI prints it, export writes it as one
// JSON line, import and merge read it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/report/json.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::db {

struct DeviceRecord {
  std::string fingerprint;  //!< see deviceFingerprint()
  std::string key;          //!< "h100", or "cuda:0 ..." for real GPUs
  std::string name;
  int computeCapability = 0;
  int smCount = 0;
  int64_t memoryBytes = 0;
  int64_t l2Bytes = 0;
  int clockKhz = 0;
  report::Json spec = report::Json::object();  //!< DeviceSpec::toJson

  static DeviceRecord fromSpec(const scheduler::DeviceSpec& device);
  report::Json toJson() const;
  static DeviceRecord fromJson(const report::Json& json);
};

struct SegmentRecord {
  std::string structureHash;
  std::string scheduler;
  std::string sizes;
  std::string sizeBucket;
  std::string fusionIr;  //!< the segment printed, for people

  report::Json toJson() const;
  static SegmentRecord fromJson(const report::Json& json);
};

//! Provenance of entries and measurements.
struct RunRecord {
  std::string compilerVersion;
  std::optional<std::string> cudaVersion;
  std::optional<std::string> driverVersion;
  std::string createdAt;  //!< ISO 8601 UTC, "2025-01-31T12:00:00Z"
  std::string command;    //!< the command line that made it
  std::optional<std::string> host;

  bool operator==(const RunRecord&) const = default;
  //! A run made now by `command` with this build's version.
  static RunRecord now(std::string command);
  report::Json toJson() const;
  static RunRecord fromJson(const report::Json& json);
};

//! One params variant measured in a run: statistics over `samples` timed
//! launches, or the reason it failed.
struct MeasurementRecord {
  report::Json params;
  std::string paramsHash;
  int64_t samples = 0;
  std::optional<double> medianNs;
  std::optional<double> meanNs;
  std::optional<double> minNs;
  std::optional<double> maxNs;
  std::optional<double> stddevNs;
  std::optional<std::string> error;
  RunRecord run;

  //! Ran without error and has a median.
  bool measured() const { return !error && medianNs.has_value(); }
  report::Json toJson() const;
  static MeasurementRecord fromJson(const report::Json& json);
};

struct Entry {
  int64_t id = 0;  //!< 0 until stored
  SegmentRecord segment;
  DeviceRecord device;
  int paramsSchema = 0;
  std::string minCompilerVersion;
  std::optional<std::string> maxCompilerVersion;
  report::Json params;
  std::string paramsHash;  //!< hex of scheduler::paramsHash
  std::string origin;      //!< "manual" (db put), "tuner"
  std::string createdAt;
  //! Marked usable on another device of the same architecture (other SM
  //! count, memory or clock): the lookup's database_same_arch fallback
  //! takes only marked entries (db mark-portable, tune --portable).
  bool portable = false;
  RunRecord run;
  //! The measurement the params were chosen by; none for hand-pinned params.
  std::optional<MeasurementRecord> measurement;
  //! Every measured variant of this segment on this device (export, import
  //! and merge carry them; list leaves them empty).
  std::vector<MeasurementRecord> variants;

  //! One JSON object: the export line format (with "format": 1).
  report::Json toJson() const;
  //! UserError naming the member if `json` is not an entry line.
  static Entry fromJson(const report::Json& json);
  //! "entry 3: inner_persistent 16x128x1600,1600,1600 on h100 (manual)".
  std::string summary() const;
};

//! The export line format version.
inline constexpr int kEntryFormat = 1;

//! "median 12.3 us over 50 samples", "unmeasured", "failed: ...".
std::string measurementSummary(const std::optional<MeasurementRecord>& measurement);

}  // namespace fuserlab::db
