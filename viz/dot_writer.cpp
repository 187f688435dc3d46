#include "viz/dot_writer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/ir/error.h"
#include "viz/layout_budget.h"

namespace fuserlab::viz {
namespace {

// Ids are names, not labels: DOT keeps their backslashes literally, so a
// backslash would not round-trip. The builders make ids from IR names,
// which have none.
std::string dotId(const std::string& id) {
  std::string out = "\"";
  for (char c : id) {
    FL_ASSERT(c != '\\' && static_cast<unsigned char>(c) >= 0x20, "graph id '", id,
              "' has a backslash or control character");
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string inches(double points) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", points / 72.0);
  return buffer;
}

const char* shapeOf(NodeKind kind) {
  switch (kind) {
    case NodeKind::Value:
    case NodeKind::Input:
    case NodeKind::Output: return "ellipse";
    case NodeKind::Op:
    case NodeKind::Segment:
    case NodeKind::Legend: return "box";
  }
  return "box";
}

void writeNode(std::ostringstream& out, const GraphNode& node, const DotOptions& options,
               const char* indent) {
  out << indent << dotId(node.id) << " [id=" << dotId(node.id) << ", label=" << dotLabel(node.label)
      << ", shape=" << shapeOf(node.kind) << ", fillcolor=" << dotLabel(node.fillColor);
  std::string style =
      node.kind == NodeKind::Op || node.kind == NodeKind::Segment || node.kind == NodeKind::Legend
          ? "rounded,filled"
          : "filled";
  if (node.dashed) style += ",dashed";
  out << ", style=" << dotLabel(style);
  if (node.dashed) out << ", color=\"#888888\", fontcolor=\"#555555\"";
  const NodeSize* size = nullptr;
  NodeSize estimate;
  if (options.sizes) {
    auto it = options.sizes->find(node.id);
    if (it != options.sizes->end()) size = &it->second;
  }
  if (size == nullptr && (options.sizes || options.fixedSizes)) {
    estimate = defaultNodeSize(node);
    size = &estimate;
  }
  if (size) {
    out << ", fixedsize=true, width=" << inches(size->width) << ", height=" << inches(size->height);
  } else if (node.kind == NodeKind::Output) {
    // A second border would grow a fixed-size node past the caller's size;
    // in exports, where Graphviz sizes nodes, it marks outputs.
    out << ", peripheries=2";
  }
  out << "];\n";
}

}  // namespace

NodeSize defaultNodeSize(const GraphNode& node) {
  size_t longest = 0, lines = 1, current = 0;
  for (char c : node.label) {
    if (c == '\n') {
      ++lines;
      current = 0;
    } else {
      longest = std::max(longest, ++current);
    }
  }
  // 10 pt Helvetica averages under 6 pt per character; ellipses need more
  // room than boxes for the same text.
  const bool round = std::string(shapeOf(node.kind)) == "ellipse";
  double width = 6.0 * static_cast<double>(longest) + (round ? 30 : 16);
  double height = 13.0 * static_cast<double>(lines) + (round ? 14 : 10);
  if (node.kind == NodeKind::Output) {
    width += 8;
    height += 8;
  }
  return {std::max(width, 40.0), std::max(height, 24.0)};
}

std::string dotLabel(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out + "\"";
}

std::string toDot(const Graph& graph, const DotOptions& options) {
  std::ostringstream out;
  out << "digraph " << dotId(graph.name.empty() ? "graph" : graph.name) << " {\n"
      << "  graph [rankdir=" << (options.leftToRight ? "LR" : "TB")
      << ", fontname=\"Helvetica\", fontsize=11, "
         "nodesep=0.25, ranksep=0.35, labeljust=l"
      << (estimateLayoutCost(graph).units > kBoundedPlacementUnits ? ", nslimit=2, newrank=true"
                                                                   : "")
      << "];\n"
      << "  node [fontname=\"Helvetica\", fontsize=10, margin=\"0.08,0.04\", "
         "penwidth=1];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#475569\", "
         "arrowsize=0.7];\n";
  // Nodes by cluster, in graph order; nodes of no (known) cluster last.
  std::map<std::string, std::vector<const GraphNode*>> members;
  for (const GraphCluster& cluster : graph.clusters) members[cluster.id];
  std::vector<const GraphNode*> topLevel;
  for (const GraphNode& node : graph.nodes) {
    auto it = node.cluster.empty() ? members.end() : members.find(node.cluster);
    (it == members.end() ? topLevel : it->second).push_back(&node);
  }
  for (const GraphCluster& cluster : graph.clusters) {
    out << "  subgraph " << dotId("cluster_" + cluster.id) << " {\n"
        << "    graph [id=" << dotId(cluster.id) << ", label=" << dotLabel(cluster.label)
        << ", style=" << dotLabel(cluster.dashed ? "rounded,filled,dashed" : "rounded,filled")
        << ", fillcolor=" << dotLabel(cluster.fillColor)
        << ", color=" << dotLabel(cluster.borderColor) << "];\n";
    for (const GraphNode* node : members[cluster.id]) {
      writeNode(out, *node, options, "    ");
    }
    out << "  }\n";
  }
  for (const GraphNode* node : topLevel) writeNode(out, *node, options, "  ");
  size_t labelled = 0;
  for (const GraphEdge& edge : graph.edges) labelled += !edge.label.empty();
  const char* labelAttribute = labelled > options.inlineEdgeLabelLimit ? "xlabel" : "label";
  for (const GraphEdge& edge : graph.edges) {
    out << "  " << dotId(edge.from) << " -> " << dotId(edge.to) << " [id=" << dotId(edge.id);
    if (!edge.label.empty()) {
      out << ", " << labelAttribute << "=" << dotLabel(edge.label);
    }
    if (edge.crossesSegments) out << ", penwidth=1.6, color=\"#1e293b\"";
    out << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace fuserlab::viz
