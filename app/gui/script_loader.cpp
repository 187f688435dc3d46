#include "app/gui/script_loader.h"

#include "core/frontend/select_fusion.h"
#include "core/ir/error.h"

namespace fuserlab::gui {

LoadedFusion loadFusion(const CompileRequest& request) {
  LoadedFusion loaded;
  loaded.script = frontend::readScript(request.source,
                                       request.fileName.empty() ? "<pasted>" : request.fileName);
  const frontend::SelectedFusion selected =
      frontend::selectFusion(loaded.script, request.fusionName);
  loaded.fusion = selected.fusion;
  loaded.fusionName = selected.name;
  if (!request.settings.inputs.empty()) {
    loaded.specs = frontend::parseInputsOption(request.settings.inputs);
  } else if (selected.inputsBlock) {
    loaded.specs = *selected.inputsBlock;
  } else {
    FL_USER_ERROR(
        "no input sizes: the script has no inputs block; give them in the "
        "Inputs field");
  }
  FL_CHECK(loaded.specs.size() == loaded.fusion->inputs().size(), "the fusion has ",
           loaded.fusion->inputs().size(), " inputs but ", loaded.specs.size(),
           " input sizes are given");
  return loaded;
}

}  // namespace fuserlab::gui
