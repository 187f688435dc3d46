#include "core/report/json.h"

#include <cmath>
#include <cstdio>

#include "core/ir/error.h"
#include "core/ir/val.h"

namespace fuserlab::report {

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
    out += std::isfinite(*d) ? ir::formatDouble(*d)
                             : quoteJson(ir::formatDouble(*d));
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
