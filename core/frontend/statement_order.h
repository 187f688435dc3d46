// The order of a written script's statements: creation order, with each
// statement moved after the statements defining what it reads where a pass
// made a value later than its reader (a privatized upcast's copy). The
// script writer's (script_writer.cpp) statement type and its ordering.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/expr.h"
#include "core/ir/val.h"

namespace fuserlab::frontend {

//! One statement of the body, written at its creation position.
struct Statement {
  int64_t anchor = 0;              //!< Val id of the first thing it creates
  const ir::Val* input = nullptr;  //!< a fusion input or a defined constant
  const ir::Expr* expr = nullptr;  //!< a tensor Expr or a user scalar Expr
};

//! `statements` (in creation order) with each after the statements defining
//! the values it reads; a moved statement takes the anchor of the latest
//! statement it reads. Unchanged where creation order is topological.
std::vector<Statement> dependenciesFirst(std::vector<Statement> statements);

}  // namespace fuserlab::frontend
