// fuserlab-cli graph: DOT, SVG and PNG files of the fusion and segmented
// graphs, and clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "tests/cli/cli_runner.h"

namespace {

using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::cli::source;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The name of an XML document's first element, past the declaration,
// DOCTYPE and comments.
std::string rootElement(const std::string& xml) {
  size_t at = 0;
  while ((at = xml.find('<', at)) != std::string::npos) {
    if (xml.compare(at, 4, "<!--") == 0) {
      at = xml.find("-->", at);
    } else if (xml.compare(at, 2, "<?") == 0 || xml.compare(at, 2, "<!") == 0) {
      at = xml.find('>', at);
    } else {
      const size_t end = xml.find_first_of(" \t\r\n>/", at + 1);
      return xml.substr(at + 1, end - at - 1);
    }
    if (at == std::string::npos) break;
  }
  return "";
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("fuserlab_cli_graph_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

const std::string kSeed000 = source("resources/examples/seed000_forwarding_miss.py");

TEST(CliGraphTest, WritesDotSvgAndPng) {
  const auto dot = scratch("seg.dot");
  const auto svg = scratch("seg.svg");
  const auto png = scratch("seg.png");
  for (const auto& [format, path] :
       {std::pair{"dot", dot}, std::pair{"svg", svg}, std::pair{"png", png}}) {
    CliResult r =
        runCli("graph " + kSeed000 + " --segmented --format " + format + " -o " + path.string());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("wrote " + path.string()), std::string::npos) << r.output;
  }
  const std::string dotText = readFile(dot);
  EXPECT_EQ(dotText.rfind("digraph \"segmented\" {", 0), 0u) << dotText;
  EXPECT_NE(dotText.find("subgraph \"cluster_seg0\""), std::string::npos);
  const std::string svgText = readFile(svg);
  const size_t root = svgText.find("<svg");
  ASSERT_NE(root, std::string::npos);
  EXPECT_EQ(rootElement(svgText), "svg") << svgText.substr(0, 400);
  EXPECT_NE(svgText.find("</svg>"), std::string::npos);
  const std::string pngBytes = readFile(png);
  ASSERT_GT(pngBytes.size(), 8u);
  EXPECT_EQ(pngBytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::filesystem::remove_all(dot.parent_path());
}

TEST(CliGraphTest, FormatFollowsTheExtensionAndDotGoesToStdout) {
  CliResult r = runCli("graph " + kSeed000 + " -o -  --format dot");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.stdoutText.rfind("digraph \"fusion\" {", 0), 0u) << r.stdoutText;
  const auto svg = scratch("fusion.svg");
  r = runCli("graph " + kSeed000 + " -o " + svg.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(readFile(svg).find("<svg"), std::string::npos);
  std::filesystem::remove_all(svg.parent_path());
}

TEST(CliGraphTest, UpcastStrategiesGiveDifferentSegmentedGraphs) {
  CliResult forward =
      runCli("graph " + kSeed000 + " --segmented --set upcast=forward --format dot -o -");
  CliResult privatize =
      runCli("graph " + kSeed000 + " --segmented --set upcast=privatize --format dot -o -");
  ASSERT_EQ(forward.exitCode, 0) << forward.output;
  ASSERT_EQ(privatize.exitCode, 0) << privatize.output;
  EXPECT_NE(forward.stdoutText, privatize.stdoutText);
}

TEST(CliGraphTest, OverviewAndOneSegment) {
  CliResult r = runCli("graph " + kSeed000 + " --overview --format dot -o -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.stdoutText.find("\"seg0\" [id=\"seg0\""), std::string::npos) << r.stdoutText;
  r = runCli("graph " + kSeed000 + " --segment 0 --format dot -o -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.stdoutText.find("subgraph \"cluster_seg0\""), std::string::npos);
  r = runCli("graph " + kSeed000 + " --segment 99 --format dot -o -");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no segment 99"), std::string::npos) << r.output;
}

TEST(CliGraphTest, ClearErrors) {
  CliResult r = runCli("graph " + kSeed000 + " --format jpeg -o x.jpeg");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("unknown graph format 'jpeg'; choose dot, svg or png"), std::string::npos)
      << r.output;
  r = runCli("graph " + kSeed000 + " --format svg");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("missing -o OUT"), std::string::npos) << r.output;
  r = runCli("graph " + kSeed000 + " -o out");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("give --format"), std::string::npos) << r.output;
  r = runCli("graph " + kSeed000 + " --format png -o -");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("PNG is binary"), std::string::npos) << r.output;
  r = runCli("graph " + kSeed000 + " --segmented --overview --format dot -o -");
  EXPECT_EQ(r.exitCode, 2);
  r = runCli("graph " + kSeed000 + " --format svg -o /nonexistent-dir/x.svg");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
}

}  // namespace
