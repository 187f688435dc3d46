#include "core/frontend/test_functions.h"

#include <algorithm>
#include <vector>

namespace fuserlab::frontend {

using Kind = Value::Kind;

std::optional<Value> parametrizedValue(ExpressionEvaluator& evaluator, const FunctionDef& def,
                                       const std::string& name) {
  for (const ExprPtr& decorator : def.decorators) {
    const auto* call = decorator->as<Call>();
    if (call == nullptr || call->args.size() < 2 ||
        !dottedName(*call->callee).ends_with("parametrize")) {
      continue;
    }
    Value names = evaluator.evaluate(*call->args[0]);
    std::vector<std::string> split;
    if (names.is(Kind::kString)) {
      std::string text = names.text;
      size_t at = 0;
      while (at <= text.size()) {
        size_t comma = text.find(',', at);
        std::string part =
            text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        split.push_back(part);
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    } else if (names.isSequence()) {
      for (const Value& v : names.items()) split.push_back(v.text);
    }
    auto position = std::find(split.begin(), split.end(), name);
    if (position == split.end()) continue;
    Value values = evaluator.evaluate(*call->args[1]);
    if (!values.isSequence() || values.items().empty()) continue;
    const Value& first = values.items()[0];
    if (split.size() == 1) return first;
    const size_t index = static_cast<size_t>(position - split.begin());
    if (first.isSequence() && index < first.items().size()) {
      return first.items()[index];
    }
  }
  return std::nullopt;
}

}  // namespace fuserlab::frontend
