// Running fuserlab-cli from tests: the exit code, stdout alone (where --json -
// writes) and stdout with stderr (what a user sees).
#pragma once

#include <string>
#include <vector>

namespace fuserlab::cli {

struct CliResult {
  int exitCode = -1;
  std::string stdoutText;
  std::string output;  //!< stdout followed by stderr
};

//! Runs `fuserlab-cli ARGS` (ARGS as a shell would split them).
CliResult runCli(const std::string& args);

//! A path inside the source tree.
std::string source(const std::string& relative);

//! The file names of resources/examples/*.py, sorted.
std::vector<std::string> bundledExamples();

}  // namespace fuserlab::cli
