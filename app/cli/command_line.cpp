#include "app/cli/command_line.h"

#include "core/ir/error.h"

namespace fuserlab::cli {

CommandLine::CommandLine(const std::vector<std::string>& args,
                         const std::set<std::string>& valueOptions,
                         const std::set<std::string>& flagOptions) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inlineValue;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flagOptions.count(name)) {
      FL_CHECK(!inlineValue, "option --", name, " takes no value");
      options_.emplace_back(name, "");
    } else if (valueOptions.count(name)) {
      if (inlineValue) {
        options_.emplace_back(name, *inlineValue);
      } else {
        FL_CHECK(i + 1 < args.size(), "option --", name, " needs a value");
        options_.emplace_back(name, args[++i]);
      }
    } else {
      std::string known;
      for (const auto& o : valueOptions) known += " --" + o;
      for (const auto& o : flagOptions) known += " --" + o;
      FL_USER_ERROR("unknown option --", name, "; this command takes:", known);
    }
  }
}

const std::string& CommandLine::requirePositional(size_t index, const char* what) const {
  FL_CHECK(index < positional_.size(), "missing argument ", what);
  return positional_[index];
}

std::optional<std::string> CommandLine::value(const std::string& name) const {
  std::optional<std::string> last;
  for (const auto& [k, v] : options_) {
    if (k == name) last = v;
  }
  return last;
}

std::vector<std::string> CommandLine::values(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : options_) {
    if (k == name) out.push_back(v);
  }
  return out;
}

bool CommandLine::flag(const std::string& name) const {
  for (const auto& [k, v] : options_) {
    if (k == name) return true;
  }
  return false;
}

}  // namespace fuserlab::cli
