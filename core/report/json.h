// Json: a small JSON value (null, bool, number, string, array, object with
// keys in insertion order) and its serializer. The report, the CLI's --json
// output and manifests are built from it; keys keep insertion order so the
// same report always serializes to the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
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

  static Json object() {
    Json j;
    j.value_ = Object{};
    return j;
  }
  static Json array() {
    Json j;
    j.value_ = Array{};
    return j;
  }
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
  bool isBool() const { return std::holds_alternative<bool>(value_); }
  //! An integer (a number written without fraction or exponent).
  bool isInt() const { return std::holds_alternative<int64_t>(value_); }
  //! An integer or a floating-point number.
  bool isNumber() const { return isInt() || std::holds_alternative<double>(value_); }
  bool isString() const { return std::holds_alternative<std::string>(value_); }
  bool isArray() const { return std::holds_alternative<Array>(value_); }
  bool isObject() const { return std::holds_alternative<Object>(value_); }
  //! "null", "bool", "integer", "number", "string", "array" or "object", for
  //! messages.
  std::string_view typeName() const;

  // Typed access: a UserError that names the expected and the found type if
  // the value is of another type.
  bool asBool() const;
  int64_t asInt() const;
  //! An integer converts.
  double asDouble() const;
  const std::string& asString() const;
  //! The elements of an array.
  const Array& items() const;
  //! The members of an object, in their order.
  const Object& members() const;
  //! The member `key` of an object; nullptr if there is none (or this is not
  //! an object).
  const Json* get(std::string_view key) const;

  //! Parses JSON text (RFC 8259; one value, surrounding whitespace allowed).
  //! Malformed text is a UserError with the line and column. Numbers without
  //! fraction or exponent that fit in 64 bits read as integers.
  static Json parse(std::string_view text);

  bool operator==(const Json& other) const { return value_ == other.value_; }

  //! Compact with `indent` < 0, else pretty-printed with that many spaces.
  std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Object> value_;
};

//! JSON string escaping (quotes included).
std::string quoteJson(const std::string& text);

}  // namespace fuserlab::report
