#include "core/report/script_names.h"

#include <cctype>
#include <unordered_set>

namespace fuserlab::report {

ScriptNames::ScriptNames(const CompileReport& report) {
  std::unordered_map<std::string, int> uses;
  for (const TensorReport& value : report.values) {
    if (!value.scriptName.empty()) ++uses[value.scriptName];
  }
  std::unordered_set<std::string> taken;
  for (const TensorReport& value : report.values) {
    if (value.scriptName.empty() || value.scriptName == value.name) continue;
    if (uses[value.scriptName] != 1) continue;
    shown_[value.name] = value.scriptName;
    taken.insert(value.scriptName);
  }
  for (const TensorReport& value : report.values) {
    if (shown_.count(value.name) != 0) continue;
    // Named as in the script, or unnamed: its IR name, unless another
    // value now shows as that.
    if (taken.count(value.name) != 0) shown_[value.name] = value.name + "'";
  }
}

const std::string& ScriptNames::shown(const std::string& name) const {
  const auto it = shown_.find(name);
  return it == shown_.end() ? name : it->second;
}

std::string ScriptNames::rename(std::string_view text) const {
  if (shown_.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  const auto isWord = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  while (i < text.size()) {
    // A token: letters then digits, not preceded by a word character and
    // not followed by a letter or digit ("_" may follow: T3_l_float).
    if (std::isalpha(static_cast<unsigned char>(text[i])) != 0 &&
        (i == 0 || !isWord(text[i - 1]))) {
      size_t j = i;
      while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j])) != 0) ++j;
      size_t k = j;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])) != 0) ++k;
      if (k > j && (k == text.size() || std::isalnum(static_cast<unsigned char>(text[k])) == 0)) {
        const auto it = shown_.find(std::string(text.substr(i, k - i)));
        if (it != shown_.end()) {
          out += it->second;
          i = k;
          continue;
        }
      }
      out.append(text.substr(i, k - i));
      i = k;
      continue;
    }
    out += text[i++];
  }
  return out;
}

}  // namespace fuserlab::report
