// The fuserlab-cli subcommands. Each returns the process exit code: 0 success,
// 1 a result check failed, 2 a user error (thrown as UserError and reported
// by main with the message on stderr).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/command_line.h"
#include "core/compiler/compile_options.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "core/tensor/tensor.h"

namespace fuserlab::db {
class DatabaseSearchPath;
class SegmentRecorder;
}  // namespace fuserlab::db
namespace fuserlab::scheduler {
class HeuristicProvider;
}

namespace fuserlab::cli {

int runCommand(const std::vector<std::string>& args);
int inspectCommand(const std::vector<std::string>& args);
int devicesCommand(const std::vector<std::string>& args);
int compileCommand(const std::vector<std::string>& args);
int dbCommand(const std::vector<std::string>& args);
int tuneCommand(const std::vector<std::string>& args);
//! The hidden worker mode `tune` starts (tuner/worker.h).
int tuneWorkerCommand(const std::vector<std::string>& args);
int graphCommand(const std::vector<std::string>& args);
int benchCommand(const std::vector<std::string>& args);

//! A script read from FILE, the definition chosen with --fusion (default:
//! the one the script executes) and the input specs (--inputs overrides the
//! script's inputs block).
struct LoadedScript {
  frontend::Script script;
  const ir::Fusion* fusion = nullptr;
  std::string fusionName;
  std::optional<std::vector<frontend::InputSpec>> inputs;
  std::string inputsOrigin;  //!< "--inputs" or "the inputs block"
};

//! Options every command that reads a script takes.
inline const std::set<std::string> kScriptOptions = {"inputs", "fusion"};

LoadedScript loadScript(const CommandLine& cl);

//! Where the argument of fusion input `input` was written when the last
//! loadScript took the inputs from the script's inputs block and that
//! input is named `inputName` (nullopt for --inputs or another fusion's
//! input): main points an input mismatch there. One script per process.
std::optional<SourceLocation> inputsBlockEntry(size_t input, const std::string& inputName);

//! Options every command that compiles takes: --device NAME|cuda:N (default
//! h100), --set NAME=VALUE and --disable-pass NAME (both repeatable).
inline const std::set<std::string> kCompileOptions = {"device", "set", "disable-pass"};
compiler::CompileOptions compileOptionsFrom(const CommandLine& cl);
scheduler::DeviceSpec deviceFrom(const CommandLine& cl);

//! The GPU index --device names for a command that runs on this machine's
//! GPU: "cuda" or "cuda:N" (default 0); anything else is a UserError
//! ("--device for <forWhat> names a GPU of this machine, ...").
int cudaIndexFrom(const std::optional<std::string>& device, const std::string& forWhat);

//! The option of commands that compile with params from the heuristics
//! database: --db FILE, repeatable: a search path, first file first (else
//! $FUSERLAB_DB, else $FUSERLAB_HEURISTICS_DB, each a ':'-separated path).
inline const std::set<std::string> kDatabaseOptions = {"db"};
//! --allow-same-arch (or FUSERLAB_DB_SAME_ARCH=1): entries of another device
//! of the same architecture answer when none of this device does.
inline const std::set<std::string> kDatabaseFlags = {"allow-same-arch"};
//! The search path --db, FUSERLAB_DB or FUSERLAB_HEURISTICS_DB names,
//! loaded; null if none names one.
std::unique_ptr<db::DatabaseSearchPath> heuristicsDatabaseFrom(const CommandLine& cl);

//! --record FILE of run and bench (else $FUSERLAB_DB_RECORD): append every
//! segment that runs on the built-in heuristic to FILE (db/segment_recorder.h).
inline const std::set<std::string> kRecordOptions = {"record"};
//! The recorder --record or FUSERLAB_DB_RECORD asks for, in front of `next`
//! (the database, or null); null if neither asks. `device`: "cuda:N".
std::unique_ptr<db::SegmentRecorder> segmentRecorderFrom(const CommandLine& cl,
                                                         const LoadedScript& loaded,
                                                         const scheduler::HeuristicProvider* next,
                                                         const std::string& device);

//! Prints one "  check ok|FAILED ..." line per output of `fusion`,
//! comparing `outputs` with `reference`; returns how many differ.
int printOutputChecks(const std::vector<runtime::Tensor>& outputs,
                      const std::vector<runtime::Tensor>& reference, const ir::Fusion& fusion);

}  // namespace fuserlab::cli
