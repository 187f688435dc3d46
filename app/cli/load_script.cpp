#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "app/cli/commands.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/select_fusion.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "db/database_search_path.h"
#include "db/segment_recorder.h"

namespace fuserlab::cli {
namespace {

// The inputs block entries of the script loadScript last loaded, by fusion
// input, with the input's IR name (empty when the sizes came from --inputs).
std::vector<std::pair<std::string, SourceLocation>> gInputsBlockEntries;

}  // namespace

std::optional<SourceLocation> inputsBlockEntry(size_t input, const std::string& inputName) {
  if (input >= gInputsBlockEntries.size()) return std::nullopt;
  const auto& [name, location] = gInputsBlockEntries[input];
  if (name != inputName || location.line <= 0) return std::nullopt;
  return location;
}

LoadedScript loadScript(const CommandLine& cl) {
  LoadedScript loaded;
  const std::string& path = cl.requirePositional(0, "FILE (a FusionDefinition script)");
  loaded.script = frontend::readScriptFile(path);
  const size_t executedByScript = loaded.script.executed;
  frontend::SelectedFusion selected =
      frontend::selectFusion(loaded.script, cl.value("fusion").value_or(""));
  loaded.script.executed = selected.index;
  loaded.fusion = selected.fusion;
  loaded.fusionName = selected.name;
  if (auto spec = cl.value("inputs")) {
    loaded.inputs = frontend::parseInputsOption(*spec);
    loaded.inputsOrigin = "--inputs";
  } else if (selected.inputsBlock) {
    loaded.inputs = std::move(selected.inputsBlock);
    loaded.inputsOrigin = "the inputs block";
  } else if (loaded.script.inputs) {
    FL_USER_ERROR(path, ": the inputs block is for ",
                  loaded.script.definitions[executedByScript].functionName, "; pass --inputs for ",
                  loaded.fusionName);
  }
  if (loaded.inputs && loaded.inputs->size() != loaded.fusion->inputs().size()) {
    const std::string message =
        detail::concat(loaded.fusionName, " has ", loaded.fusion->inputs().size(), " inputs but ",
                       loaded.inputsOrigin, " gives ", loaded.inputs->size());
    // At the block's first entry past the fusion's inputs, or its last one;
    // at the block's list when it has none (`fd.execute([])`).
    if (loaded.inputsOrigin == "the inputs block") {
      const std::vector<frontend::InputSpec>& entries = *loaded.inputs;
      const size_t entry = std::min(loaded.fusion->inputs().size(), entries.size() - 1);
      const SourceLocation& where =
          entries.empty() ? selected.inputsBlockLocation : entries[entry].location;
      if (where.line > 0) throw UserError(message, where);
    }
    throw UserError(message);
  }
  gInputsBlockEntries.clear();
  if (loaded.inputs && loaded.inputsOrigin == "the inputs block") {
    for (size_t i = 0; i < loaded.inputs->size(); ++i) {
      gInputsBlockEntries.emplace_back(loaded.fusion->inputs()[i]->name(),
                                       (*loaded.inputs)[i].location);
    }
  }
  return loaded;
}

compiler::CompileOptions compileOptionsFrom(const CommandLine& cl) {
  compiler::CompileOptions options;
  for (const std::string& assignment : cl.values("set")) {
    options.setFromAssignment(assignment);
  }
  for (const std::string& pass : cl.values("disable-pass")) {
    options.disablePass(pass);
  }
  return options;
}

scheduler::DeviceSpec deviceFrom(const CommandLine& cl) {
  auto device = runtime::resolveDevice(cl.value("device").value_or(""));
  return device ? *device : scheduler::defaultDevice();
}

int cudaIndexFrom(const std::optional<std::string>& device, const std::string& forWhat) {
  if (!device || *device == "cuda") return 0;
  const std::string prefix = "cuda:";
  if (device->rfind(prefix, 0) == 0) {
    if (auto index = ir::tryParseInteger(device->substr(prefix.size()), 0, 999)) {
      return static_cast<int>(*index);
    }
  }
  FL_USER_ERROR("--device for ", forWhat,
                " names a GPU of this machine, "
                "'cuda' or 'cuda:N', found '",
                *device, "'");
}

std::unique_ptr<db::DatabaseSearchPath> heuristicsDatabaseFrom(const CommandLine& cl) {
  // --db names one file each (a file name may hold a ':'); the variables
  // are search paths.
  std::vector<std::string> paths = cl.values("db");
  for (const char* variable : {"FUSERLAB_DB", "FUSERLAB_HEURISTICS_DB"}) {
    if (!paths.empty()) break;
    if (const char* env = std::getenv(variable); env && *env) {
      paths = db::splitSearchPath(env);
      FL_CHECK(!paths.empty(), variable, "='", env, "' names no file");
    }
  }
  if (paths.empty()) return nullptr;
  db::DatabaseSearchPath::Options options;
  const char* sameArch = std::getenv("FUSERLAB_DB_SAME_ARCH");
  options.allowSameArchitecture = cl.flag("allow-same-arch") || (sameArch != nullptr && *sameArch &&
                                                                 std::string_view(sameArch) != "0");
  return std::make_unique<db::DatabaseSearchPath>(paths, options);
}

std::unique_ptr<db::SegmentRecorder> segmentRecorderFrom(const CommandLine& cl,
                                                         const LoadedScript& loaded,
                                                         const scheduler::HeuristicProvider* next,
                                                         const std::string& device) {
  std::optional<std::string> path = cl.value("record");
  if (!path) {
    if (const char* env = std::getenv("FUSERLAB_DB_RECORD"); env && *env) path = env;
  }
  if (!path) return nullptr;
  db::RecordOrigin origin;
  origin.script = std::filesystem::absolute(loaded.script.fileName).lexically_normal().string();
  origin.fusion = loaded.fusionName;
  origin.inputs = cl.value("inputs");  // else the inputs block, strides and all
  origin.device = device;
  return std::make_unique<db::SegmentRecorder>(*path, std::move(origin), next);
}

}  // namespace fuserlab::cli
