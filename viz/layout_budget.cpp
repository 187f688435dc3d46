#include "viz/layout_budget.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace fuserlab::viz {

namespace {

struct IndexedEdges {
  std::vector<std::pair<size_t, size_t>> edges;  //!< those between listed nodes
  std::vector<std::vector<size_t>> successors;
};

IndexedEdges indexEdges(const Graph& graph) {
  std::unordered_map<std::string, size_t> index;
  index.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) index.emplace(graph.nodes[i].id, i);
  IndexedEdges out;
  out.successors.resize(graph.nodes.size());
  out.edges.reserve(graph.edges.size());
  for (const GraphEdge& edge : graph.edges) {
    const auto from = index.find(edge.from);
    const auto to = index.find(edge.to);
    if (from == index.end() || to == index.end()) continue;
    out.edges.emplace_back(from->second, to->second);
    out.successors[from->second].push_back(to->second);
  }
  return out;
}

std::vector<int64_t> ranksOf(size_t n, const IndexedEdges& indexed) {
  // Longest-path ranks in topological order (Kahn); nodes on a cycle, which
  // the builders do not make, keep rank 0.
  std::vector<int64_t> indegree(n, 0);
  for (const auto& [from, to] : indexed.edges) ++indegree[to];
  std::vector<int64_t> rank(n, 0);
  std::vector<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const size_t node = ready.back();
    ready.pop_back();
    for (size_t next : indexed.successors[node]) {
      rank[next] = std::max(rank[next], rank[node] + 1);
      if (--indegree[next] == 0) ready.push_back(next);
    }
  }
  // dot's ranking shortens edges: a source (an input, a stub) sits one rank
  // above its nearest reader, not at the top.
  std::vector<bool> hasPredecessor(n, false);
  for (const auto& [from, to] : indexed.edges) hasPredecessor[to] = true;
  for (size_t i = 0; i < n; ++i) {
    if (hasPredecessor[i] || indexed.successors[i].empty()) continue;
    int64_t nearest = rank[indexed.successors[i].front()];
    for (size_t next : indexed.successors[i]) nearest = std::min(nearest, rank[next]);
    rank[i] = std::max<int64_t>(0, nearest - 1);
  }
  return rank;
}

}  // namespace

std::vector<int64_t> longestPathRanks(const Graph& graph) {
  return ranksOf(graph.nodes.size(), indexEdges(graph));
}

LayoutCost estimateLayoutCost(const Graph& graph) {
  LayoutCost cost;
  cost.nodes = static_cast<int64_t>(graph.nodes.size());
  cost.edges = static_cast<int64_t>(graph.edges.size());
  const IndexedEdges indexed = indexEdges(graph);
  const std::vector<int64_t> rank = ranksOf(graph.nodes.size(), indexed);
  cost.units = cost.nodes;
  for (const auto& [from, to] : indexed.edges) {
    cost.units += std::max<int64_t>(1, rank[to] - rank[from]);
  }
  // Edges to or from nodes the graph does not list still cost a rank.
  cost.units += cost.edges - static_cast<int64_t>(indexed.edges.size());
  return cost;
}

std::string layoutRefusal(const Graph& graph) {
  const LayoutCost cost = estimateLayoutCost(graph);
  if (cost.units <= kMaxLayoutUnits) return "";
  return "the graph is too large to lay out: " + std::to_string(cost.nodes) + " nodes and " +
         std::to_string(cost.edges) + " edges, " + std::to_string(cost.units) +
         " layout units (nodes plus the ranks each edge crosses); Graphviz's dot takes "
         "minutes past " +
         std::to_string(kMaxLayoutUnits);
}

}  // namespace fuserlab::viz
