#include "tuner/worker_command.h"

#include <limits>

#include "core/ir/error.h"
#include "core/ir/parse_number.h"

namespace fuserlab::tuner {
namespace {

int parseIndex(std::string_view option, std::string_view text) {
  return static_cast<int>(ir::parseInteger(text, option, 0, std::numeric_limits<int>::max()));
}

}  // namespace

bool parseCheck(std::string_view text) {
  FL_CHECK(text == "default" || text == "reference",
           "--check is default (variants against the default variant's outputs on the GPU) "
           "or reference (every variant against the CPU reference), not '",
           text, "'");
  return text == "default";
}

std::vector<std::string> workerArguments(const WorkerCommand& command) {
  std::vector<std::string> args = {command.script, "--segment", std::to_string(command.segment),
                                   "--device", "cuda:" + std::to_string(command.device)};
  if (!command.fusion.empty()) args.insert(args.end(), {"--fusion", command.fusion});
  if (!command.inputs.empty()) args.insert(args.end(), {"--inputs", command.inputs});
  for (const std::string& assignment : command.options.assignments()) {
    args.insert(args.end(), {"--set", assignment});
  }
  for (const std::string& pass : command.options.disabledPasses) {
    args.insert(args.end(), {"--disable-pass", pass});
  }
  if (!command.compareWithDefault) args.insert(args.end(), {"--check", "reference"});
  return args;
}

WorkerCommand parseWorkerArguments(const std::vector<std::string>& args) {
  WorkerCommand command;
  bool haveScript = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) == 0) {
      FL_CHECK(i + 1 < args.size(), a, " needs a value");
      const std::string& v = args[++i];
      if (a == "--segment") command.segment = parseIndex(a, v);
      else if (a == "--device") command.device = parseCudaDevice(v, a);
      else if (a == "--fusion") command.fusion = v;
      else if (a == "--inputs") command.inputs = v;
      else if (a == "--set") command.options.setFromAssignment(v);
      else if (a == "--disable-pass") command.options.disablePass(v);
      else if (a == "--check") command.compareWithDefault = parseCheck(v);
      else FL_USER_ERROR("unknown option ", a);
    } else {
      FL_CHECK(!haveScript, "one script file, found '", a, "' too");
      command.script = a;
      haveScript = true;
    }
  }
  FL_CHECK(haveScript, "no script file");
  return command;
}

int parseCudaDevice(std::string_view name, std::string_view option) {
  if (name == "cuda") return 0;
  FL_CHECK(name.rfind("cuda:", 0) == 0, option, " names a GPU of this machine, cuda:N; found '",
           name, "'");
  return parseIndex(option, name.substr(5));
}

}  // namespace fuserlab::tuner
