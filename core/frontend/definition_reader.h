// Reads the body of one fusion definition - a `def f(fd: FusionDefinition)`
// or the statements of an inline `with FusionDefinition() as fd:` block -
// into a new Fusion, statement by statement, the way nvFuser records a
// FusionDefinition: fd.define_* declare inputs and constants, fd.ops.* build
// ops, fd.add_output marks outputs, and the script's names (T3, S5) are kept
// on the values they name. Internal to the frontend.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/frontend/expression_evaluator.h"

namespace fuserlab::frontend {

//! Builds the Fusion `body` defines. `fdName` is what the body calls the
//! FusionDefinition; `locals` holds the definition's other parameters (their
//! default values); `globals` are the module's names.
std::unique_ptr<ir::Fusion> readDefinition(const std::vector<StmtPtr>& body,
                                           const std::string& fdName,
                                           const NameTable& globals,
                                           NameTable locals);

//! A FusionDefinition subclass: its `definition(self)` body, then its
//! `multidevice_schedule(self)` body (if any), read into one Fusion, with
//! `selfName` as the FusionDefinition and `attributes` the `self.x` values
//! its `__init__` set. `self.x = ...` in either body adds attributes.
std::unique_ptr<ir::Fusion> readClassDefinition(
    const std::vector<const std::vector<StmtPtr>*>& bodies,
    const std::string& selfName, const NameTable& globals,
    NameTable attributes);

}  // namespace fuserlab::frontend
