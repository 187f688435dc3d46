#include "viz/graph_export.h"

#include "core/ir/error.h"
#include "core/ir/output_file.h"
#include "viz/dot_writer.h"

namespace fuserlab::viz {

ExportFormat parseExportFormat(const std::string& name) {
  if (name == "dot") return ExportFormat::Dot;
  if (name == "svg") return ExportFormat::Svg;
  if (name == "png") return ExportFormat::Png;
  FL_USER_ERROR("unknown graph format '", name, "'; choose dot, svg or png");
}

const char* toString(ExportFormat format) {
  switch (format) {
    case ExportFormat::Dot: return "dot";
    case ExportFormat::Svg: return "svg";
    case ExportFormat::Png: return "png";
  }
  return "?";
}

std::string exportGraph(const Graph& graph, ExportFormat format, LayoutService& service) {
  if (format == ExportFormat::Dot) return toDot(graph);
  return service.render(graph, toString(format)).get();
}

void exportGraphToFile(const Graph& graph, ExportFormat format, const std::string& path,
                       LayoutService& service) {
  const std::string bytes = exportGraph(graph, format, service);
  ir::writeUserFile(path, bytes);
}

}  // namespace fuserlab::viz
