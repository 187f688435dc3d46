#include "app/cli/commands.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"

namespace fuserlab::cli {

LoadedScript loadScript(const CommandLine& cl) {
  LoadedScript loaded;
  const std::string& path = cl.requirePositional(0, "FILE (a FusionDefinition script)");
  loaded.script = frontend::readScriptFile(path);
  size_t chosen = loaded.script.executed;
  if (auto name = cl.value("fusion")) {
    std::string names;
    bool found = false;
    for (size_t i = 0; i < loaded.script.definitions.size(); ++i) {
      const auto& def = loaded.script.definitions[i];
      names += (i ? ", " : "") + def.functionName;
      if (def.functionName == *name) {
        chosen = i;
        found = true;
      }
    }
    FL_CHECK(found, path, " has no fusion definition named '", *name,
             "'; it defines: ", names);
  }
  loaded.script.executed = chosen;
  loaded.fusion = &loaded.script.fusion();
  loaded.fusionName = loaded.script.definitions[chosen].functionName;
  if (auto spec = cl.value("inputs")) {
    loaded.inputs = frontend::parseInputsOption(*spec);
    loaded.inputsOrigin = "--inputs";
  } else if (loaded.script.inputs) {
    loaded.inputs = loaded.script.inputs;
    loaded.inputsOrigin = "the inputs block";
  }
  if (loaded.inputs) {
    FL_CHECK(loaded.inputs->size() == loaded.fusion->inputs().size(),
             loaded.fusionName, " has ", loaded.fusion->inputs().size(),
             " inputs but ", loaded.inputsOrigin, " gives ",
             loaded.inputs->size());
  }
  return loaded;
}

}  // namespace fuserlab::cli
