// Test functions pasted whole from nvFuser's suite: the values their
// `@pytest.mark.parametrize` marks give a parameter. (The interpreter runs
// such a function with its fixture when the script builds nothing else.)
// Internal to the frontend.
#pragma once

#include <optional>
#include <string>

#include "core/frontend/expression_evaluator.h"

namespace fuserlab::frontend {

//! The first value `@pytest.mark.parametrize("name", [values])` gives
//! `name` (one of several comma-separated names takes its tuple element),
//! or nullopt when no mark names it.
std::optional<Value> parametrizedValue(ExpressionEvaluator& evaluator, const FunctionDef& def,
                                       const std::string& name);

}  // namespace fuserlab::frontend
