// The fusion graph: a node per op and per value, built from the report's
// expr flow.
#include <gtest/gtest.h>

#include <set>

#include "tests/viz/example_reports.h"
#include "viz/fusion_graph.h"

namespace fuserlab::viz {
namespace {

using testing::compileExample;

TEST(FusionGraphTest, HasEveryOpOnceAndEveryValueItTouches) {
  for (const char* upcast : {"upcast=forward", "upcast=privatize"}) {
    const auto report = compileExample("seed000_forwarding_miss.py", {upcast});
    const Graph graph = buildFusionGraph(report);
    std::set<std::string> written;
    for (const auto& segment : report.segments) {
      for (const auto& expr : segment.exprFlow) written.insert(expr.outputs.at(0));
    }
    size_t ops = 0;
    for (const auto& node : graph.nodes) ops += node.kind == NodeKind::Op;
    // A forwarded cast is in several segments but is one op of the fusion.
    EXPECT_EQ(ops, written.size()) << upcast;
    for (const auto& name : written) {
      EXPECT_NE(graph.findNode("op/" + name), nullptr) << name;
      EXPECT_NE(graph.findNode("val/" + name), nullptr) << name;
      EXPECT_NE(graph.findEdge("op/" + name + "->val/" + name), nullptr) << name;
    }
  }
}

TEST(FusionGraphTest, LabelsValuesWithDtypeAndShapeAndMarksInputsAndOutputs) {
  const auto report = compileExample("seed000_forwarding_miss.py");
  const Graph graph = buildFusionGraph(report);
  const GraphNode* input = graph.findNode("val/T0");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->kind, NodeKind::Input);
  EXPECT_EQ(input->label, "T0\nBFloat16 [128, 65536]");
  size_t outputs = 0;
  for (const auto& node : graph.nodes) outputs += node.kind == NodeKind::Output;
  EXPECT_EQ(outputs, 2u);
  for (const auto& edge : graph.edges) {
    const GraphNode* from = graph.findNode(edge.from);
    const GraphNode* to = graph.findNode(edge.to);
    ASSERT_TRUE(from && to);
    // Bipartite: ops and values alternate.
    EXPECT_NE(from->kind == NodeKind::Op, to->kind == NodeKind::Op) << edge.id;
  }
}

}  // namespace
}  // namespace fuserlab::viz
