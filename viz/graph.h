// Graph: the plain data a view of a fusion is drawn from — nodes, edges and
// clusters with stable string ids (e.g. "seg3", "seg3/T5", "in/T0"), each
// carrying the report entries it stands for (segment, expr, value) so a UI
// can go from a drawn item to the report and back. Builders (fusion_graph.h,
// segmented_graph.h) make them from a CompileReport; dot_writer.h prints
// them; the layout reads them back from Graphviz by id.
#pragma once

#include <string>
#include <vector>

namespace fuserlab::viz {

enum class NodeKind {
  Op,       //!< one expr (in the segmented graph, one copy per segment)
  Value,    //!< a tensor or scalar of the fusion graph
  Input,    //!< a fusion input
  Output,   //!< a fusion output
  Segment,  //!< a whole segment, in the segment-level graph
  Legend,   //!< a legend entry
};

struct GraphNode {
  std::string id = {};
  std::string label = {};  //!< lines separated by '\n'
  NodeKind kind = NodeKind::Op;
  std::string cluster = {};  //!< the id of the cluster it sits in; "" for none
  std::string fillColor = "#ffffff";
  bool dashed = false;     //!< drawn with a dashed border (kernel-free)
  int segment = -1;        //!< the report's segment id, where it has one
  int expr = -1;           //!< the expr's position in that segment's exprs
  std::string value = {};  //!< the value it stands for or writes ("T5")
  //! For a stub drawn beside a distant use (use_stubs.h): the id of the
  //! node it stands for; "" otherwise.
  std::string stubOf = {};
};

struct GraphEdge {
  std::string id = {};
  std::string from = {};
  std::string to = {};
  std::string label = {};  //!< "" for none
  std::string value = {};  //!< the value flowing along it
  bool crossesSegments = false;
};

struct GraphCluster {
  std::string id = {};  //!< "seg3", "legend"
  std::string label = {};
  std::string fillColor = "#ffffff";
  std::string borderColor = "#000000";
  bool dashed = false;
  int segment = -1;
  std::string scheduler = {};
  bool launchesKernel = true;
};

struct Graph {
  std::string name = {};
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<GraphCluster> clusters;

  const GraphNode* findNode(const std::string& id) const;
  const GraphEdge* findEdge(const std::string& id) const;
  const GraphCluster* findCluster(const std::string& id) const;
};

}  // namespace fuserlab::viz
