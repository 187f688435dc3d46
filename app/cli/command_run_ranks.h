// `run --ranks N`: a multi-device fusion on N ranks (command_run_ranks.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "core/tensor/argument.h"

namespace fuserlab::cli {

struct RanksRun {
  std::vector<runtime::Tensor> outputs;  //!< gathered: whole tensors
  int exitCode = 0;
};

//! Runs `loaded` on --ranks N ranks of `backend` ("cpu": threads; "cuda":
//! one process per GPU with NCCL) on `inputs` (made from `seed`), gathers
//! the outputs and, with --check, compares them with the unsharded CPU
//! reference.
RanksRun runRanks(const CommandLine& cl, const LoadedScript& loaded,
                  const runtime::Arguments& inputs, const std::string& backend, uint64_t seed);

//! The hidden `rank-worker` command: one rank of a cuda run.
int rankWorkerCommand(const std::vector<std::string>& args);

}  // namespace fuserlab::cli
