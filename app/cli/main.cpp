// fuserlab-cli: FuserLab's command-line front end.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/command_run_ranks.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/usage.h"
#include "core/ir/error.h"
#include "core/ir/input_files.h"
#include "core/tensor/binding.h"

namespace {

int runCommand(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::cout << fuserlab::cli::kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  // COMMAND --help: its part of the usage and an example (bench and db
  // answer themselves, at more length).
  if (command != "bench" && command != "db") {
    for (const std::string& arg : args) {
      if (arg != "--help" && arg != "-h") continue;
      if (auto help = fuserlab::cli::commandHelp(command)) {
        std::cout << *help;
        return 0;
      }
    }
  }
  // An output path that names a file the command reads is an error, not
  // the lost input (graph x.py -o x.py).
  fuserlab::ir::protectInputFiles();
  try {
    if (command == "run") return fuserlab::cli::runCommand(args);
    if (command == "inspect") return fuserlab::cli::inspectCommand(args);
    if (command == "devices") return fuserlab::cli::devicesCommand(args);
    if (command == "compile") return fuserlab::cli::compileCommand(args);
    if (command == "db") return fuserlab::cli::dbCommand(args);
    if (command == "tune") return fuserlab::cli::tuneCommand(args);
    if (command == "tune-worker") return fuserlab::cli::tuneWorkerCommand(args);
    if (command == "rank-worker") return fuserlab::cli::rankWorkerCommand(args);
    if (command == "graph") return fuserlab::cli::graphCommand(args);
    if (command == "bench") return fuserlab::cli::benchCommand(args);
    std::cerr << "fuserlab-cli: unknown command '" << command << "'\n\n" << fuserlab::cli::kUsage;
    return 2;
  } catch (const fuserlab::runtime::InputBindingError& error) {
    // Point at the inputs block entry the mismatching argument came from.
    const auto entry = fuserlab::cli::inputsBlockEntry(error.input(), error.inputName());
    std::cerr << "fuserlab-cli " << command << ": "
              << (entry ? fuserlab::formatWithLocation(error.message(), *entry)
                        : std::string(error.what()))
              << "\n";
    return 2;
  } catch (const fuserlab::UserError& error) {
    std::cerr << "fuserlab-cli " << command << ": " << error.what() << "\n";
    return 2;
  } catch (const fuserlab::InternalError& error) {
    std::cerr << "fuserlab-cli " << command << ": " << error.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "fuserlab-cli " << command
              << ": out of memory (are the input sizes what you meant?)\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "fuserlab-cli " << command << ": internal error: " << error.what()
              << " (this is a FuserLab bug, please report it)\n";
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int code = runCommand(argc, argv);
  // Output that did not reach stdout (a full disk, /dev/full) is a failure
  // whatever the command returned.
  if (auto failure = fuserlab::cli::finishStdout()) {
    std::cerr << "fuserlab-cli" << (argc >= 2 ? " " + std::string(argv[1]) : "") << ": " << *failure
              << "\n";
    return code >= 2 ? code : 2;
  }
  return code;
}
