// Json: a small JSON value (null, bool, number, string, array, object with
// keys in insertion order) and its serializer. The report, the CLI's --json
// output and manifests are built from it; keys keep insertion order so the
// same report always serializes to the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fuserlab::report {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default;  //!< null
  Json(std::nullptr_t) {}
  Json(bool value) : value_(value) {}
  Json(int value) : value_(int64_t{value}) {}
  Json(int64_t value) : value_(value) {}
  Json(double value) : value_(value) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(Array value) : value_(std::move(value)) {}

  static Json object() { Json j; j.value_ = Object{}; return j; }
  static Json array() { Json j; j.value_ = Array{}; return j; }
  template <typename T>
  static Json arrayOf(const std::vector<T>& values) {
    Json j = array();
    for (const auto& v : values) j.push(Json(v));
    return j;
  }

  //! Sets `key` on an object (replacing an existing key in place).
  Json& set(const std::string& key, Json value);
  //! Appends to an array.
  Json& push(Json value);

  bool isNull() const { return std::holds_alternative<std::monostate>(value_); }

  //! Compact with `indent` < 0, else pretty-printed with that many spaces.
  std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, Array,
               Object>
      value_;
};

//! JSON string escaping (quotes included).
std::string quoteJson(const std::string& text);

}  // namespace fuserlab::report
