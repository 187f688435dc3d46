// Python's builtin functions and the functions of `math` that call nothing
// back into the script — len, enumerate, zip, list, tuple, dict, set,
// reversed, any, all, sum, min, max, round, divmod, pow, str, isinstance,
// math.sqrt, ceil, floor, log, exp, prod, ... — on the plain values of a
// script (python_values.h). Those that call back (sorted and min/max with
// key=, map, filter) are the evaluator's. Internal to the frontend.
#pragma once

#include <optional>
#include <string>

#include "core/frontend/call_arguments.h"

namespace fuserlab::frontend {

//! `builtins.<name>(...)` or `math.<name>(...)`; nullopt for other paths
//! (and for min/max over fusion values, which are ops).
std::optional<Value> callPlainBuiltin(const std::string& path, const EvaluatedCall& call);

}  // namespace fuserlab::frontend
