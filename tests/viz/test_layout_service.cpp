// LayoutService: one worker for Graphviz, futures, the cache, exports.
#include <gtest/gtest.h>

#include <thread>

#include "core/ir/error.h"
#include "tests/viz/example_reports.h"
#include "viz/graph_export.h"
#include "viz/layout_service.h"
#include "viz/segmented_graph.h"

namespace fuserlab::viz {
namespace {

using testing::compileExample;

Graph chain(int length, const std::string& prefix) {
  Graph graph;
  for (int i = 0; i < length; ++i) {
    graph.nodes.push_back({.id = prefix + std::to_string(i), .label = "op " + std::to_string(i)});
    if (i) {
      graph.edges.push_back({.id = prefix + std::to_string(i - 1) + "->" + std::to_string(i),
                             .from = prefix + std::to_string(i - 1),
                             .to = prefix + std::to_string(i)});
    }
  }
  return graph;
}

TEST(LayoutServiceTest, CachesASegmentsInsideOnceLaidOut) {
  const auto report = compileExample("seed001_nanogpt_layer_norm.py");
  LayoutService service;
  const auto overview = service.layout(buildSegmentOverviewGraph(report)).get();
  ASSERT_NE(overview, nullptr);
  EXPECT_EQ(service.layoutsComputed(), 1u);
  const int id = report.segments.front().id;
  const auto first = service.layout(buildSegmentInteriorGraph(report, id)).get();
  const auto again = service.layout(buildSegmentInteriorGraph(report, id)).get();
  EXPECT_EQ(first.get(), again.get());
  EXPECT_EQ(service.layoutsComputed(), 2u);
  EXPECT_EQ(service.cachedLayouts(), 2u);
  // Other sizes are another layout.
  NodeSizes sizes;
  for (const auto& node : first->nodes) sizes[node.id] = {400, 60};
  const auto resized = service.layout(buildSegmentInteriorGraph(report, id), sizes).get();
  EXPECT_NE(resized.get(), first.get());
  EXPECT_EQ(service.layoutsComputed(), 3u);
}

TEST(LayoutServiceTest, EvictsTheOldestLayoutPastItsCapacity) {
  LayoutService service(2);
  service.layout(chain(2, "a")).get();
  service.layout(chain(2, "b")).get();
  service.layout(chain(2, "c")).get();
  EXPECT_EQ(service.cachedLayouts(), 2u);
  service.layout(chain(2, "a")).get();  // evicted: computed again
  EXPECT_EQ(service.layoutsComputed(), 4u);
}

TEST(LayoutServiceTest, ServesManyThreadsAtOnce) {
  LayoutService service;
  std::vector<std::thread> threads;
  std::vector<size_t> nodes(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        auto layout = service.layout(chain(3 + t + round, "t" + std::to_string(t) + "_")).get();
        nodes[t] = layout->nodes.size();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(nodes[t], static_cast<size_t>(3 + t + 4));
}

TEST(LayoutServiceTest, ErrorsArriveThroughTheFuture) {
  LayoutService service;
  auto future = service.render(chain(2, "x"), "no-such-format");
  EXPECT_THROW(future.get(), UserError);
  // The worker goes on.
  EXPECT_EQ(service.layout(chain(2, "y")).get()->nodes.size(), 2u);
}

TEST(GraphExportTest, RendersSvgAndPng) {
  const Graph graph = buildSegmentedGraph(compileExample("softmax.py"));
  const std::string svg = exportGraph(graph, ExportFormat::Svg);
  ASSERT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("id=\"seg0\""), std::string::npos);
  const std::string png = exportGraph(graph, ExportFormat::Png);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const std::string dot = exportGraph(graph, ExportFormat::Dot);
  EXPECT_EQ(dot.rfind("digraph \"segmented\" {", 0), 0u);
}

}  // namespace
}  // namespace fuserlab::viz
