// CommandLine: the arguments of one fuserlab-cli subcommand. Options are
// `--name value` or `--name=value`; an option a subcommand does not know, a
// missing value or a missing positional argument is a UserError (exit 2).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fuserlab::cli {

class CommandLine {
 public:
  //! `valueOptions` take a value; `flagOptions` do not. Repeatable options
  //! keep every value in order.
  CommandLine(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
              const std::set<std::string>& flagOptions);

  const std::vector<std::string>& positional() const { return positional_; }
  //! The one positional argument named `what` (e.g. "FILE").
  const std::string& requirePositional(size_t index, const char* what) const;
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  bool flag(const std::string& name) const;

 private:
  std::vector<std::string> positional_;
  std::vector<std::pair<std::string, std::string>> options_;
};

}  // namespace fuserlab::cli
