// Layout sanity on the bundled examples: every item placed, no two node
// boxes overlapping, everything inside the bounding box, clusters around
// their nodes, y growing downwards, caller sizes kept.
#include <gtest/gtest.h>

#include "tests/viz/example_reports.h"
#include "viz/fusion_graph.h"
#include "viz/layout_service.h"
#include "viz/segmented_graph.h"

namespace fuserlab::viz {
namespace {

using testing::compileExample;
using testing::graphExamples;

// Graphviz rounds coordinates to 1/100 pt or so; allow for it.
constexpr double kSlack = 0.5;

void expectSane(const Graph& graph, const Layout& layout, const std::string& what) {
  SCOPED_TRACE(what);
  const Box bounds{0, 0, layout.width, layout.height};
  ASSERT_GT(layout.width, 0);
  ASSERT_GT(layout.height, 0);
  ASSERT_EQ(layout.nodes.size(), graph.nodes.size());
  for (const auto& node : graph.nodes) {
    const NodeLayout* placed = layout.node(node.id);
    ASSERT_NE(placed, nullptr) << node.id;
    EXPECT_GT(placed->box.width, 0);
    EXPECT_TRUE(bounds.contains(placed->box, kSlack)) << node.id;
    if (!node.cluster.empty()) {
      const ClusterLayout* cluster = layout.cluster(node.cluster);
      ASSERT_NE(cluster, nullptr) << node.cluster;
      EXPECT_TRUE(cluster->box.contains(placed->box, kSlack)) << node.id;
    }
  }
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    for (size_t j = i + 1; j < layout.nodes.size(); ++j) {
      EXPECT_FALSE(layout.nodes[i].box.overlaps(layout.nodes[j].box))
          << layout.nodes[i].id << " and " << layout.nodes[j].id;
    }
  }
  for (const auto& cluster : graph.clusters) {
    const ClusterLayout* placed = layout.cluster(cluster.id);
    ASSERT_NE(placed, nullptr) << cluster.id;
    EXPECT_TRUE(bounds.contains(placed->box, kSlack)) << cluster.id;
  }
  ASSERT_EQ(layout.edges.size(), graph.edges.size());
  for (const auto& edge : graph.edges) {
    const EdgeLayout* placed = layout.edge(edge.id);
    ASSERT_NE(placed, nullptr) << edge.id;
    EXPECT_EQ(placed->from, edge.from);
    EXPECT_EQ(placed->to, edge.to);
    ASSERT_GE(placed->points.size(), 4u) << edge.id;
    EXPECT_EQ((placed->points.size() - 1) % 3, 0u) << edge.id;
    // Points on the curve (a Bezier's control points may lie outside).
    for (size_t i = 0; i < placed->points.size(); i += 3) {
      const Point& p = placed->points[i];
      EXPECT_TRUE(bounds.contains({p.x, p.y, 0, 0}, kSlack)) << edge.id;
    }
    EXPECT_EQ(placed->hasLabel, !edge.label.empty()) << edge.id;
    if (placed->hasLabel) {
      EXPECT_TRUE(bounds.contains(placed->labelBox, kSlack)) << edge.id;
    }
  }
}

class LayoutTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LayoutTest, SegmentedGraphIsSane) {
  LayoutService service;
  const Graph graph = buildSegmentedGraph(compileExample(GetParam()));
  expectSane(graph, *service.layout(graph).get(), "segmented");
}

TEST_P(LayoutTest, FusionAndOverviewGraphsAreSane) {
  LayoutService service;
  const auto report = compileExample(GetParam());
  const Graph fusion = buildFusionGraph(report);
  expectSane(fusion, *service.layout(fusion).get(), "fusion");
  const Graph overview = buildSegmentOverviewGraph(report);
  expectSane(overview, *service.layout(overview).get(), "overview");
}

INSTANTIATE_TEST_SUITE_P(Examples, LayoutTest, ::testing::ValuesIn(graphExamples()),
                         [](const auto& test) {
                           std::string name = test.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// dot ranks top to bottom; in y-down coordinates a producer sits above
// (smaller y than) its consumer, and an edge starts near its source.
TEST(LayoutYDownTest, ProducersSitAboveConsumers) {
  Graph graph;
  graph.nodes.push_back({.id = "a", .label = "first"});
  graph.nodes.push_back({.id = "b", .label = "second"});
  graph.nodes.push_back({.id = "c", .label = "third"});
  graph.edges.push_back({.id = "a->b", .from = "a", .to = "b"});
  graph.edges.push_back({.id = "b->c", .from = "b", .to = "c", .label = "T1"});
  LayoutService service;
  const auto layout = service.layout(graph).get();
  const Box a = layout->node("a")->box, b = layout->node("b")->box, c = layout->node("c")->box;
  EXPECT_LT(a.bottom(), b.y);
  EXPECT_LT(b.bottom(), c.y);
  EXPECT_NEAR(a.y, 0, 1.0);  // the top of the graph is y = 0
  const EdgeLayout* edge = layout->edge("a->b");
  ASSERT_NE(edge, nullptr);
  EXPECT_NEAR(edge->points.front().y, a.bottom(), 2.0);
  ASSERT_TRUE(edge->hasArrow);
  EXPECT_NEAR(edge->arrowTip.y, b.y, 2.0);
  EXPECT_GT(edge->arrowTip.y, edge->points.front().y);
}

// Past DotOptions::inlineEdgeLabelLimit labelled edges, labels are placed
// after the layout (xlabel); they still come back, inside the bounds.
TEST(LayoutLabelsTest, ManyLabelledEdgesStillGetLabelBoxes) {
  Graph graph;
  for (int i = 0; i < 260; ++i) {
    const std::string id = "n" + std::to_string(i);
    graph.nodes.push_back({.id = id, .label = "segment " + std::to_string(i)});
    if (i) {
      graph.edges.push_back({.id = "e" + std::to_string(i),
                             .from = "n" + std::to_string(i - 1),
                             .to = id,
                             .label = "T" + std::to_string(i) + " Float [128]"});
    }
    if (i >= 5 && i % 5 == 0) {
      graph.edges.push_back({.id = "b" + std::to_string(i),
                             .from = "n" + std::to_string(i - 5),
                             .to = id,
                             .label = "branch " + std::to_string(i)});
    }
  }
  LayoutService service;
  const auto layout = service.layout(graph).get();
  expectSane(graph, *layout, "xlabels");
}

TEST(LayoutSizesTest, KeepsTheSizesTheCallerGives) {
  const auto report = compileExample("layer_norm.py");
  const Graph graph = buildSegmentedGraph(report);
  NodeSizes sizes;
  for (const auto& node : graph.nodes) sizes[node.id] = {180, 40};
  sizes[graph.nodes.front().id] = {300, 90};
  LayoutService service;
  const auto layout = service.layout(graph, sizes).get();
  for (const auto& node : layout->nodes) {
    const NodeSize want = sizes.at(node.id);
    EXPECT_NEAR(node.box.width, want.width, kSlack) << node.id;
    EXPECT_NEAR(node.box.height, want.height, kSlack) << node.id;
  }
  expectSane(graph, *layout, "sized");
}

}  // namespace
}  // namespace fuserlab::viz
