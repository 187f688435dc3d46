// fuserlab-cli graph FILE [--segmented | --overview | --segment N]
//     [--device NAME] [--set K=V]... [--disable-pass NAME]... [--inputs SPEC]
//     [--fusion NAME] --format dot|svg|png -o OUT
// Compiles the fusion (no GPU needed) and writes its fusion graph, or its
// segmented graph (a cluster per segment), the segment-level overview, or one
// segment's inside, as DOT, SVG or PNG.
#include <iostream>
#include <limits>

#include "app/cli/commands.h"
#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "viz/fusion_graph.h"
#include "viz/graph_export.h"
#include "viz/layout_budget.h"
#include "viz/segmented_graph.h"

namespace fuserlab::cli {
namespace {

// `-o OUT` is the short spelling of `--out OUT`.
std::vector<std::string> expandShortOptions(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) out.push_back(arg == "-o" ? "--out" : arg);
  return out;
}

viz::ExportFormat formatFrom(const CommandLine& cl, const std::string& path) {
  if (auto format = cl.value("format")) return viz::parseExportFormat(*format);
  const size_t dot = path.rfind('.');
  FL_CHECK(dot != std::string::npos && path != "-", "give --format dot|svg|png (the output '", path,
           "' has no extension to tell)");
  return viz::parseExportFormat(path.substr(dot + 1));
}

}  // namespace

int graphCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert({"format", "out", "segment"});
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  CommandLine cl(expandShortOptions(args), options, {"segmented", "overview"});
  const auto out = cl.value("out");
  FL_CHECK(out.has_value(), "missing -o OUT (a file, or - for standard output)");
  const viz::ExportFormat format = formatFrom(cl, *out);
  FL_CHECK(!(format == viz::ExportFormat::Png && *out == "-"),
           "PNG is binary: give -o FILE, not standard output");
  FL_CHECK(
      int(cl.flag("segmented")) + int(cl.flag("overview")) + int(cl.value("segment").has_value()) <=
          1,
      "choose one of --segmented, --overview and --segment N");

  LoadedScript loaded = loadScript(cl);
  FL_CHECK(loaded.inputs.has_value(), loaded.script.fileName,
           ": the graph needs input sizes to segment the fusion; the script has "
           "no inputs block, so pass --inputs SPEC");
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(*loaded.fusion, compileOptionsFrom(cl), deviceFrom(cl),
                             frontend::makeInputShapes(*loaded.inputs), nullptr,
                             /*withTextDumps=*/false);
  const report::CompileReport& report = compiled.report;

  viz::Graph graph;
  if (cl.flag("segmented")) {
    graph = viz::buildSegmentedGraph(report);
  } else if (cl.flag("overview")) {
    graph = viz::buildSegmentOverviewGraph(report);
  } else if (auto segment = cl.value("segment")) {
    const int id = static_cast<int>(ir::parseInteger(*segment, "--segment (a segment number)", 0,
                                                     std::numeric_limits<int>::max()));
    graph = viz::buildSegmentInteriorGraph(report, id);
  } else {
    graph = viz::buildFusionGraph(report);
  }

  if (format != viz::ExportFormat::Dot) {
    const std::string refusal = viz::layoutRefusal(graph);
    FL_CHECK(refusal.empty(), refusal, ". Draw --overview (one node per segment; ",
             report.segments.size(),
             " segments), one segment with --segment N, or write "
             "--format dot (no layout)");
  }
  if (*out == "-") {
    std::cout << viz::exportGraph(graph, format);
    return 0;
  }
  viz::exportGraphToFile(graph, format, *out);
  std::cerr << "wrote " << *out << " (" << viz::toString(format) << ", " << graph.nodes.size()
            << " nodes, " << graph.edges.size() << " edges; " << report.segments.size()
            << " segments, " << report.kernelCount() << " kernels)\n";
  return 0;
}

}  // namespace fuserlab::cli
