// selectFusion: which definition of a script a front end compiles, and the
// inputs block that belongs to it. The CLI (--fusion), the workbench's
// compile job and its script loader (run, tune, tuning worker) all pick
// through it, so a name means the same definition everywhere and an unknown
// name is an error, never a silent fall back to another definition.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/script.h"

namespace fuserlab::frontend {

struct SelectedFusion {
  size_t index = 0;                    //!< into Script::definitions
  std::string name;                    //!< its function name
  const ir::Fusion* fusion = nullptr;  //!< points into the script
  //! Its inputs block (the one after its `with FusionDefinition()` block, or
  //! the script's block when it is the definition the script executes).
  std::optional<std::vector<InputSpec>> inputsBlock;
  SourceLocation inputsBlockLocation;  //!< where its list is
};

//! The definition named `name` (the last `def` of that name), or with an
//! empty name the one the script executes. An unknown name is a UserError
//! that lists the script's definitions.
SelectedFusion selectFusion(const Script& script, std::string_view name);

}  // namespace fuserlab::frontend
