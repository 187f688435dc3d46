// DOT text: escaping, ids, clusters and sizes.
#include <gtest/gtest.h>

#include "core/ir/error.h"
#include "viz/dot_writer.h"
#include "viz/graph_export.h"
#include "viz/layout_service.h"

namespace fuserlab::viz {
namespace {

Graph awkwardGraph() {
  Graph graph;
  graph.name = "awk\"ward";
  graph.clusters.push_back({.id = "seg0", .label = "segment \"0\" {a|b}"});
  GraphNode a;
  a.id = "seg0/T1";
  a.cluster = "seg0";
  a.label = "say \"hi\"\\n is not a newline\nline <two> & {three}|";
  graph.nodes.push_back(a);
  GraphNode b;
  b.id = "out/T\"2";
  b.kind = NodeKind::Output;
  b.label = "tab\there";
  graph.nodes.push_back(b);
  graph.edges.push_back({.id = "e\"1", .from = a.id, .to = b.id, .label = "x\\y"});
  return graph;
}

TEST(DotWriterTest, EscapesQuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(dotLabel("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(dotLabel("a\\nb"), "\"a\\\\nb\"");
  EXPECT_EQ(dotLabel("a\nb"), "\"a\\nb\"");
  EXPECT_EQ(dotLabel("a\tb"), "\"ab\"");
  EXPECT_EQ(dotLabel("<b>{x}|"), "\"<b>{x}|\"");
}

TEST(DotWriterTest, WritesClustersWithTheirNodesAndIds) {
  const std::string dot = toDot(awkwardGraph());
  const size_t cluster = dot.find("subgraph \"cluster_seg0\" {");
  ASSERT_NE(cluster, std::string::npos) << dot;
  const size_t node = dot.find("\"seg0/T1\" [id=\"seg0/T1\"");
  const size_t close = dot.find("  }\n", cluster);
  EXPECT_TRUE(cluster < node && node < close) << dot;
  EXPECT_NE(dot.find("\"seg0/T1\" -> \"out/T\\\"2\" [id=\"e\\\"1\", label=\"x\\\\y\"]"),
            std::string::npos)
      << dot;
}

TEST(DotWriterTest, AwkwardLabelsRoundTripThroughGraphviz) {
  LayoutService service;
  const Graph graph = awkwardGraph();
  const auto layout = service.layout(graph).get();
  ASSERT_NE(layout->node("seg0/T1"), nullptr);
  ASSERT_NE(layout->node("out/T\"2"), nullptr);
  ASSERT_NE(layout->edge("e\"1"), nullptr);
  ASSERT_NE(layout->cluster("seg0"), nullptr);
  const std::string svg = exportGraph(graph, ExportFormat::Svg, service);
  EXPECT_NE(svg.find("say &quot;hi&quot;\\n is not a newline"), std::string::npos) << svg;
  EXPECT_NE(svg.find("line &lt;two&gt; &amp; {three}|"), std::string::npos) << svg;
}

TEST(DotWriterTest, RefusesIdsThatCannotRoundTrip) {
  Graph graph;
  graph.nodes.push_back({.id = "a\\b", .label = "x"});
  EXPECT_THROW(toDot(graph), InternalError);
}

TEST(DotWriterTest, FixesCallerSizesInInches) {
  Graph graph;
  graph.nodes.push_back({.id = "a", .label = "x"});
  graph.nodes.push_back({.id = "b", .label = "a much longer label"});
  NodeSizes sizes{{"a", {144, 36}}};
  DotOptions options;
  options.sizes = &sizes;
  const std::string dot = toDot(graph, options);
  EXPECT_NE(dot.find("fixedsize=true, width=2.0000, height=0.5000"), std::string::npos) << dot;
  const NodeSize estimate = defaultNodeSize(graph.nodes[1]);
  EXPECT_GT(estimate.width, defaultNodeSize(graph.nodes[0]).width);
  EXPECT_EQ(toDot(graph).find("fixedsize"), std::string::npos);
}

TEST(DotWriterTest, RanksLeftToRightWhenAsked) {
  Graph graph;
  graph.nodes.push_back({.id = "a", .label = "x"});
  EXPECT_NE(toDot(graph).find("rankdir=TB"), std::string::npos);
  DotOptions options;
  options.leftToRight = true;
  const std::string dot = toDot(graph, options);
  EXPECT_NE(dot.find("rankdir=LR"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("rankdir=TB"), std::string::npos) << dot;
}

TEST(GraphExportTest, ParsesFormatsAndRefusesOthers) {
  EXPECT_EQ(parseExportFormat("dot"), ExportFormat::Dot);
  EXPECT_EQ(parseExportFormat("svg"), ExportFormat::Svg);
  EXPECT_EQ(parseExportFormat("png"), ExportFormat::Png);
  try {
    parseExportFormat("jpeg");
    FAIL() << "jpeg accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("choose dot, svg or png"), std::string::npos);
  }
}

}  // namespace
}  // namespace fuserlab::viz
