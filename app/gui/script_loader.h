// ScriptLoader: reads a CompileRequest's script and picks the fusion and its
// input sizes the way the compile job does (frontend::selectFusion: the named
// definition, else the executed one, an unknown name an error; the Inputs
// setting, else the inputs block). Shared by the run and tuning jobs. Plain
// C++; a UserError says what is missing.
#pragma once

#include <vector>

#include "app/gui/compile_job.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"

namespace fuserlab::gui {

struct LoadedFusion {
  frontend::Script script;
  const ir::Fusion* fusion = nullptr;  //!< points into `script`
  std::string fusionName;
  std::vector<frontend::InputSpec> specs;
};

//! Reads `request`'s script; a UserError when it has no usable input sizes.
LoadedFusion loadFusion(const CompileRequest& request);

}  // namespace fuserlab::gui
