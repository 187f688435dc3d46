#include "core/scheduler/params_fields.h"

#include "core/ir/error.h"
#include "core/ir/fnv1a.h"

namespace fuserlab::scheduler {

using report::Json;

ParamsJsonReader::ParamsJsonReader(const Json& json, std::string_view what, int schemaVersion)
    : json_(json), what_(what) {
  FL_CHECK(json.isObject(), what_, ": expected a JSON object, found a JSON ", json.typeName());
  known_.push_back("schema_version");
  if (const Json* version = json.get("schema_version")) {
    FL_CHECK(version->isInt() && version->asInt() == schemaVersion, what_, ": schema_version ",
             version->dump(-1), " is not the version this build reads (", schemaVersion,
             "); re-tune or re-export the params with this build");
  }
}

const Json& ParamsJsonReader::require(std::string_view field) {
  known_.emplace_back(field);
  const Json* value = json_.get(field);
  FL_CHECK(value != nullptr, what_, ": field \"", field, "\" is missing");
  return *value;
}

int64_t ParamsJsonReader::readInt(std::string_view field, int64_t minimum) {
  const Json& value = require(field);
  FL_CHECK(value.isInt(), what_, ": field \"", field, "\" must be an integer, found a JSON ",
           value.typeName(), value.isNull() ? std::string() : " (" + value.dump(-1) + ")");
  FL_CHECK(value.asInt() >= minimum, what_, ": field \"", field, "\" must be at least ", minimum,
           ", found ", value.asInt());
  return value.asInt();
}

bool ParamsJsonReader::readBool(std::string_view field) {
  const Json& value = require(field);
  FL_CHECK(value.isBool(), what_, ": field \"", field, "\" must be true or false, found a JSON ",
           value.typeName(), value.isNull() ? std::string() : " (" + value.dump(-1) + ")");
  return value.asBool();
}

bool ParamsJsonReader::readOptionalBool(std::string_view field, bool absent) {
  if (json_.get(field) == nullptr) {
    known_.emplace_back(field);
    return absent;
  }
  return readBool(field);
}

std::string ParamsJsonReader::readString(std::string_view field,
                                         const std::vector<std::string_view>& allowed) {
  const Json& value = require(field);
  std::string choices;
  for (std::string_view a : allowed) {
    choices += (choices.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  }
  FL_CHECK(value.isString(), what_, ": field \"", field, "\" must be one of ", choices,
           ", found a JSON ", value.typeName());
  for (std::string_view a : allowed) {
    if (value.asString() == a) return value.asString();
  }
  FL_USER_ERROR(what_, ": field \"", field, "\" must be one of ", choices, ", found \"",
                value.asString(), "\"");
}

void ParamsJsonReader::finish() const {
  for (const auto& [key, value] : json_.members()) {
    bool known = false;
    for (const std::string& k : known_) known = known || k == key;
    if (known) continue;
    std::string fields;
    for (const std::string& k : known_) fields += (fields.empty() ? "" : ", ") + k;
    FL_USER_ERROR(what_, ": unknown field \"", key, "\"; the fields are ", fields);
  }
}

ParamsHasher::ParamsHasher(std::string_view tag) {
  for (char c : tag) addByte(static_cast<uint8_t>(c));
  addByte(0);
}

ParamsHasher& ParamsHasher::add(int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) addByte(static_cast<uint8_t>(bits >> (8 * i)));
  return *this;
}

void ParamsHasher::addByte(uint8_t byte) { hash_ = ir::fnv1a64(hash_, byte); }

}  // namespace fuserlab::scheduler
