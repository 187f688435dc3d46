#include "db/entry.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "core/ir/error.h"
#include "db/compiler_version.h"

namespace fuserlab::db {
namespace {

using report::Json;

const Json& member(const Json& json, const char* what, const char* name) {
  FL_CHECK(json.isObject(), what, " must be a JSON object, found ", json.typeName());
  const Json* value = json.get(name);
  FL_CHECK(value != nullptr, what, " has no member \"", name, "\"");
  return *value;
}

std::string text(const Json& json, const char* what, const char* name) {
  const Json& value = member(json, what, name);
  FL_CHECK(value.isString(), what, " member \"", name, "\" must be a string, found ",
           value.typeName());
  return value.asString();
}

int64_t integer(const Json& json, const char* what, const char* name) {
  const Json& value = member(json, what, name);
  FL_CHECK(value.isInt(), what, " member \"", name, "\" must be an integer, found ",
           value.typeName());
  return value.asInt();
}

std::optional<std::string> optionalText(const Json& json, const char* what, const char* name) {
  const Json* value = json.get(name);
  if (value == nullptr || value->isNull()) return std::nullopt;
  return text(json, what, name);
}

std::optional<double> optionalNumber(const Json& json, const char* what, const char* name) {
  const Json* value = json.get(name);
  if (value == nullptr || value->isNull()) return std::nullopt;
  FL_CHECK(value->isNumber(), what, " member \"", name, "\" must be a number, found ",
           value->typeName());
  return value->asDouble();
}

template <typename T>
Json optionalJson(const std::optional<T>& value) {
  return value ? Json(*value) : Json();
}

}  // namespace

DeviceRecord DeviceRecord::fromSpec(const scheduler::DeviceSpec& device) {
  DeviceRecord record;
  record.key = device.key;
  record.name = device.name;
  record.computeCapability = device.computeCapability();
  record.smCount = device.smCount;
  record.memoryBytes = device.memoryBytes;
  record.l2Bytes = device.l2CacheBytes;
  record.clockKhz = device.clockKhz;
  record.spec = device.toJson();
  return record;
}

Json DeviceRecord::toJson() const {
  Json json = Json::object();
  json.set("fingerprint", fingerprint);
  json.set("key", key);
  json.set("name", name);
  json.set("compute_capability", computeCapability);
  json.set("sm_count", smCount);
  json.set("memory_bytes", memoryBytes);
  json.set("l2_bytes", l2Bytes);
  json.set("clock_khz", clockKhz);
  json.set("spec", spec);
  return json;
}

DeviceRecord DeviceRecord::fromJson(const Json& json) {
  const char* what = "the entry's \"device\"";
  DeviceRecord record;
  record.fingerprint = text(json, what, "fingerprint");
  record.key = text(json, what, "key");
  record.name = text(json, what, "name");
  record.computeCapability = static_cast<int>(integer(json, what, "compute_capability"));
  record.smCount = static_cast<int>(integer(json, what, "sm_count"));
  record.memoryBytes = integer(json, what, "memory_bytes");
  record.l2Bytes = integer(json, what, "l2_bytes");
  record.clockKhz = static_cast<int>(integer(json, what, "clock_khz"));
  record.spec = member(json, what, "spec");
  return record;
}

Json SegmentRecord::toJson() const {
  Json json = Json::object();
  json.set("structure_hash", structureHash);
  json.set("scheduler", scheduler);
  json.set("sizes", sizes);
  json.set("size_bucket", sizeBucket);
  json.set("fusion_ir", fusionIr);
  return json;
}

SegmentRecord SegmentRecord::fromJson(const Json& json) {
  const char* what = "the entry's \"segment\"";
  SegmentRecord record;
  record.structureHash = text(json, what, "structure_hash");
  record.scheduler = text(json, what, "scheduler");
  record.sizes = text(json, what, "sizes");
  record.sizeBucket = text(json, what, "size_bucket");
  record.fusionIr = text(json, what, "fusion_ir");
  return record;
}

RunRecord RunRecord::now(std::string command) {
  RunRecord run;
  run.compilerVersion = std::string(db::compilerVersion());
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  run.createdAt = stamp;
  run.command = std::move(command);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') run.host = host;
  return run;
}

Json RunRecord::toJson() const {
  Json json = Json::object();
  json.set("compiler_version", compilerVersion);
  json.set("cuda_version", optionalJson(cudaVersion));
  json.set("driver_version", optionalJson(driverVersion));
  json.set("created_at", createdAt);
  json.set("command", command);
  json.set("host", optionalJson(host));
  return json;
}

RunRecord RunRecord::fromJson(const Json& json) {
  const char* what = "a \"run\"";
  RunRecord run;
  run.compilerVersion = text(json, what, "compiler_version");
  run.cudaVersion = optionalText(json, what, "cuda_version");
  run.driverVersion = optionalText(json, what, "driver_version");
  run.createdAt = text(json, what, "created_at");
  run.command = text(json, what, "command");
  run.host = optionalText(json, what, "host");
  return run;
}

Json MeasurementRecord::toJson() const {
  Json json = Json::object();
  json.set("params", params);
  json.set("params_hash", paramsHash);
  json.set("samples", samples);
  json.set("median_ns", optionalJson(medianNs));
  json.set("mean_ns", optionalJson(meanNs));
  json.set("min_ns", optionalJson(minNs));
  json.set("max_ns", optionalJson(maxNs));
  json.set("stddev_ns", optionalJson(stddevNs));
  json.set("error", optionalJson(error));
  json.set("run", run.toJson());
  return json;
}

MeasurementRecord MeasurementRecord::fromJson(const Json& json) {
  const char* what = "a measurement";
  MeasurementRecord record;
  record.params = member(json, what, "params");
  record.paramsHash = text(json, what, "params_hash");
  record.samples = integer(json, what, "samples");
  FL_CHECK(record.samples >= 0, what, " has ", record.samples, " samples");
  record.medianNs = optionalNumber(json, what, "median_ns");
  record.meanNs = optionalNumber(json, what, "mean_ns");
  record.minNs = optionalNumber(json, what, "min_ns");
  record.maxNs = optionalNumber(json, what, "max_ns");
  record.stddevNs = optionalNumber(json, what, "stddev_ns");
  record.error = optionalText(json, what, "error");
  record.run = RunRecord::fromJson(member(json, what, "run"));
  return record;
}

Json Entry::toJson() const {
  Json json = Json::object();
  json.set("format", kEntryFormat);
  json.set("id", id);
  json.set("segment", segment.toJson());
  json.set("device", device.toJson());
  json.set("params_schema", paramsSchema);
  json.set("min_compiler_version", minCompilerVersion);
  json.set("max_compiler_version", optionalJson(maxCompilerVersion));
  json.set("params", params);
  json.set("params_hash", paramsHash);
  json.set("origin", origin);
  json.set("created_at", createdAt);
  json.set("portable", portable);
  json.set("run", run.toJson());
  json.set("measurement", measurement ? measurement->toJson() : Json());
  Json list = Json::array();
  for (const auto& variant : variants) list.push(variant.toJson());
  json.set("variants", std::move(list));
  return json;
}

Entry Entry::fromJson(const Json& json) {
  const char* what = "an entry line";
  const int64_t format = integer(json, what, "format");
  FL_CHECK(format == kEntryFormat, "the entry line has format ", format,
           "; this FuserLab reads format ", kEntryFormat, " (exported by a newer FuserLab?)");
  Entry entry;
  if (const Json* id = json.get("id"); id != nullptr && id->isInt()) {
    entry.id = id->asInt();
  }
  entry.segment = SegmentRecord::fromJson(member(json, what, "segment"));
  entry.device = DeviceRecord::fromJson(member(json, what, "device"));
  entry.paramsSchema = static_cast<int>(integer(json, what, "params_schema"));
  entry.minCompilerVersion = text(json, what, "min_compiler_version");
  entry.maxCompilerVersion = optionalText(json, what, "max_compiler_version");
  compareVersions(entry.minCompilerVersion, "0");  // checks the form
  if (entry.maxCompilerVersion) compareVersions(*entry.maxCompilerVersion, "0");
  entry.params = member(json, what, "params");
  entry.paramsHash = text(json, what, "params_hash");
  entry.origin = text(json, what, "origin");
  entry.createdAt = text(json, what, "created_at");
  // Lines exported before the mark existed have none: unmarked.
  if (const Json* portable = json.get("portable"); portable != nullptr && !portable->isNull()) {
    FL_CHECK(portable->isBool(), what, " member \"portable\" must be true or false");
    entry.portable = portable->asBool();
  }
  entry.run = RunRecord::fromJson(member(json, what, "run"));
  if (const Json* m = json.get("measurement"); m != nullptr && !m->isNull()) {
    entry.measurement = MeasurementRecord::fromJson(*m);
  }
  if (const Json* list = json.get("variants"); list != nullptr && !list->isNull()) {
    FL_CHECK(list->isArray(), what, " member \"variants\" must be an array");
    for (const Json& variant : list->items()) {
      entry.variants.push_back(MeasurementRecord::fromJson(variant));
    }
  }
  return entry;
}

std::string Entry::summary() const {
  std::ostringstream out;
  out << "entry " << id << ": " << segment.scheduler << " " << segment.sizes << " on "
      << (device.key.empty() ? device.fingerprint : device.key) << " (" << origin << ", "
      << measurementSummary(measurement) << (portable ? ", portable" : "") << ")";
  return out.str();
}

std::string measurementSummary(const std::optional<MeasurementRecord>& measurement) {
  if (!measurement) return "unmeasured";
  if (measurement->error) return "failed: " + *measurement->error;
  if (!measurement->medianNs) return "no timing";
  char text[96];
  std::snprintf(text, sizeof text, "median %.3f us over %lld samples",
                *measurement->medianNs / 1000.0, static_cast<long long>(measurement->samples));
  return text;
}

}  // namespace fuserlab::db
