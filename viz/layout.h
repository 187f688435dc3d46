// Layout: where a Graph's items sit after Graphviz `dot` placed them, as
// plain data in points with the origin at the top left and y growing
// downwards (Graphviz's own coordinates grow upwards; graphviz_layout.cpp
// flips them). Items keep the ids of the Graph they were laid out from.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fuserlab::viz {

//! A node's size in points, as the caller will draw it.
struct NodeSize {
  double width = 0;
  double height = 0;
};
//! Node id -> size; nodes not listed get defaultNodeSize (dot_writer.h).
using NodeSizes = std::map<std::string, NodeSize>;

struct Point {
  double x = 0;
  double y = 0;
};

//! An axis-aligned box: top-left corner and size, in points.
struct Box {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;

  double right() const { return x + width; }
  double bottom() const { return y + height; }
  bool contains(const Box& other, double slack = 0) const;
  bool overlaps(const Box& other) const;
};

struct NodeLayout {
  std::string id;
  Box box;
};

struct EdgeLayout {
  std::string id;
  std::string from;
  std::string to;
  //! Cubic Bezier control points: p0, then (c1, c2, p) per piece.
  std::vector<Point> points;
  //! Where the arrowhead's tip touches the target, if it has one.
  bool hasArrow = false;
  Point arrowTip;
  //! The label's box, where the edge has a label.
  bool hasLabel = false;
  Box labelBox;
};

struct ClusterLayout {
  std::string id;
  Box box;
};

struct Layout {
  double width = 0;  //!< the bounding box, from (0, 0)
  double height = 0;
  std::vector<NodeLayout> nodes;
  std::vector<EdgeLayout> edges;
  std::vector<ClusterLayout> clusters;

  const NodeLayout* node(const std::string& id) const;
  const EdgeLayout* edge(const std::string& id) const;
  const ClusterLayout* cluster(const std::string& id) const;
};

}  // namespace fuserlab::viz
