#include "viz/use_stubs.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "viz/layout_budget.h"

namespace fuserlab::viz {

int drawDistantUsesAsStubs(Graph& graph, const UseStubOptions& options) {
  std::unordered_map<std::string, size_t> index;
  index.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) index.emplace(graph.nodes[i].id, i);
  std::vector<int> uses(graph.nodes.size(), 0);
  for (const GraphEdge& edge : graph.edges) {
    if (auto it = index.find(edge.from); it != index.end()) ++uses[it->second];
  }
  const std::vector<int64_t> rank = longestPathRanks(graph);

  int stubbed = 0;
  const size_t originalNodes = graph.nodes.size();
  for (GraphEdge& edge : graph.edges) {
    const auto from = index.find(edge.from);
    const auto to = index.find(edge.to);
    if (from == index.end() || to == index.end()) continue;
    if (from->second >= originalNodes || uses[from->second] < options.minUses) continue;
    if (rank[to->second] - rank[from->second] <= options.maxSpan) continue;
    const GraphNode& source = graph.nodes[from->second];
    GraphNode stub;
    stub.id = source.id + "@" + edge.to;
    stub.kind = source.kind;
    stub.label = source.label.substr(0, source.label.find('\n'));
    stub.cluster = graph.nodes[to->second].cluster;
    stub.fillColor = source.fillColor;
    stub.dashed = true;
    stub.segment = graph.nodes[to->second].segment;
    stub.value = source.value;
    stub.stubOf = source.id;
    edge.from = stub.id;
    // The node vector may grow: copy what is needed before pushing.
    graph.nodes.push_back(std::move(stub));
    ++stubbed;
  }
  return stubbed;
}

}  // namespace fuserlab::viz
