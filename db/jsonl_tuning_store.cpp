#include "db/jsonl_tuning_store.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "core/ir/error.h"

namespace fuserlab::db {
namespace {

bool sameSegment(const SegmentRecord& a, const SegmentRecord& b) {
  return a.structureHash == b.structureHash && a.scheduler == b.scheduler && a.sizes == b.sizes;
}

bool sameKey(const Entry& a, const Entry& b) {
  return sameSegment(a.segment, b.segment) && a.device.fingerprint == b.device.fingerprint &&
         a.paramsSchema == b.paramsSchema;
}

}  // namespace

MeasurementLine parseMeasurementLine(const report::Json& json) {
  const report::Json* segment = json.get("segment");
  const report::Json* device = json.get("device");
  const report::Json* measurement = json.get("measurement");
  FL_CHECK(segment && device && measurement,
           "a measurement line needs segment, device and measurement");
  return {SegmentRecord::fromJson(*segment), DeviceRecord::fromJson(*device),
          MeasurementRecord::fromJson(*measurement)};
}

bool isMeasurementLine(const report::Json& json) {
  const report::Json* kind = json.isObject() ? json.get("kind") : nullptr;
  return kind != nullptr && kind->isString() && kind->asString() == "measurement";
}

JsonLinesTuningStore::JsonLinesTuningStore(std::string path) : path_(std::move(path)) {
  FL_CHECK(!path_.empty(), "a tuning file needs a name");
  {
    std::ifstream in(path_);
    std::string line;
    int number = 0;
    while (in && std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        const report::Json json = report::Json::parse(line);
        if (isMeasurementLine(json)) {
          measured_.push_back(parseMeasurementLine(json));
        } else {
          entries_.push_back(Entry::fromJson(json));
        }
      } catch (const UserError& error) {
        FL_USER_ERROR(path_, " line ", number, ": ", error.message(),
                      "; a tuning file holds measurement lines and entries as db export "
                      "writes them");
      }
    }
  }
  file_ = std::fopen(path_.c_str(), "a");
  FL_CHECK(file_ != nullptr, "cannot open ", path_, " for appending: ", std::strerror(errno));
}

JsonLinesTuningStore::~JsonLinesTuningStore() {
  if (file_ != nullptr) std::fclose(file_);
}

void JsonLinesTuningStore::append(const std::string& line) {
  const bool written = std::fwrite(line.data(), 1, line.size(), file_) == line.size() &&
                       std::fputc('\n', file_) != EOF && std::fflush(file_) == 0 &&
                       ::fsync(fileno(file_)) == 0;
  FL_CHECK(written, "writing ", path_, " failed: ", std::strerror(errno),
           "; the lines before this one are kept");
}

std::vector<MeasurementRecord> JsonLinesTuningStore::history(const SegmentRecord& segment,
                                                             const DeviceRecord& device) {
  std::vector<MeasurementRecord> out;
  for (const MeasurementLine& m : measured_) {
    if (sameSegment(m.segment, segment) && m.device.fingerprint == device.fingerprint) {
      out.push_back(m.measurement);
    }
  }
  return out;
}

void JsonLinesTuningStore::recordMeasurement(const SegmentRecord& segment,
                                             const DeviceRecord& device,
                                             const MeasurementRecord& measurement) {
  report::Json line = report::Json::object();
  line.set("kind", std::string("measurement"));
  line.set("format", 1);
  line.set("segment", segment.toJson());
  line.set("device", device.toJson());
  line.set("measurement", measurement.toJson());
  append(line.dump(-1));
  measured_.push_back({segment, device, measurement});
}

int64_t JsonLinesTuningStore::recordWinner(const Entry& entry) {
  append(entry.toJson().dump(-1));
  entries_.push_back(entry);
  return static_cast<int64_t>(entries_.size());
}

std::optional<int64_t> JsonLinesTuningStore::tunedEntry(const Entry& like) {
  // The latest entry of the key answers, as a database keeps one per key.
  for (size_t i = entries_.size(); i-- > 0;) {
    if (sameKey(entries_[i], like)) {
      if (entries_[i].origin != "tuner") return std::nullopt;
      return static_cast<int64_t>(i + 1);
    }
  }
  return std::nullopt;
}

}  // namespace fuserlab::db
