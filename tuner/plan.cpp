#include "tuner/plan.h"

#include <filesystem>
#include <map>

#include "core/ir/bounded_file.h"
#include "core/ir/error.h"

namespace fuserlab::tuner {
namespace {

using report::Json;

constexpr uint64_t kMaxPlanBytes = uint64_t{256} << 20;

std::string resolve(const std::string& script, const std::string& folder) {
  const std::filesystem::path path(script);
  if (path.is_absolute() || folder.empty()) return script;
  return (std::filesystem::path(folder) / path).lexically_normal().string();
}

const std::string& memberString(const Json& object, std::string_view key,
                                const std::string& where) {
  const Json* value = object.get(key);
  FL_CHECK(value != nullptr && value->isString(), where, ": expected a string \"", key, "\"");
  return value->asString();
}

std::optional<std::string> optionalString(const Json& object, std::string_view key,
                                          const std::string& where) {
  const Json* value = object.get(key);
  if (value == nullptr || value->isNull()) return std::nullopt;
  FL_CHECK(value->isString(), where, ": \"", key, "\" must be a string or null, found ",
           value->typeName());
  return value->asString();
}

// Adds `item`, or merges its segments into the item of the same identity.
void add(std::vector<PlanItem>& items, std::map<std::string, size_t>& index, PlanItem item) {
  const std::string identity = item.identity();
  auto [it, inserted] = index.emplace(identity, items.size());
  if (inserted) {
    items.push_back(std::move(item));
    return;
  }
  PlanItem& existing = items[it->second];
  // An item that tunes every segment stays so.
  if (existing.segmentHashes.empty() || item.segmentHashes.empty()) {
    existing.segmentHashes.clear();
  } else {
    existing.segmentHashes.insert(item.segmentHashes.begin(), item.segmentHashes.end());
  }
}

std::vector<PlanItem> fromPlanObject(const Json& plan, const std::string& name,
                                     const std::string& folder) {
  const Json* fusions = plan.get("fusions");
  FL_CHECK(fusions != nullptr && fusions->isArray(), name,
           ": a plan is {\"format\": 1, \"fusions\": [{\"script\": ..., \"sizes\": [...]}]}");
  std::vector<PlanItem> items;
  std::map<std::string, size_t> index;
  size_t n = 0;
  for (const Json& entry : fusions->items()) {
    const std::string where = name + " fusions[" + std::to_string(n++) + "]";
    FL_CHECK(entry.isObject(), where, ": expected an object, found ", entry.typeName());
    PlanItem base;
    base.script = resolve(memberString(entry, "script", where), folder);
    base.fusion = optionalString(entry, "fusion", where);
    const Json* sizes = entry.get("sizes");
    if (sizes == nullptr || sizes->isNull()) {
      add(items, index, base);
      continue;
    }
    FL_CHECK(sizes->isArray() && !sizes->items().empty(), where,
             ": \"sizes\" must be a non-empty list of --inputs texts");
    for (const Json& spec : sizes->items()) {
      FL_CHECK(spec.isString(), where, ": each of \"sizes\" is an --inputs text, found ",
               spec.typeName());
      PlanItem item = base;
      item.inputs = spec.asString();
      add(items, index, std::move(item));
    }
  }
  return items;
}

}  // namespace

std::string PlanItem::identity() const {
  return script + "|" + fusion.value_or("") + "|" + inputs.value_or("<inputs block>");
}

Json PlanItem::toJson() const {
  Json json = Json::object();
  json.set("script", script);
  json.set("fusion", fusion ? Json(*fusion) : Json());
  json.set("inputs", inputs ? Json(*inputs) : Json());
  json.set("segments",
           Json::arrayOf(std::vector<std::string>(segmentHashes.begin(), segmentHashes.end())));
  return json;
}

std::vector<PlanItem> parsePlan(const std::string& text, const std::string& name,
                                const std::string& folder) {
  // A plan is one object with "fusions"; anything else is read as lines.
  if (text.find('\n') == std::string::npos || text.find("\"fusions\"") != std::string::npos) {
    std::optional<Json> whole;
    try {
      whole = Json::parse(text);
    } catch (const UserError&) {
    }
    if (whole && whole->isObject() && whole->get("fusions") != nullptr) {
      return fromPlanObject(*whole, name, folder);
    }
  }
  std::vector<PlanItem> items;
  std::map<std::string, size_t> index;
  size_t begin = 0;
  int number = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = name + " line " + std::to_string(number);
    Json json;
    try {
      json = Json::parse(line);
    } catch (const UserError& error) {
      FL_USER_ERROR(where, ": not a plan or record line: ", error.message());
    }
    FL_CHECK(json.isObject(), where, ": expected a JSON object, found ", json.typeName());
    PlanItem item;
    item.script = resolve(memberString(json, "script", where), folder);
    item.fusion = optionalString(json, "fusion", where);
    item.inputs = optionalString(json, "inputs", where);
    if (auto hash = optionalString(json, "structure_hash", where)) {
      item.segmentHashes.insert(*hash);
    }
    add(items, index, std::move(item));
  }
  FL_CHECK(!items.empty(), name, " names nothing to tune (no fusions, no record lines)");
  return items;
}

std::vector<PlanItem> readPlanFile(const std::string& path) {
  const std::string text = ir::readUserFile(path, "plan file", kMaxPlanBytes);
  return parsePlan(text, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace fuserlab::tuner
