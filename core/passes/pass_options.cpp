#include "core/passes/pass_options.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/passes/pipeline.h"

namespace fuserlab::passes {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::string_view toString(BookendMode mode) {
  for (const auto& [name, entry] : kBookendModeNames) {
    if (entry == mode) return name;
  }
  FL_ASSERT(false, "a bookend mode without a name: ", static_cast<int>(mode));
  return {};
}

void PassOptions::disablePass(std::string_view passName) {
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

bool PassOptions::passEnabled(std::string_view passName) const {
  return std::find(disabledPasses.begin(), disabledPasses.end(), passName) == disabledPasses.end();
}

}  // namespace fuserlab::passes
