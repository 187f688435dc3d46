// Running fuserlab-cli from tests: the exit code, stdout alone (where --json -
// writes) and stdout with stderr (what a user sees).
#pragma once

#include <cstdint>
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

//! How a run under limits ended.
struct BoundedCliResult {
  int exitCode = -1;      //!< the exit status, when the CLI exited
  int signal = 0;         //!< the signal that ended it, 0 when it exited
  bool timedOut = false;  //!< killed (SIGKILL) at the time limit
  std::string output;     //!< stdout followed by stderr, at most 1 MiB of each
};

//! Runs fuserlab-cli with `args` as its arguments (no shell), stdin from
//! /dev/null, its address space limited to `addressSpaceBytes` (0: no limit)
//! and killed after `timeoutSeconds`.
BoundedCliResult runCliBounded(const std::vector<std::string>& args, uint64_t addressSpaceBytes,
                               int timeoutSeconds);

//! A path inside the source tree.
std::string source(const std::string& relative);

//! The file names of resources/examples/*.py, sorted.
std::vector<std::string> bundledExamples();

}  // namespace fuserlab::cli
