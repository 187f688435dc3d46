// The script's own names in what a person reads (report/script_names.h and
// the graphs; issue 46 defect 3: a repro's T32, T36, T37 showed as T27, T31,
// T32 because the reader makes values of its own, e.g. var_mean's parts).
#include <gtest/gtest.h>

#include <string>

#include "core/report/script_names.h"
#include "tests/viz/example_reports.h"
#include "viz/segmented_graph.h"

namespace fuserlab::viz {
namespace {

report::TensorReport value(std::string name, std::string scriptName) {
  report::TensorReport v;
  v.name = std::move(name);
  v.scriptName = std::move(scriptName);
  return v;
}

TEST(ScriptNamesTest, ShowsTheScriptsNamesAndNeverTwoValuesAlike) {
  report::CompileReport report;
  report.values = {value("T0", "T0"), value("T12", ""),  value("T13", "T11"), value("T14", "T12"),
                   value("T15", "x"), value("T16", "x"), value("T17", "")};
  const report::ScriptNames names(report);
  EXPECT_EQ(names.shown("T0"), "T0");
  EXPECT_EQ(names.shown("T13"), "T11");
  EXPECT_EQ(names.shown("T14"), "T12");
  // Unnamed, and its IR name is now another value's: primed.
  EXPECT_EQ(names.shown("T12"), "T12'");
  // A name the script gave twice (a reassigned variable) is not used.
  EXPECT_EQ(names.shown("T15"), "T15");
  EXPECT_EQ(names.shown("T16"), "T16");
  EXPECT_EQ(names.shown("T17"), "T17");
  EXPECT_EQ(names.rename("T13 = add(T12, T14); T13_l_float[iS3{i0}]; T130 xT13"),
            "T11 = add(T12', T12); T11_l_float[iS3{i0}]; T130 xT13");
}

TEST(ScriptNamesTest, TheSegmentedGraphOfSeed001ShowsTheReprosNames) {
  // The script: T9, T10 = var_mean(T8); T11 = broadcast_in_dim(T9, ...);
  // T13 = add(T11, S12); T14 = rsqrt(T13).
  const report::CompileReport report = testing::compileExample("seed001_bookend_inputs.py");
  const Graph graph = buildSegmentedGraph(report);
  std::string labels;
  for (const GraphNode& node : graph.nodes)
    labels += node.label.substr(0, node.label.find('\n')) + "|";
  EXPECT_NE(labels.find("|T11 = broadcast|"), std::string::npos) << labels;
  EXPECT_NE(labels.find("|T13 = add|"), std::string::npos) << labels;
  EXPECT_NE(labels.find("|T14 = rsqrt|"), std::string::npos) << labels;
  EXPECT_NE(labels.find("|T25 = reshape|"), std::string::npos) << labels;
  // Ids keep the IR names, so views and the report still join on them.
  bool irId = false;
  for (const GraphNode& node : graph.nodes)
    irId = irId || node.value != node.label.substr(0, node.value.size());
  EXPECT_TRUE(irId);
}

}  // namespace
}  // namespace fuserlab::viz
