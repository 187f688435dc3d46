#include "app/gui/script_loader.h"

#include "core/ir/error.h"

namespace fuserlab::gui {

LoadedFusion loadFusion(const CompileRequest& request) {
  LoadedFusion loaded;
  loaded.script = frontend::readScript(
      request.source, request.fileName.empty() ? "<pasted>" : request.fileName);
  size_t chosen = loaded.script.executed;
  for (size_t i = 0; i < loaded.script.definitions.size(); ++i) {
    if (loaded.script.definitions[i].functionName == request.fusionName) chosen = i;
  }
  loaded.fusion = loaded.script.definitions.at(chosen).fusion.get();
  loaded.fusionName = loaded.script.definitions[chosen].functionName;
  if (!request.settings.inputs.empty()) {
    loaded.specs = frontend::parseInputsOption(request.settings.inputs);
  } else if (const auto* block = loaded.script.inputsFor(chosen)) {
    loaded.specs = *block;
  } else if (loaded.script.inputs && chosen == loaded.script.executed) {
    loaded.specs = *loaded.script.inputs;
  } else {
    FL_USER_ERROR("no input sizes: the script has no inputs block; give them in the "
                  "Inputs field");
  }
  FL_CHECK(loaded.specs.size() == loaded.fusion->inputs().size(), "the fusion has ",
           loaded.fusion->inputs().size(), " inputs but ", loaded.specs.size(),
           " input sizes are given");
  return loaded;
}

}  // namespace fuserlab::gui
