// The workbench's tuning worker: `fuserlab --tune-worker ARGS`, ARGS as
// tuner/worker_command.h writes them (script, segment, GPU, definition,
// sizes, every compile option), serves tuner/worker.h's protocol on stdin/stdout,
// so a variant that faults takes down only this process, not the window.
// The tuning panel starts it (tune_job.h's workerRunnerFactory).
#pragma once

#include <string>
#include <vector>

namespace fuserlab::gui {

inline constexpr const char* kTuneWorkerFlag = "--tune-worker";

//! Runs the worker on `args` (those after --tune-worker); the exit code.
int tuneWorkerMain(const std::vector<std::string>& args);

}  // namespace fuserlab::gui
