// UseStubs: a value that many ops read far apart from each other (a bias or
// a scale that every block of a chain adds, the input every step of a norm
// reads) is drawn beside each distant use as a small stub of itself instead
// of with one long edge per use. Graphviz's dot pays for every rank an edge
// crosses: a 300-op chain whose every other op reads one shared tensor has
// 22,000 crossings and took minutes; with stubs it has a few hundred.
//
// A stub is a node of the same kind, value and label as the value it stands
// for (stubOf names it), dashed, in the consumer's cluster; the edge keeps
// its id and value and now starts at the stub. Values with fewer than
// minUses readers, and uses at most maxSpan ranks away, keep their edges, so
// small fusions draw exactly as before.
#pragma once

#include <cstdint>

#include "viz/graph.h"

namespace fuserlab::viz {

struct UseStubOptions {
  int minUses = 3;
  int64_t maxSpan = 3;
};

//! Replaces `graph`'s long edges from widely read values by stubs; returns
//! how many edges now start at a stub.
int drawDistantUsesAsStubs(Graph& graph, const UseStubOptions& options = {});

}  // namespace fuserlab::viz
