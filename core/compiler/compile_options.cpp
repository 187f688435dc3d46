#include "core/compiler/compile_options.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::compiler {
namespace {

using passes::kBookendModeNames;
using segmenter::kUpcastStrategyNames;

constexpr std::array<std::pair<std::string_view, bool>, 2> kSwitchValues = {
    {{"on", true}, {"off", false}}};

template <typename Enum, size_t N>
std::string joinNames(const std::array<std::pair<std::string_view, Enum>, N>& table) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += ", ";
    out += entry.first;
  }
  return out;
}

// The value `value` names in `table`, or a UserError listing the values.
template <typename Enum, size_t N>
Enum parseValue(std::string_view option,
                const std::array<std::pair<std::string_view, Enum>, N>& table,
                std::string_view value) {
  for (const auto& [name, mode] : table) {
    if (name == value) return mode;
  }
  FL_USER_ERROR("unknown value '", value, "' for option ", option, "; expected one of ",
                joinNames(table), " (e.g. --set ", option, "=", table[0].first, ")");
}

// The name `table` gives `value`.
template <typename Enum, size_t N>
std::string_view nameOf(const std::array<std::pair<std::string_view, Enum>, N>& table, Enum value) {
  for (const auto& [name, entry] : table) {
    if (entry == value) return name;
  }
  FL_ASSERT(false, "a value without a name: ", static_cast<int>(value));
  return {};
}

template <typename Enum, size_t N>
std::vector<std::string_view> namesOf(
    const std::array<std::pair<std::string_view, Enum>, N>& table) {
  std::vector<std::string_view> names;
  for (const auto& entry : table) names.push_back(entry.first);
  return names;
}

// The one name table: each setting's name, how it is read from text and how
// it is written back. CompileOptions::set, CompileOptions::assignments and
// compileSettings all walk it.
struct Setting {
  std::string_view name;
  void (*set)(CompileOptions& options, std::string_view name, std::string_view value);
  std::string_view (*get)(const CompileOptions& options);
  std::vector<std::string_view> (*values)();
};

const std::array<Setting, 5> kSettings = {{
    {"bookend",
     [](CompileOptions& o, std::string_view n, std::string_view v) {
       o.bookend = parseValue(n, kBookendModeNames, v);
     },
     [](const CompileOptions& o) { return nameOf(kBookendModeNames, o.bookend); },
     [] { return namesOf(kBookendModeNames); }},
    {"upcast",
     [](CompileOptions& o, std::string_view n, std::string_view v) {
       o.upcast = parseValue(n, kUpcastStrategyNames, v);
     },
     [](const CompileOptions& o) { return nameOf(kUpcastStrategyNames, o.upcast); },
     [] { return namesOf(kUpcastStrategyNames); }},
    {"dependent_launch",
     [](CompileOptions& o, std::string_view n, std::string_view v) {
       o.dependentLaunch = parseValue(n, kSwitchValues, v);
     },
     [](const CompileOptions& o) { return nameOf(kSwitchValues, o.dependentLaunch); },
     [] { return namesOf(kSwitchValues); }},
    {"graph_launch",
     [](CompileOptions& o, std::string_view n, std::string_view v) {
       o.graphLaunch = parseValue(n, kSwitchValues, v);
     },
     [](const CompileOptions& o) { return nameOf(kSwitchValues, o.graphLaunch); },
     [] { return namesOf(kSwitchValues); }},
    {"refine_reshaped_reductions",
     [](CompileOptions& o, std::string_view n, std::string_view v) {
       o.refineReshapedReductions = parseValue(n, kSwitchValues, v);
     },
     [](const CompileOptions& o) { return nameOf(kSwitchValues, o.refineReshapedReductions); },
     [] { return namesOf(kSwitchValues); }},
}};

std::string settingNames() {
  std::string out;
  for (const Setting& setting : kSettings) {
    if (!out.empty()) out += ", ";
    out += setting.name;
  }
  return out;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

void CompileOptions::set(std::string_view name, std::string_view value) {
  name = trim(name);
  value = trim(value);
  for (const Setting& setting : kSettings) {
    if (setting.name == name) return setting.set(*this, name, value);
  }
  FL_USER_ERROR("unknown option '", name, "'; known options are ", settingNames(),
                " (passes are switched off with --disable-pass NAME)");
}

std::vector<std::string> CompileOptions::assignments() const {
  std::vector<std::string> out;
  for (const Setting& setting : kSettings) {
    out.push_back(std::string(setting.name) + "=" + std::string(setting.get(*this)));
  }
  return out;
}

std::vector<CompileSetting> compileSettings() {
  std::vector<CompileSetting> out;
  for (const Setting& setting : kSettings) out.push_back({setting.name, setting.values()});
  return out;
}

void CompileOptions::setFromAssignment(std::string_view assignment) {
  const auto equals = assignment.find('=');
  FL_CHECK(equals != std::string_view::npos && trim(assignment.substr(0, equals)) != "",
           "expected NAME=VALUE (e.g. bookend=inputs_and_outputs), got '", assignment, "'");
  set(assignment.substr(0, equals), assignment.substr(equals + 1));
}

report::Json CompileOptions::toJson() const {
  report::Json json = report::Json::object();
  json.set("bookend", std::string(toString(bookend)));
  json.set("upcast", std::string(toString(upcast)));
  json.set("dependent_launch", dependentLaunch);
  json.set("graph_launch", graphLaunch);
  json.set("refine_reshaped_reductions", refineReshapedReductions);
  json.set("disabled_passes", report::Json::arrayOf(disabledPasses));
  return json;
}

}  // namespace fuserlab::compiler
