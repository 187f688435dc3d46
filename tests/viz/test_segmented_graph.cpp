// The segmented graph, its segment-level overview and a segment's inside,
// built from the bundled examples' compile reports.
#include <gtest/gtest.h>

#include "core/report/script_names.h"

#include <set>

#include "core/ir/error.h"
#include "tests/viz/example_reports.h"
#include "viz/dot_writer.h"
#include "viz/segmented_graph.h"

namespace fuserlab::viz {
namespace {

using testing::compileExample;
using testing::graphExamples;

class SegmentedGraphTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SegmentedGraphTest, ClustersAreTheSegments) {
  const auto report = compileExample(GetParam());
  const Graph graph = buildSegmentedGraph(report);
  std::vector<const GraphCluster*> segments;
  for (const auto& cluster : graph.clusters) {
    if (cluster.id != "legend") segments.push_back(&cluster);
  }
  ASSERT_EQ(segments.size(), report.segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    const auto& segment = report.segments[i];
    EXPECT_EQ(segments[i]->id, "seg" + std::to_string(segment.id));
    EXPECT_EQ(segments[i]->segment, segment.id);
    EXPECT_EQ(segments[i]->scheduler, segment.scheduler);
    EXPECT_NE(segments[i]->label.find(segment.scheduler), std::string::npos);
    EXPECT_EQ(segments[i]->dashed, !segment.launchesKernel);
    size_t ops = 0;
    for (const auto& node : graph.nodes) {
      if (node.cluster == segments[i]->id) {
        EXPECT_EQ(node.kind, NodeKind::Op);
        EXPECT_EQ(node.segment, segment.id);
        ++ops;
      }
    }
    EXPECT_EQ(ops, segment.exprs.size()) << segments[i]->id;
  }
}

TEST_P(SegmentedGraphTest, EveryReportEdgeIsDrawnAndLabelled) {
  const auto report = compileExample(GetParam());
  const Graph graph = buildSegmentedGraph(report);
  for (const auto& edge : report.edges) {
    bool found = false;
    for (const auto& drawn : graph.edges) {
      const GraphNode* from = graph.findNode(drawn.from);
      const GraphNode* to = graph.findNode(drawn.to);
      ASSERT_TRUE(from && to) << drawn.id;
      if (drawn.crossesSegments && drawn.value == edge.tensor && from->segment == edge.from &&
          to->segment == edge.to) {
        found = true;
        // Labels show the script's names (script_names.h).
        EXPECT_NE(
            drawn.label.find(report::ScriptNames(report).shown(edge.tensor) + " " + edge.dtype),
            std::string::npos)
            << drawn.label;
      }
    }
    EXPECT_TRUE(found) << GetParam() << ": edge " << edge.from << "->" << edge.to << " "
                       << edge.tensor;
  }
  // And nothing the report does not have crosses segments.
  for (const auto& drawn : graph.edges) {
    if (!drawn.crossesSegments) continue;
    const int from = graph.findNode(drawn.from)->segment;
    const int to = graph.findNode(drawn.to)->segment;
    bool inReport = false;
    for (const auto& edge : report.edges) {
      inReport |= edge.from == from && edge.to == to && edge.tensor == drawn.value;
    }
    EXPECT_TRUE(inReport) << drawn.id;
  }
}

TEST_P(SegmentedGraphTest, EveryEdgeJoinsExistingNodesAndIdsAreUnique) {
  const Graph graph = buildSegmentedGraph(compileExample(GetParam()));
  std::set<std::string> ids;
  for (const auto& node : graph.nodes) EXPECT_TRUE(ids.insert(node.id).second) << node.id;
  for (const auto& edge : graph.edges) {
    EXPECT_TRUE(ids.insert(edge.id).second) << edge.id;
    EXPECT_NE(graph.findNode(edge.from), nullptr) << edge.id;
    EXPECT_NE(graph.findNode(edge.to), nullptr) << edge.id;
  }
}

TEST_P(SegmentedGraphTest, IdsAndDotAreStableAcrossRuns) {
  const Graph first = buildSegmentedGraph(compileExample(GetParam()));
  const Graph second = buildSegmentedGraph(compileExample(GetParam()));
  ASSERT_EQ(first.nodes.size(), second.nodes.size());
  for (size_t i = 0; i < first.nodes.size(); ++i) {
    EXPECT_EQ(first.nodes[i].id, second.nodes[i].id);
  }
  ASSERT_EQ(first.edges.size(), second.edges.size());
  for (size_t i = 0; i < first.edges.size(); ++i) {
    EXPECT_EQ(first.edges[i].id, second.edges[i].id);
  }
  EXPECT_EQ(toDot(first), toDot(second));
}

TEST_P(SegmentedGraphTest, OverviewHasANodePerSegmentAndEveryReportEdge) {
  const auto report = compileExample(GetParam());
  const Graph graph = buildSegmentOverviewGraph(report);
  for (const auto& segment : report.segments) {
    const GraphNode* node = graph.findNode("seg" + std::to_string(segment.id));
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->kind, NodeKind::Segment);
    EXPECT_EQ(node->dashed, !segment.launchesKernel);
  }
  for (const auto& edge : report.edges) {
    const std::string id =
        "seg" + std::to_string(edge.from) + "->seg" + std::to_string(edge.to) + ":" + edge.tensor;
    EXPECT_NE(graph.findEdge(id), nullptr) << id;
  }
}

TEST_P(SegmentedGraphTest, InteriorKeepsTheIdsOfTheFullGraph) {
  const auto report = compileExample(GetParam());
  const Graph full = buildSegmentedGraph(report);
  for (const auto& segment : report.segments) {
    const Graph inside = buildSegmentInteriorGraph(report, segment.id);
    ASSERT_EQ(inside.clusters.size(), 1u);
    size_t ops = 0;
    for (const auto& node : inside.nodes) {
      if (node.kind != NodeKind::Op) continue;
      ++ops;
      EXPECT_NE(full.findNode(node.id), nullptr) << node.id;
    }
    EXPECT_EQ(ops, segment.exprs.size());
    for (const auto& edge : inside.edges) {
      EXPECT_NE(inside.findNode(edge.from), nullptr) << edge.id;
      EXPECT_NE(inside.findNode(edge.to), nullptr) << edge.id;
    }
  }
  EXPECT_THROW(buildSegmentInteriorGraph(report, 999), UserError);
}

INSTANTIATE_TEST_SUITE_P(Examples, SegmentedGraphTest, ::testing::ValuesIn(graphExamples()),
                         [](const auto& test) {
                           std::string name = test.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(SegmentedGraphLabelTest, OpsNameEveryOutputWithDtypeAndShape) {
  const Graph graph = buildSegmentedGraph(compileExample("seed001_nanogpt_layer_norm.py"));
  const GraphNode* welford = graph.findNode("seg0/T4");
  ASSERT_NE(welford, nullptr);
  // The script's "T4, T5 = fd.ops.var_mean(...)": welford's avg is the
  // script's T5; its var_sum (IR T5) and count are the reader's own, primed
  // where the IR name is another value's script name.
  EXPECT_EQ(welford->label, "T5, T5', T6 = welford\nFloat [16, 128]");
  const GraphNode* input = graph.findNode("in/T0");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->label, "T0\nBFloat16 [16, 128, 1600]");
}

TEST(SegmentedGraphLegendTest, ListsEachSchedulerAndKernelFreeOnce) {
  // Seed 001's bookend segments are kernel-free.
  const auto report = compileExample("seed001_bookend_inputs.py");
  ASSERT_LT(report.kernelCount(), static_cast<int>(report.segments.size()));
  const Graph graph = buildSegmentedGraph(report);
  ASSERT_NE(graph.findCluster("legend"), nullptr);
  EXPECT_NE(graph.findNode("legend/kernel_free"), nullptr);
  for (const auto& segment : report.segments) {
    if (segment.launchesKernel) {
      EXPECT_NE(graph.findNode("legend/" + segment.scheduler), nullptr);
    }
  }
  EXPECT_EQ(buildSegmentedGraph(report, {.legend = false}).findCluster("legend"), nullptr);
}

// Seed 000: forwarding the bf16->fp32 cast splits the normalization into a
// reduction and a pointwise kernel with the full-size fp32 tensor crossing
// between them; privatization keeps one persistent kernel, nothing crossing.
TEST(SegmentedGraphSeed000Test, UpcastStrategiesGiveDifferentGraphs) {
  const auto forward = compileExample("seed000_forwarding_miss.py", {"upcast=forward"});
  const auto privatize = compileExample("seed000_forwarding_miss.py", {"upcast=privatize"});
  const Graph forwardGraph = buildSegmentedGraph(forward);
  const Graph privatizeGraph = buildSegmentedGraph(privatize);
  EXPECT_NE(toDot(forwardGraph), toDot(privatizeGraph));
  const auto kernelClusters = [](const Graph& graph) {
    std::vector<std::string> schedulers;
    for (const auto& cluster : graph.clusters) {
      if (cluster.id != "legend" && cluster.launchesKernel) {
        schedulers.push_back(cluster.scheduler);
      }
    }
    return schedulers;
  };
  EXPECT_EQ(kernelClusters(forwardGraph), (std::vector<std::string>{"reduction", "pointwise"}));
  EXPECT_EQ(kernelClusters(privatizeGraph), (std::vector<std::string>{"inner_persistent"}));
  const auto crossingLabels = [](const Graph& graph) {
    std::vector<std::string> labels;
    for (const auto& edge : graph.edges) {
      if (edge.crossesSegments) labels.push_back(edge.label);
    }
    return labels;
  };
  EXPECT_EQ(crossingLabels(forwardGraph),
            (std::vector<std::string>{"T2 Float [128, 65536]", "T4 Float [128, 1]"}));
  EXPECT_TRUE(crossingLabels(privatizeGraph).empty());
}

}  // namespace
}  // namespace fuserlab::viz
