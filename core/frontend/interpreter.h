// The interpreter behind readScript: runs a parsed script's Python — the
// subset real FusionDefinition scripts are written in — without Python.
// Module statements run top to bottom; `def` and `lambda` make functions
// (closures, defaults, *args/**kwargs); if/elif/else, for and while with
// break/continue, assert, raise, augmented and subscript assignment,
// starred unpacking, comprehensions, dicts and slices behave as in Python.
// `FusionDefinition()` starts a fusion; everything called on it (fd.define_*,
// fd.ops.*, fd.add_output, from_pytorch) builds that fusion; a `with` block
// or a subclass instantiation finishes it. torch constructors make the
// tensors of the inputs, and anything that only runs or checks the fusion
// (fd.execute, torch.testing.assert_close) becomes an opaque value that the
// reader carries along without computing.
//
// Nothing the script says reaches the machine: there is no file, process
// or import system, and every script is bounded in steps
// (kMaxScriptSteps), call depth (kMaxCallDepth) and sizes.
// Internal to the frontend.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/expression_evaluator.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! How deep script functions may call each other.
inline constexpr int kMaxCallDepth = 48;

//! The names of one function call, and those of the functions around it
//! (a closure's enclosing scope).
struct Scope {
  NameTable names;
  std::shared_ptr<Scope> parent;
};

//! A `def` or `lambda` of the script, with its defaults (evaluated where
//! it was defined, as Python does) and the scope it closes over.
struct FunctionObject {
  std::string name;
  const std::vector<Parameter>* params = nullptr;
  const std::vector<StmtPtr>* body = nullptr;  //!< a def
  const Expr* expression = nullptr;            //!< a lambda
  std::vector<std::optional<Value>> defaults;  //!< one per parameter
  std::shared_ptr<Scope> closure;              //!< null at module level
  SourceLocation location;
  bool moduleLevel = false;
  const FunctionDef* def = nullptr;  //!< for decorators; null for a lambda
  //! functools.partial(f, *args, **kwargs): f with these arguments first.
  std::shared_ptr<const FunctionObject> partialOf;
  std::vector<Value> partialArgs;
  std::vector<std::pair<std::string, Value>> partialKeywords;
};

//! Runs `module` (parsed from `fileName`) and collects the fusions it
//! defines and their inputs.
Script interpretScript(const Module& module, std::string_view source, const std::string& fileName);

}  // namespace fuserlab::frontend
