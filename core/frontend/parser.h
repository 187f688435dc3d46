// The parser reads a FusionDefinition script, the subset of Python that
// nvFuser repro scripts are written in, into the syntax tree of script_ast.h
// without running any Python. It accepts imports, `def`, `with`, `if`,
// assignments to names or tuples of names, expression statements, `pass` and
// `return`; expressions are names, literals, attributes, calls, lists, tuples,
// subscripts and unary, binary and comparison operations.
//
// Anything else is a UserError at the offending token saying what was
// expected and what was found, or naming the construct the dialect leaves
// out ("'for' loops are not part of the FusionDefinition dialect"). No input
// makes it crash, hang or recurse without bound: nesting deeper than
// kMaxNestingDepth is an error too.
#pragma once

#include <string>
#include <string_view>

#include "core/frontend/script_ast.h"

namespace fuserlab::frontend {

//! Parses a whole script; `fileName` goes into every SourceLocation.
//! Throws UserError on input outside the dialect.
Module parseScript(std::string_view source, const std::string& fileName);

}  // namespace fuserlab::frontend
