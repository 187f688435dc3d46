#include "app/gui/value_flow.h"

#include <algorithm>

namespace fuserlab::gui {
namespace {

void addOnce(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

ValueFlow::ValueFlow(const report::CompileReport& report) {
  std::set<std::string> constants;
  for (const auto& value : report.values) {
    if (value.isConstant) constants.insert(value.name);
  }
  for (const auto& segment : report.segments) {
    for (const auto& expr : segment.exprFlow) {
      if (expr.outputs.empty()) continue;
      for (const std::string& input : expr.inputs) {
        if (constants.count(input)) continue;
        for (const std::string& output : expr.outputs) addOnce(producers_[output], input);
        addOnce(consumers_[input], expr.outputs.front());
      }
    }
  }
}

const std::vector<std::string>& ValueFlow::producers(const std::string& value) const {
  static const std::vector<std::string> kNone;
  const auto it = producers_.find(value);
  return it == producers_.end() ? kNone : it->second;
}

const std::vector<std::string>& ValueFlow::consumers(const std::string& value) const {
  static const std::vector<std::string> kNone;
  const auto it = consumers_.find(value);
  return it == consumers_.end() ? kNone : it->second;
}

}  // namespace fuserlab::gui
