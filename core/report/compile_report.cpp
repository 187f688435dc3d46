#include "core/report/compile_report.h"

#include <sstream>

namespace fuserlab::report {
namespace {

Json stringArray(const std::vector<std::string>& items) {
  Json array = Json::array();
  for (const auto& item : items) array.push(item);
  return array;
}

}  // namespace

std::vector<std::string> CompileReport::paramsSources() const {
  std::vector<std::string> sources;
  sources.reserve(segments.size());
  for (const SegmentReport& segment : segments) sources.push_back(segment.paramsSource);
  return sources;
}

int CompileReport::kernelCount() const {
  int count = 0;
  for (const auto& segment : segments) count += segment.launchesKernel ? 1 : 0;
  return count;
}

Json CompileReport::toJson() const {
  Json root = Json::object();
  root.set("device", device);
  root.set("options", options);
  Json passList = Json::array();
  for (const auto& pass : passes) {
    Json entry = Json::object();
    entry.set("name", pass.name);
    entry.set("enabled", pass.enabled);
    entry.set("rewrites", stringArray(pass.rewrites));
    passList.push(std::move(entry));
  }
  root.set("passes", std::move(passList));
  Json segmentList = Json::array();
  for (const auto& segment : segments) {
    Json entry = Json::object();
    entry.set("id", segment.id);
    entry.set("scheduler", segment.scheduler);
    entry.set("launches_kernel", segment.launchesKernel);
    entry.set("exprs", stringArray(segment.exprs));
    Json flow = Json::array();
    for (const auto& expr : segment.exprFlow) {
      Json item = Json::object();
      item.set("op", expr.op);
      item.set("inputs", stringArray(expr.inputs));
      item.set("outputs", stringArray(expr.outputs));
      flow.push(std::move(item));
    }
    entry.set("expr_flow", std::move(flow));
    entry.set("inputs", stringArray(segment.inputs));
    entry.set("outputs", stringArray(segment.outputs));
    entry.set("params", segment.params);
    entry.set("params_source", segment.paramsSource);
    entry.set("params_entry_id", segment.paramsEntryId != 0 ? Json(segment.paramsEntryId) : Json());
    entry.set("params_origin", segment.paramsOrigin.empty() ? Json() : Json(segment.paramsOrigin));
    entry.set("params_fallback_device",
              segment.paramsFallbackDevice.empty() ? Json() : Json(segment.paramsFallbackDevice));
    entry.set("params_note", segment.paramsNote);
    entry.set("properties", segment.properties);
    Json rejected = Json::array();
    for (const auto& r : segment.rejected) {
      Json item = Json::object();
      item.set("scheduler", r.scheduler);
      item.set("reason", r.reason);
      rejected.push(std::move(item));
    }
    entry.set("rejected", std::move(rejected));
    segmentList.push(std::move(entry));
  }
  root.set("segments", std::move(segmentList));
  Json edgeList = Json::array();
  for (const auto& edge : edges) {
    Json entry = Json::object();
    entry.set("from", edge.from);
    entry.set("to", edge.to);
    entry.set("tensor", edge.tensor);
    entry.set("dtype", edge.dtype);
    entry.set("shape", Json::arrayOf(edge.shape));
    edgeList.push(std::move(entry));
  }
  root.set("edges", std::move(edgeList));
  Json valueList = Json::array();
  for (const auto& value : values) {
    Json entry = Json::object();
    entry.set("name", value.name);
    entry.set("dtype", value.dtype);
    entry.set("shape", Json::arrayOf(value.shape));
    entry.set("is_tensor", value.isTensor);
    entry.set("is_constant", value.isConstant);
    entry.set("is_fusion_input", value.isFusionInput);
    entry.set("is_fusion_output", value.isFusionOutput);
    if (!value.scriptName.empty()) entry.set("script_name", value.scriptName);
    if (value.scriptLine > 0) entry.set("script_line", value.scriptLine);
    valueList.push(std::move(entry));
  }
  root.set("values", std::move(valueList));
  Json decisionList = Json::array();
  for (const auto& decision : decisions) {
    Json entry = Json::object();
    entry.set("kind", decision.kind);
    entry.set("groups", Json::arrayOf(decision.groups));
    entry.set("accepted", decision.accepted);
    entry.set("reason", decision.reason);
    decisionList.push(std::move(entry));
  }
  root.set("decisions", std::move(decisionList));
  root.set("segment_count", static_cast<int64_t>(segments.size()));
  root.set("kernel_count", kernelCount());
  // Kernel-free segments still cost host time per run (seed 001's trade-off).
  root.set("host_step_count", static_cast<int64_t>(segments.size()) - kernelCount());
  root.set("compile_us", compileMicroseconds);
  if (!run.isNull()) root.set("run", run);
  return root;
}

std::string CompileReport::schedulerParamsText() const {
  std::ostringstream out;
  for (const auto& segment : segments) {
    out << "===== Segment " << segment.id << ": " << segment.scheduler
        << (segment.launchesKernel ? "" : " (no kernel)") << " ========\n";
    out << "params from: " << segment.paramsSource;
    if (segment.paramsEntryId != 0) out << " (entry " << segment.paramsEntryId << ")";
    if (!segment.paramsOrigin.empty()) out << " in " << segment.paramsOrigin;
    if (!segment.paramsFallbackDevice.empty()) {
      out << ", measured on " << segment.paramsFallbackDevice;
    }
    out << "\n";
    if (!segment.paramsNote.empty()) out << "note: " << segment.paramsNote << "\n";
    out << "properties: " << segment.properties.dump(-1) << "\n";
    if (!segment.params.isNull()) out << "params: " << segment.params.dump(-1) << "\n";
    for (const auto& r : segment.rejected) {
      out << "  not " << r.scheduler << ": " << r.reason << "\n";
    }
  }
  return out.str();
}

std::string CompileReport::segmenterLoggingText() const {
  std::ostringstream out;
  for (const auto& decision : decisions) {
    out << decision.kind << " {";
    for (size_t i = 0; i < decision.groups.size(); ++i) {
      out << (i ? ", " : "") << decision.groups[i];
    }
    out << "}: " << (decision.accepted ? "accepted" : "refused");
    if (!decision.reason.empty()) out << " (" << decision.reason << ")";
    out << "\n";
  }
  return out.str();
}

}  // namespace fuserlab::report
