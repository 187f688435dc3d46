#include "core/passes/compile_options.h"

#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>

#include "core/ir/error.h"
#include "core/passes/pipeline.h"

namespace fuserlab::passes {
namespace {

constexpr std::array<std::pair<std::string_view, BookendMode>, 3> kBookendModes =
    {{{"none", BookendMode::None},
      {"outputs", BookendMode::Outputs},
      {"inputs_and_outputs", BookendMode::InputsAndOutputs}}};

constexpr std::array<std::pair<std::string_view, UpcastStrategy>, 2>
    kUpcastStrategies = {{{"privatize", UpcastStrategy::Privatize},
                          {"forward", UpcastStrategy::Forward}}};

constexpr std::array<std::pair<std::string_view, bool>, 2> kSwitchValues = {
    {{"on", true}, {"off", false}}};

constexpr std::array<std::string_view, 4> kOptionNames = {"bookend", "upcast",
                                                          "dependent_launch", "graph_launch"};

template <typename Table>
std::string joinNames(const Table& table) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += ", ";
    if constexpr (std::is_convertible_v<decltype(entry), std::string_view>) {
      out += entry;
    } else {
      out += entry.first;
    }
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
  FL_USER_ERROR("unknown value '", value, "' for option ", option,
                "; expected one of ", joinNames(table), " (e.g. --set ",
                option, "=", table[0].first, ")");
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::string_view toString(BookendMode mode) {
  for (const auto& [name, value] : kBookendModes) {
    if (value == mode) return name;
  }
  FL_ASSERT(false, "unknown BookendMode ", static_cast<int>(mode));
  return {};
}

std::string_view toString(UpcastStrategy strategy) {
  for (const auto& [name, value] : kUpcastStrategies) {
    if (value == strategy) return name;
  }
  FL_ASSERT(false, "unknown UpcastStrategy ", static_cast<int>(strategy));
  return {};
}

void CompileOptions::set(std::string_view name, std::string_view value) {
  name = trim(name);
  value = trim(value);
  if (name == "bookend") {
    bookend = parseValue(name, kBookendModes, value);
  } else if (name == "upcast") {
    upcast = parseValue(name, kUpcastStrategies, value);
  } else if (name == "dependent_launch") {
    dependentLaunch = parseValue(name, kSwitchValues, value);
  } else if (name == "graph_launch") {
    graphLaunch = parseValue(name, kSwitchValues, value);
  } else {
    FL_USER_ERROR("unknown option '", name, "'; known options are ",
                  joinNames(kOptionNames),
                  " (passes are switched off with --disable-pass NAME)");
  }
}

void CompileOptions::setFromAssignment(std::string_view assignment) {
  const auto equals = assignment.find('=');
  FL_CHECK(equals != std::string_view::npos && trim(assignment.substr(0, equals)) != "",
           "expected NAME=VALUE (e.g. bookend=inputs_and_outputs), got '",
           assignment, "'");
  set(assignment.substr(0, equals), assignment.substr(equals + 1));
}

void CompileOptions::disablePass(std::string_view passName) {
  passName = trim(passName);
  if (!isPassName(passName)) {
    std::string names;
    for (const auto& pass : allPasses()) {
      if (!names.empty()) names += ", ";
      names += pass->name();
    }
    FL_USER_ERROR("unknown pass '", passName, "'; the passes are ", names);
  }
  if (passEnabled(passName)) disabledPasses.emplace_back(passName);
}

bool CompileOptions::passEnabled(std::string_view passName) const {
  return std::find(disabledPasses.begin(), disabledPasses.end(), passName) ==
         disabledPasses.end();
}

report::Json CompileOptions::toJson() const {
  report::Json json = report::Json::object();
  json.set("bookend", std::string(toString(bookend)));
  json.set("upcast", std::string(toString(upcast)));
  json.set("dependent_launch", dependentLaunch);
  json.set("graph_launch", graphLaunch);
  json.set("disabled_passes", report::Json::arrayOf(disabledPasses));
  return json;
}

}  // namespace fuserlab::passes
