// LayoutBudget: how much work Graphviz's `dot` would do on a graph, and the
// limit past which FuserLab does not ask it. dot's time follows its virtual
// nodes (one per rank an edge crosses) far more than the graph's own size:
// a 200-op chain whose ops also read the chain's first value (455 nodes,
// 5,900 crossed ranks) took 27 s; a 10,000-op plain chain (20,001 nodes)
// 13 s; a 1,000-op such chain 90 s; a 100,000-op one never finishes.
// The estimate ranks nodes by their longest path from a source (dot's own
// ranking only shortens edges where it can) and adds every edge's span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "viz/graph.h"

namespace fuserlab::viz {

struct LayoutCost {
  int64_t nodes = 0;
  int64_t edges = 0;
  //! Nodes plus the ranks every edge spans: dot's working graph.
  int64_t units = 0;
};

//! Graphs up to this many units are laid out (a few seconds at most).
inline constexpr int64_t kMaxLayoutUnits = 25000;
//! Past this many units, dot's x-placement is bounded (nslimit): its network
//! simplex otherwise takes most of the time of mid-sized graphs; and ranks
//! come from newrank, whose one global ranking halves the time of large
//! clustered graphs (a 2,000-op chain's segmented graph: 1.24 s -> 0.52 s).
//! Smaller graphs are laid out exactly as before.
inline constexpr int64_t kBoundedPlacementUnits = 2000;

LayoutCost estimateLayoutCost(const Graph& graph);

//! Each node's rank, by position in graph.nodes: its longest path from a
//! source (nodes on a cycle, which the builders do not make, keep 0).
std::vector<int64_t> longestPathRanks(const Graph& graph);

//! "" if `graph` may be laid out; otherwise why not, naming its size and the
//! limit (for a UserError or a message in place of the drawing).
std::string layoutRefusal(const Graph& graph);

}  // namespace fuserlab::viz
