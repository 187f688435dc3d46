#include "app/gui/compare_baseline.h"

#include "core/ir/error.h"
#include "core/report/report_reader.h"

namespace fuserlab::gui {

std::string baselineJson(const CompileSnapshot& snapshot, const std::string& settingsSummary) {
  FL_ASSERT(snapshot.report.has_value(), "a baseline needs a compiled report");
  report::Json root = report::Json::object();
  root.set("format", kBaselineFormat);
  root.set("version", kBaselineVersion);
  root.set("file", snapshot.fileName);
  root.set("fusion", snapshot.fusionName);
  root.set("device_name", snapshot.deviceName);
  root.set("settings", settingsSummary);
  root.set("report", snapshot.report->toJson());
  return root.dump() + "\n";
}

Baseline baselineFromJson(const std::string& text, const std::string& fileName) {
  const report::Json root = report::Json::parse(text);
  const report::Json* format = root.isObject() ? root.get("format") : nullptr;
  FL_CHECK(format != nullptr && format->isString() && format->asString() == kBaselineFormat,
           fileName, " is not a Compare baseline (no \"format\": \"", kBaselineFormat,
           "\"; save one with Compare's \"Save A...\")");
  const report::Json* version = root.get("version");
  FL_CHECK(version != nullptr && version->isInt() && version->asInt() <= kBaselineVersion, fileName,
           " is a baseline of a newer version (",
           version && version->isInt() ? std::to_string(version->asInt()) : std::string("?"),
           "); this FuserLab reads version ", kBaselineVersion);
  const report::Json* reportJson = root.get("report");
  FL_CHECK(reportJson != nullptr, fileName, " has no \"report\"");
  Baseline baseline;
  const auto textOf = [&](const char* key) {
    const report::Json* value = root.get(key);
    return value && value->isString() ? value->asString() : std::string();
  };
  baseline.snapshot.fileName = textOf("file");
  baseline.snapshot.fusionName = textOf("fusion");
  baseline.snapshot.deviceName = textOf("device_name");
  baseline.settingsSummary = textOf("settings");
  baseline.snapshot.report = report::reportFromJson(*reportJson);
  return baseline;
}

}  // namespace fuserlab::gui
