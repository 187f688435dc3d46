// WorkerCommand: what a tuning worker process is started with (the script
// file, the definition and its input sizes, the segment, the GPU and every
// compile option) and the argument list that carries it. The tuner owns both
// directions, so the CLI (`fuserlab-cli tune-worker`) and the workbench
// (`fuserlab --tune-worker`) start and read their workers the same way and
// every CompileOptions setting and disabled pass reaches the worker.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/compiler/compile_options.h"

namespace fuserlab::tuner {

struct WorkerCommand {
  std::string script;  //!< the script file
  std::string fusion;  //!< the definition's name; empty: the one the script executes
  std::string inputs;  //!< input sizes (--inputs SPEC); empty: the script's inputs block
  int segment = 0;
  int device = 0;  //!< cuda:N
  compiler::CompileOptions options;
  //! WorkerSetup::compareWithDefault; off: `--check reference`.
  bool compareWithDefault = true;
};

//! The worker's arguments after the executable and its mode word:
//! FILE --segment N --device cuda:N [--fusion NAME] [--inputs SPEC]
//! --set NAME=VALUE (every setting) [--disable-pass PASS]... [--check reference]
std::vector<std::string> workerArguments(const WorkerCommand& command);

//! Reads workerArguments' list back. A UserError names a missing value, an
//! unknown option, a second script file or a device that is not cuda:N.
WorkerCommand parseWorkerArguments(const std::vector<std::string>& args);

//! `--check`'s value: "default" (true: variants against the default
//! variant's outputs on the GPU) or "reference" (false); a UserError else.
bool parseCheck(std::string_view text);

//! N of "cuda:N" ("cuda" is 0); a UserError names `option` otherwise.
int parseCudaDevice(std::string_view name, std::string_view option);

}  // namespace fuserlab::tuner
