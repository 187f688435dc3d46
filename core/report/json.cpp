#include "core/report/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/ir/error.h"
#include "core/ir/val.h"

namespace fuserlab::report {
namespace {

constexpr int kMaxParseDepth = 256;

// A recursive-descent reader over one JSON text. Errors name the line and
// column of the offending character and what was expected there.
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Json parseDocument() {
    skipWhitespace();
    Json value = parseValue(0);
    skipWhitespace();
    if (pos_ != text_.size()) fail("expected the end of the text");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string found = "the end of the text";
    if (pos_ < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c >= 0x20 && c < 0x7f) {
        found = std::string("'") + static_cast<char>(c) + "'";
      } else {
        char buffer[16];
        std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", c);
        found = buffer;
      }
    }
    FL_USER_ERROR("malformed JSON at line ", line, ", column ", column, ": ", expected, ", found ",
                  found);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipWhitespace() {
    while (!atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                        text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect(char c, const char* what) {
    if (peek() != c) fail(what);
    ++pos_;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Json parseValue(int depth) {
    if (depth > kMaxParseDepth) {
      fail("expected values nested at most " + std::to_string(kMaxParseDepth) + " levels deep");
    }
    switch (peek()) {
      case '{': return parseObject(depth);
      case '[': return parseArray(depth);
      case '"': return Json(parseString());
      case 't':
        if (consumeWord("true")) return Json(true);
        break;
      case 'f':
        if (consumeWord("false")) return Json(false);
        break;
      case 'n':
        if (consumeWord("null")) return Json();
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          return parseNumber();
        }
    }
    fail(
        "expected a value (object, array, string, number, true, false or "
        "null)");
  }

  Json parseObject(int depth) {
    ++pos_;  // '{'
    Json object = Json::object();
    skipWhitespace();
    if (peek() == '}') {
      ++pos_;
      return object;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') fail("expected a string key");
      const size_t keyPos = pos_;
      std::string key = parseString();
      if (object.get(key) != nullptr) {
        pos_ = keyPos;
        fail("expected a key not given before in this object (\"" + key + "\" is repeated)");
      }
      skipWhitespace();
      expect(':', "expected ':' after an object key");
      skipWhitespace();
      object.set(key, parseValue(depth + 1));
      skipWhitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}', "expected ',' or '}' after an object member");
      return object;
    }
  }

  Json parseArray(int depth) {
    ++pos_;  // '['
    Json array = Json::array();
    skipWhitespace();
    if (peek() == ']') {
      ++pos_;
      return array;
    }
    while (true) {
      skipWhitespace();
      array.push(parseValue(depth + 1));
      skipWhitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "expected ',' or ']' after an array element");
      return array;
    }
  }

  uint32_t parseHex4() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        value |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        value |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        fail("expected four hex digits after \\u");
      }
      ++pos_;
    }
    return value;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string parseString() {
    ++pos_;  // '"'
    std::string out;
    while (true) {
      if (atEnd()) fail("expected '\"' to close the string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail(
            "expected no raw control characters in a string (write \\n, "
            "\\t, \\u00XX)");
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      const char escape = peek();
      ++pos_;
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = parseHex4();
          if (cp >= 0xd800 && cp < 0xdc00) {
            if (!consumeWord("\\u")) {
              fail(
                  "expected a low surrogate \\uDC00-\\uDFFF after a high "
                  "surrogate");
            }
            const uint32_t low = parseHex4();
            if (low < 0xdc00 || low > 0xdfff) {
              pos_ -= 4;
              fail("expected a low surrogate \\uDC00-\\uDFFF");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            pos_ -= 4;
            fail("expected a high surrogate before a low surrogate");
          }
          appendUtf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail(
              "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t "
              "\\uXXXX) after a backslash");
      }
    }
  }

  Json parseNumber() {
    const size_t start = pos_;
    bool integral = true;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("expected a digit");
    }
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) {
        fail("expected a digit in the exponent");
      }
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      int64_t value = 0;
      auto [end, error] = std::from_chars(first, last, value);
      if (error == std::errc() && end == last) return Json(value);
      // Too large for 64 bits: keep it as a floating-point number.
    }
    double value = 0;
    auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last) {
      pos_ = start;
      fail("expected a number that fits a double");
    }
    return Json(value);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Json Json::parse(std::string_view text) { return JsonParser(text).parseDocument(); }

std::string_view Json::typeName() const {
  switch (value_.index()) {
    case 0: return "null";
    case 1: return "bool";
    case 2: return "integer";
    case 3: return "number";
    case 4: return "string";
    case 5: return "array";
    default: return "object";
  }
}

bool Json::asBool() const {
  FL_CHECK(isBool(), "expected true or false, found a JSON ", typeName());
  return std::get<bool>(value_);
}

int64_t Json::asInt() const {
  FL_CHECK(isInt(), "expected an integer, found a JSON ", typeName(),
           isNumber() ? " (" + dump(-1) + ")" : std::string());
  return std::get<int64_t>(value_);
}

double Json::asDouble() const {
  FL_CHECK(isNumber(), "expected a number, found a JSON ", typeName());
  if (isInt()) return static_cast<double>(std::get<int64_t>(value_));
  return std::get<double>(value_);
}

const std::string& Json::asString() const {
  FL_CHECK(isString(), "expected a string, found a JSON ", typeName());
  return std::get<std::string>(value_);
}

const Json::Array& Json::items() const {
  FL_CHECK(isArray(), "expected an array, found a JSON ", typeName());
  return std::get<Array>(value_);
}

const Json::Object& Json::members() const {
  FL_CHECK(isObject(), "expected an object, found a JSON ", typeName());
  return std::get<Object>(value_);
}

const Json* Json::get(std::string_view key) const {
  const auto* object = std::get_if<Object>(&value_);
  if (object == nullptr) return nullptr;
  for (const auto& [k, v] : *object) {
    if (k == key) return &v;
  }
  return nullptr;
}

Json& Json::set(const std::string& key, Json value) {
  FL_ASSERT(std::holds_alternative<Object>(value_), "set() on a non-object");
  auto& object = std::get<Object>(value_);
  for (auto& [k, v] : object) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  object.emplace_back(key, std::move(value));
  return *this;
}

Json& Json::push(Json value) {
  FL_ASSERT(std::holds_alternative<Array>(value_), "push() on a non-array");
  std::get<Array>(value_).push_back(std::move(value));
  return *this;
}

std::string quoteJson(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void Json::write(std::string& out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  if (isNull()) {
    out += "null";
  } else if (const auto* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (const auto* i = std::get_if<int64_t>(&value_)) {
    out += std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&value_)) {
    // JSON has no NaN or infinity: write them as strings.
    out += std::isfinite(*d) ? ir::formatDouble(*d) : quoteJson(ir::formatDouble(*d));
  } else if (const auto* s = std::get_if<std::string>(&value_)) {
    out += quoteJson(*s);
  } else if (const auto* a = std::get_if<Array>(&value_)) {
    out += '[';
    for (size_t k = 0; k < a->size(); ++k) {
      if (k) out += ',';
      newline(depth + 1);
      (*a)[k].write(out, indent, depth + 1);
    }
    if (!a->empty()) newline(depth);
    out += ']';
  } else if (const auto* o = std::get_if<Object>(&value_)) {
    out += '{';
    for (size_t k = 0; k < o->size(); ++k) {
      if (k) out += ',';
      newline(depth + 1);
      out += quoteJson((*o)[k].first);
      out += indent < 0 ? ":" : ": ";
      (*o)[k].second.write(out, indent, depth + 1);
    }
    if (!o->empty()) newline(depth);
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

}  // namespace fuserlab::report
