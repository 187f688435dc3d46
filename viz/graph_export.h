// Exports of a graph as a file: DOT text (no layout), or SVG and PNG drawn by
// Graphviz through the LayoutService.
#pragma once

#include <string>

#include "viz/graph.h"
#include "viz/layout_service.h"

namespace fuserlab::viz {

enum class ExportFormat { Dot, Svg, Png };

//! "dot", "svg" or "png"; anything else is a UserError naming the choices.
ExportFormat parseExportFormat(const std::string& name);
const char* toString(ExportFormat format);

//! The file's bytes.
std::string exportGraph(const Graph& graph, ExportFormat format,
                        LayoutService& service = LayoutService::shared());

//! Writes exportGraph's bytes to `path`; a UserError if it cannot.
void exportGraphToFile(const Graph& graph, ExportFormat format, const std::string& path,
                       LayoutService& service = LayoutService::shared());

}  // namespace fuserlab::viz
