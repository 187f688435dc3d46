// DOT text for a Graph: clusters as `subgraph "cluster_<id>"`, every node,
// edge and cluster with an `id` attribute (Graphviz copies it into SVG), and
// every string quoted and escaped, so any label round-trips through dot.
#pragma once

#include <string>

#include "viz/graph.h"
#include "viz/layout.h"

namespace fuserlab::viz {

struct DotOptions {
  //! Sizes in points the nodes must have (fixedsize); nodes not listed get
  //! defaultNodeSize. Null: Graphviz sizes each node to its label.
  const NodeSizes* sizes = nullptr;
  //! With no sizes, still fix every node at defaultNodeSize.
  bool fixedSizes = false;
  //! Past this many labelled edges, labels become `xlabel`s, placed after
  //! the layout: `dot` makes a rank of virtual nodes for every inline
  //! label, which makes large graphs several times slower to lay out.
  size_t inlineEdgeLabelLimit = 200;
  //! Ranks from left to right (rankdir=LR) instead of top to bottom: long
  //! chains read across a wide screen.
  bool leftToRight = false;
};

//! An estimate of the size a node's label needs at 10 pt Helvetica.
NodeSize defaultNodeSize(const GraphNode& node);

//! `text` as a quoted DOT string for a label: quotes and backslashes
//! escaped, line breaks as \n, other control characters dropped.
std::string dotLabel(const std::string& text);

std::string toDot(const Graph& graph, const DotOptions& options = {});

}  // namespace fuserlab::viz
