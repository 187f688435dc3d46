#include "core/frontend/select_fusion.h"

#include "core/ir/error.h"

namespace fuserlab::frontend {

SelectedFusion selectFusion(const Script& script, std::string_view name) {
  FL_ASSERT(script.executed < script.definitions.size(), script.fileName,
            ": the executed definition ", script.executed, " is not one of its ",
            script.definitions.size());
  SelectedFusion selected;
  selected.index = script.executed;
  if (!name.empty()) {
    std::string names;
    bool found = false;
    for (size_t i = 0; i < script.definitions.size(); ++i) {
      names += (i ? ", " : "") + script.definitions[i].functionName;
      if (script.definitions[i].functionName == name) {
        selected.index = i;
        found = true;
      }
    }
    FL_CHECK(found, script.fileName, " has no fusion definition named '", name,
             "'; it defines: ", names);
  }
  const FusionDefinitionScript& definition = script.definitions[selected.index];
  selected.name = definition.functionName;
  selected.fusion = definition.fusion.get();
  if (const Script::InputsBlock* block = script.inputsBlockFor(selected.index)) {
    selected.inputsBlock = block->specs;
    selected.inputsBlockLocation = block->location;
  } else if (script.inputs && selected.index == script.executed) {
    selected.inputsBlock = *script.inputs;
    selected.inputsBlockLocation = script.inputsLocation;
  }
  return selected;
}

}  // namespace fuserlab::frontend
