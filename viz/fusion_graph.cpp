#include "viz/fusion_graph.h"

#include <map>
#include <set>
#include <string>

#include "viz/graph_style.h"
#include "viz/use_stubs.h"

namespace fuserlab::viz {

Graph buildFusionGraph(const report::CompileReport& report) {
  Graph graph;
  graph.name = "fusion";
  std::map<std::string, const report::TensorReport*> values;
  for (const auto& value : report.values) values[value.name] = &value;
  std::set<std::string> ids;

  const auto valueNode = [&](const std::string& name) -> std::string {
    auto it = values.find(name);
    if (it == values.end() || it->second->isConstant) return "";
    const report::TensorReport& v = *it->second;
    const std::string id = "val/" + name;
    if (!ids.insert(id).second) return id;
    GraphNode node;
    node.id = id;
    node.value = name;
    node.kind = v.isFusionInput    ? NodeKind::Input
                : v.isFusionOutput ? NodeKind::Output
                                   : NodeKind::Value;
    node.label = name + "\n" + v.dtype + (v.isTensor ? " " + shapeText(v.shape) : "");
    node.fillColor = node.kind == NodeKind::Value ? "#ffffff" : "#f1f5f9";
    graph.nodes.push_back(std::move(node));
    return id;
  };
  const auto addEdge = [&](const std::string& from, const std::string& to,
                           const std::string& value) {
    const std::string id = from + "->" + to;
    if (from.empty() || to.empty() || !ids.insert(id).second) return;
    graph.edges.push_back({id, from, to, "", value, false});
  };

  for (const auto& segment : report.segments) {
    for (size_t i = 0; i < segment.exprFlow.size(); ++i) {
      const auto& expr = segment.exprFlow[i];
      const std::string written = expr.outputs.empty()
                                      ? "seg" + std::to_string(segment.id) + "e" + std::to_string(i)
                                      : expr.outputs[0];
      const std::string id = "op/" + written;
      // A forwarded expr is in every segment that reads it: draw it once,
      // linked to the first segment that has it.
      if (!ids.insert(id).second) continue;
      GraphNode node;
      node.id = id;
      node.kind = NodeKind::Op;
      node.label = expr.op;
      node.segment = segment.id;
      node.expr = static_cast<int>(i);
      node.value = expr.outputs.empty() ? "" : expr.outputs[0];
      node.fillColor = "#e2e8f0";
      graph.nodes.push_back(std::move(node));
      for (const auto& in : expr.inputs) addEdge(valueNode(in), id, in);
      for (const auto& out : expr.outputs) addEdge(id, valueNode(out), out);
    }
  }
  // Outputs that no expr writes (an input returned as is).
  for (const auto& v : report.values) {
    if (v.isFusionOutput) valueNode(v.name);
  }
  showScriptNames(graph, report);
  drawDistantUsesAsStubs(graph);
  return graph;
}

}  // namespace fuserlab::viz
