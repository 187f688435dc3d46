#include "core/report/report_reader.h"

#include "core/ir/error.h"

namespace fuserlab::report {
namespace {

const Json& member(const Json& object, std::string_view key, std::string_view where) {
  FL_CHECK(object.isObject(), "a compile report's ", where, " must be a JSON object, found ",
           object.typeName());
  const Json* found = object.get(key);
  FL_CHECK(found != nullptr, "a compile report's ", where, " has no '", key,
           "' (expected the JSON of fuserlab-cli inspect --json)");
  return *found;
}

// An optional member: null when absent.
const Json& optional(const Json& object, std::string_view key) {
  static const Json kNull;
  const Json* found = object.get(key);
  return found == nullptr ? kNull : *found;
}

std::vector<std::string> strings(const Json& array) {
  std::vector<std::string> out;
  for (const Json& item : array.items()) out.push_back(item.asString());
  return out;
}

std::vector<int64_t> sizes(const Json& array) {
  std::vector<int64_t> out;
  for (const Json& item : array.items()) out.push_back(item.asInt());
  return out;
}

SegmentReport segmentFromJson(const Json& json) {
  SegmentReport segment;
  segment.id = static_cast<int>(member(json, "id", "segment").asInt());
  segment.scheduler = member(json, "scheduler", "segment").asString();
  segment.launchesKernel = member(json, "launches_kernel", "segment").asBool();
  segment.exprs = strings(member(json, "exprs", "segment"));
  const Json& flow = optional(json, "expr_flow");
  for (const Json& item : flow.isArray() ? flow.items() : Json::Array{}) {
    ExprReport expr;
    expr.op = member(item, "op", "expr_flow entry").asString();
    expr.inputs = strings(member(item, "inputs", "expr_flow entry"));
    expr.outputs = strings(member(item, "outputs", "expr_flow entry"));
    segment.exprFlow.push_back(std::move(expr));
  }
  segment.inputs = strings(member(json, "inputs", "segment"));
  segment.outputs = strings(member(json, "outputs", "segment"));
  segment.params = optional(json, "params");
  if (const Json& source = optional(json, "params_source"); source.isString()) {
    segment.paramsSource = source.asString();
  }
  if (const Json& entry = optional(json, "params_entry_id"); entry.isInt()) {
    segment.paramsEntryId = entry.asInt();
  }
  if (const Json& origin = optional(json, "params_origin"); origin.isString()) {
    segment.paramsOrigin = origin.asString();
  }
  if (const Json& device = optional(json, "params_fallback_device"); device.isString()) {
    segment.paramsFallbackDevice = device.asString();
  }
  if (const Json& note = optional(json, "params_note"); note.isString()) {
    segment.paramsNote = note.asString();
  }
  if (const Json& properties = optional(json, "properties"); properties.isObject()) {
    segment.properties = properties;
  }
  if (const Json& rejected = optional(json, "rejected"); rejected.isArray()) {
    for (const Json& item : rejected.items()) {
      segment.rejected.push_back({member(item, "scheduler", "rejected entry").asString(),
                                  member(item, "reason", "rejected entry").asString()});
    }
  }
  return segment;
}

}  // namespace

CompileReport reportFromJson(const Json& json) {
  FL_CHECK(json.isObject(), "a compile report is a JSON object, found ", json.typeName());
  CompileReport report;
  report.device = optional(json, "device").isObject() ? optional(json, "device") : Json::object();
  report.options =
      optional(json, "options").isObject() ? optional(json, "options") : Json::object();
  if (const Json& passes = optional(json, "passes"); passes.isArray()) {
    for (const Json& item : passes.items()) {
      PassReport pass;
      pass.name = member(item, "name", "pass").asString();
      pass.enabled = member(item, "enabled", "pass").asBool();
      pass.rewrites = strings(member(item, "rewrites", "pass"));
      report.passes.push_back(std::move(pass));
    }
  }
  for (const Json& item : member(json, "segments", "top level").items()) {
    report.segments.push_back(segmentFromJson(item));
  }
  if (const Json& edges = optional(json, "edges"); edges.isArray()) {
    for (const Json& item : edges.items()) {
      EdgeReport edge;
      edge.from = static_cast<int>(member(item, "from", "edge").asInt());
      edge.to = static_cast<int>(member(item, "to", "edge").asInt());
      edge.tensor = member(item, "tensor", "edge").asString();
      edge.dtype = member(item, "dtype", "edge").asString();
      edge.shape = sizes(member(item, "shape", "edge"));
      report.edges.push_back(std::move(edge));
    }
  }
  if (const Json& values = optional(json, "values"); values.isArray()) {
    for (const Json& item : values.items()) {
      TensorReport value;
      value.name = member(item, "name", "value").asString();
      value.dtype = member(item, "dtype", "value").asString();
      value.shape = sizes(member(item, "shape", "value"));
      value.isTensor = member(item, "is_tensor", "value").asBool();
      value.isConstant = member(item, "is_constant", "value").asBool();
      value.isFusionInput = member(item, "is_fusion_input", "value").asBool();
      value.isFusionOutput = member(item, "is_fusion_output", "value").asBool();
      if (const Json& name = optional(item, "script_name"); name.isString()) {
        value.scriptName = name.asString();
      }
      if (const Json& line = optional(item, "script_line"); line.isInt()) {
        value.scriptLine = static_cast<int>(line.asInt());
      }
      report.values.push_back(std::move(value));
    }
  }
  if (const Json& decisions = optional(json, "decisions"); decisions.isArray()) {
    for (const Json& item : decisions.items()) {
      DecisionReport decision;
      decision.kind = member(item, "kind", "decision").asString();
      for (const Json& group : member(item, "groups", "decision").items()) {
        decision.groups.push_back(static_cast<int>(group.asInt()));
      }
      decision.accepted = member(item, "accepted", "decision").asBool();
      decision.reason = member(item, "reason", "decision").asString();
      report.decisions.push_back(std::move(decision));
    }
  }
  if (const Json& compile = optional(json, "compile_us"); compile.isNumber()) {
    report.compileMicroseconds = compile.asDouble();
  }
  if (const Json& run = optional(json, "run"); !run.isNull()) report.run = run;
  return report;
}

}  // namespace fuserlab::report
