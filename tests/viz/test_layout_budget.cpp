// The layout budget (layout_budget.h): dot's work estimated from nodes and
// the ranks edges cross, and graphs past kMaxLayoutUnits refused through the
// LayoutService's futures at once, never handed to Graphviz (issue 43: a
// 100,000-op chain's SVG died inside Graphviz, 40,000 ran past 300 s).
#include <gtest/gtest.h>

#include <string>

#include "core/ir/error.h"
#include "viz/dot_writer.h"
#include "viz/layout_budget.h"
#include "viz/layout_service.h"

namespace fuserlab::viz {
namespace {

// n0 -> n1 -> ... -> n{length-1}; with `fanOut`, n0 also feeds every node.
Graph chain(int length, bool fanOut = false) {
  Graph graph;
  graph.name = "chain";
  for (int i = 0; i < length; ++i) {
    graph.nodes.push_back({"n" + std::to_string(i), "op"});
  }
  for (int i = 1; i < length; ++i) {
    graph.edges.push_back(
        {"e" + std::to_string(i), "n" + std::to_string(i - 1), "n" + std::to_string(i)});
    if (fanOut && i > 1) {
      graph.edges.push_back({"f" + std::to_string(i), "n0", "n" + std::to_string(i)});
    }
  }
  return graph;
}

TEST(LayoutBudgetTest, UnitsCountTheRanksEveryEdgeCrosses) {
  const LayoutCost plain = estimateLayoutCost(chain(100));
  EXPECT_EQ(plain.nodes, 100);
  EXPECT_EQ(plain.edges, 99);
  EXPECT_EQ(plain.units, 100 + 99);
  // n0 -> n_i spans i ranks: 2 + 3 + ... + 99 more.
  const LayoutCost fanned = estimateLayoutCost(chain(100, /*fanOut=*/true));
  EXPECT_EQ(fanned.units, 100 + 99 + (99 * 100 / 2 - 1));
}

TEST(LayoutBudgetTest, SmallGraphsLayOutAsBeforeAndLargerOnesBoundThePlacement) {
  EXPECT_EQ(toDot(chain(20)).find("nslimit"), std::string::npos);
  EXPECT_NE(toDot(chain(100, /*fanOut=*/true)).find("nslimit=2, newrank=true"), std::string::npos);
  EXPECT_EQ(toDot(chain(20)).find("newrank"), std::string::npos);
  EXPECT_TRUE(layoutRefusal(chain(20)).empty());
  const auto layout = LayoutService::shared().layout(chain(20)).get();
  EXPECT_EQ(layout->nodes.size(), 20u);
}

TEST(LayoutBudgetTest, A100000OpChainIsRefusedWithoutCallingGraphviz) {
  // The fusion graph of a 100,000-op chain: an op and a value per op.
  const Graph graph = chain(200001);
  const std::string why = layoutRefusal(graph);
  EXPECT_NE(why.find("200001 nodes and 200000 edges"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(kMaxLayoutUnits)), std::string::npos) << why;
  auto svg = LayoutService::shared().render(graph, "svg");
  EXPECT_THROW(svg.get(), UserError);
  auto layout = LayoutService::shared().layout(graph);
  EXPECT_THROW(layout.get(), UserError);
}

}  // namespace
}  // namespace fuserlab::viz
