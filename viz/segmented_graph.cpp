#include "viz/segmented_graph.h"
#include "viz/use_stubs.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/ir/error.h"
#include "viz/graph_style.h"

namespace fuserlab::viz {
namespace {

using report::CompileReport;
using report::SegmentReport;
using report::TensorReport;

std::string segmentId(int id) { return "seg" + std::to_string(id); }

std::string segmentTitle(const SegmentReport& segment) {
  return "segment " + std::to_string(segment.id) + ": " + segment.scheduler +
         (segment.launchesKernel ? "" : " (no kernel)");
}

// Builds the graph of all segments, or of one (`only`), in report order so
// the same report gives the same graph, ids and order included.
class SegmentedBuilder {
 public:
  SegmentedBuilder(const CompileReport& report, const SegmentReport* only)
      : report_(report), only_(only) {
    for (const auto& value : report.values) values_[value.name] = &value;
  }

  Graph build(const SegmentedGraphOptions& options) {
    graph_.name = only_ ? segmentId(only_->id) : "segmented";
    for (const auto& segment : report_.segments) {
      if (!only_ || &segment == only_) addSegment(segment);
    }
    for (const auto& segment : report_.segments) {
      if (!only_ || &segment == only_) addInputEdges(segment);
    }
    addCrossEdges();
    addOutputs();
    showScriptNames(graph_, report_);
    drawDistantUsesAsStubs(graph_);
    if (options.legend && !only_) appendSchedulerLegend(graph_, report_);
    return std::move(graph_);
  }

  static void appendSchedulerLegend(Graph& graph, const CompileReport& report) {
    std::vector<std::string> schedulers;
    bool kernelFree = false;
    for (const auto& segment : report.segments) {
      if (!segment.launchesKernel) {
        kernelFree = true;
        continue;
      }
      if (std::find(schedulers.begin(), schedulers.end(), segment.scheduler) == schedulers.end()) {
        schedulers.push_back(segment.scheduler);
      }
    }
    appendLegend(graph, schedulers, kernelFree);
  }

 private:
  const TensorReport* value(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : it->second;
  }

  // Constants are printed inside the op's line, not drawn.
  bool drawn(const std::string& name) const {
    const TensorReport* v = value(name);
    return v != nullptr && !v->isConstant;
  }

  std::string valueLabel(const std::string& name) const {
    const TensorReport* v = value(name);
    return v ? valueText(*v) : name;
  }

  void addSegment(const SegmentReport& segment) {
    GraphCluster cluster;
    cluster.id = segmentId(segment.id);
    cluster.label = segmentTitle(segment);
    cluster.segment = segment.id;
    cluster.scheduler = segment.scheduler;
    cluster.launchesKernel = segment.launchesKernel;
    cluster.fillColor =
        segment.launchesKernel ? schedulerFillColor(segment.scheduler) : kKernelFreeFill;
    cluster.borderColor =
        segment.launchesKernel ? schedulerBorderColor(segment.scheduler) : kKernelFreeBorder;
    cluster.dashed = !segment.launchesKernel;
    graph_.clusters.push_back(cluster);
    auto& local = producers_[segment.id];
    for (size_t i = 0; i < segment.exprFlow.size(); ++i) {
      const auto& expr = segment.exprFlow[i];
      GraphNode node;
      const std::string written = expr.outputs.empty() ? "e" + std::to_string(i) : expr.outputs[0];
      node.id = cluster.id + "/" + written;
      node.kind = NodeKind::Op;
      node.cluster = cluster.id;
      node.segment = segment.id;
      node.expr = static_cast<int>(i);
      node.value = expr.outputs.empty() ? "" : expr.outputs[0];
      // Multi-output exprs (welford) name every output.
      std::string lhs = written;
      for (size_t o = 1; o < expr.outputs.size(); ++o) lhs += ", " + expr.outputs[o];
      node.label = lhs + " = " + expr.op;
      if (const TensorReport* v = value(node.value)) {
        node.label += "\n" + v->dtype + (v->isTensor ? " " + shapeText(v->shape) : "");
      }
      node.fillColor = "#ffffff";
      node.dashed = !segment.launchesKernel;
      for (const auto& out : expr.outputs) local.emplace(out, node.id);
      // Intra-segment edges: from the op in this segment that wrote it.
      for (const auto& in : expr.inputs) {
        auto producer = local.find(in);
        if (producer != local.end() && producer->second != node.id) {
          addEdge(producer->second, node.id, in, "", false);
        }
      }
      graph_.nodes.push_back(std::move(node));
    }
  }

  // The ops of `segment` that read `name`.
  std::vector<std::string> readers(const SegmentReport& segment, const std::string& name) const {
    std::vector<std::string> ids;
    const auto& local = producers_.at(segment.id);
    for (size_t i = 0; i < segment.exprFlow.size(); ++i) {
      const auto& expr = segment.exprFlow[i];
      if (std::find(expr.inputs.begin(), expr.inputs.end(), name) == expr.inputs.end()) {
        continue;
      }
      const std::string written = expr.outputs.empty() ? "e" + std::to_string(i) : expr.outputs[0];
      // Read from inside the segment: drawn already.
      auto producer = local.find(name);
      if (producer != local.end() && producer->second != segmentId(segment.id) + "/" + written) {
        continue;
      }
      ids.push_back(segmentId(segment.id) + "/" + written);
    }
    return ids;
  }

  std::string inputNode(const std::string& name) {
    const std::string id = only_ ? segmentId(only_->id) + "/in/" + name : "in/" + name;
    if (!nodeIds_.insert(id).second) return id;
    GraphNode node;
    node.id = id;
    node.kind = NodeKind::Input;
    node.value = name;
    const TensorReport* v = value(name);
    node.label = name;
    if (v) node.label += "\n" + v->dtype + (v->isTensor ? " " + shapeText(v->shape) : "");
    node.fillColor = "#f8fafc";
    graph_.nodes.push_back(std::move(node));
    return id;
  }

  void addInputEdges(const SegmentReport& segment) {
    std::set<std::string> boundary(segment.inputs.begin(), segment.inputs.end());
    for (const auto& expr : segment.exprFlow) {
      for (const auto& in : expr.inputs) {
        const TensorReport* v = value(in);
        if (!drawn(in)) continue;
        // Fusion inputs come from their input node; in the one-segment
        // view every boundary value gets a stub.
        const bool fromOutside = v->isFusionInput || (only_ && boundary.count(in) &&
                                                      !producers_.at(segment.id).count(in));
        if (!fromOutside) continue;
        const std::string source = inputNode(in);
        for (const auto& reader : readers(segment, in)) {
          addEdge(source, reader, in, "", false);
        }
      }
    }
  }

  void addCrossEdges() {
    if (only_) return;
    for (const auto& edge : report_.edges) {
      const SegmentReport* to = segmentById(edge.to);
      auto from = producers_.find(edge.from);
      if (to == nullptr || from == producers_.end()) continue;
      auto producer = from->second.find(edge.tensor);
      FL_ASSERT(producer != from->second.end(), "report edge ", edge.from, "->", edge.to,
                " carries ", edge.tensor, " which no expr of segment ", edge.from, " writes");
      const std::string label = valueLabel(edge.tensor);
      for (const auto& reader : readers(*to, edge.tensor)) {
        addEdge(producer->second, reader, edge.tensor, label, true);
      }
    }
  }

  void addOutputs() {
    for (const auto& v : report_.values) {
      if (!v.isFusionOutput) continue;
      std::string source;
      for (const auto& segment : report_.segments) {
        if (only_ && &segment != only_) continue;
        const auto& local = producers_.at(segment.id);
        if (std::find(segment.outputs.begin(), segment.outputs.end(), v.name) !=
                segment.outputs.end() &&
            local.count(v.name)) {
          source = local.at(v.name);
          break;
        }
      }
      if (source.empty() && !only_ && v.isFusionInput) source = inputNode(v.name);
      if (source.empty()) continue;
      GraphNode node;
      node.id = (only_ ? segmentId(only_->id) + "/out/" : "out/") + v.name;
      node.kind = NodeKind::Output;
      node.value = v.name;
      node.label = "output " + v.name;
      node.fillColor = "#f8fafc";
      graph_.nodes.push_back(node);
      addEdge(source, node.id, v.name, "", false);
    }
    if (!only_) return;
    // In the one-segment view, values the segment hands to other segments.
    const auto& local = producers_.at(only_->id);
    for (const auto& name : only_->outputs) {
      const TensorReport* v = value(name);
      if (v == nullptr || v->isFusionOutput || !local.count(name)) continue;
      GraphNode node;
      node.id = segmentId(only_->id) + "/out/" + name;
      node.kind = NodeKind::Output;
      node.value = name;
      node.label = valueLabel(name);
      node.fillColor = "#f8fafc";
      graph_.nodes.push_back(node);
      addEdge(local.at(name), node.id, name, "", false);
    }
  }

  const SegmentReport* segmentById(int id) const {
    for (const auto& segment : report_.segments) {
      if (segment.id == id) return &segment;
    }
    return nullptr;
  }

  void addEdge(const std::string& from, const std::string& to, const std::string& valueName,
               const std::string& label, bool crosses) {
    GraphEdge edge;
    edge.id = from + "->" + to;
    if (crosses) edge.id += ":" + valueName;
    if (!edgeIds_.insert(edge.id).second) return;
    edge.from = from;
    edge.to = to;
    edge.value = valueName;
    edge.label = label;
    edge.crossesSegments = crosses;
    graph_.edges.push_back(std::move(edge));
  }

  const CompileReport& report_;
  const SegmentReport* only_;
  std::map<std::string, const TensorReport*> values_;
  // Per segment: value name -> the op node that writes it.
  std::map<int, std::map<std::string, std::string>> producers_;
  std::set<std::string> nodeIds_;
  std::set<std::string> edgeIds_;
  Graph graph_;
};

}  // namespace

Graph buildSegmentedGraph(const CompileReport& report, const SegmentedGraphOptions& options) {
  return SegmentedBuilder(report, nullptr).build(options);
}

Graph buildSegmentInteriorGraph(const CompileReport& report, int segmentId) {
  for (const auto& segment : report.segments) {
    if (segment.id == segmentId) {
      return SegmentedBuilder(report, &segment).build({.legend = false});
    }
  }
  FL_USER_ERROR("the report has no segment ", segmentId, " (it has ", report.segments.size(), ")");
}

Graph buildSegmentOverviewGraph(const CompileReport& report, const SegmentedGraphOptions& options) {
  Graph graph;
  graph.name = "segments";
  std::map<std::string, const TensorReport*> values;
  for (const auto& value : report.values) values[value.name] = &value;
  std::set<std::string> ids;
  for (const auto& segment : report.segments) {
    GraphNode node;
    node.id = segmentId(segment.id);
    node.kind = NodeKind::Segment;
    node.segment = segment.id;
    node.label = segmentTitle(segment) + "\n" + std::to_string(segment.exprs.size()) + " exprs";
    node.fillColor =
        segment.launchesKernel ? schedulerFillColor(segment.scheduler) : kKernelFreeFill;
    node.dashed = !segment.launchesKernel;
    graph.nodes.push_back(std::move(node));
  }
  const auto addEdge = [&](const std::string& id, const std::string& from, const std::string& to,
                           const std::string& value, std::string label, bool crosses) {
    if (!ids.insert(id).second) return;
    graph.edges.push_back({id, from, to, std::move(label), value, crosses});
  };
  const auto addValueNode = [&](const std::string& id, NodeKind kind, const TensorReport& v,
                                std::string label) {
    if (!ids.insert(id).second) return;
    GraphNode node;
    node.id = id;
    node.kind = kind;
    node.value = v.name;
    node.label = std::move(label);
    node.fillColor = "#f8fafc";
    graph.nodes.push_back(std::move(node));
  };
  for (const auto& segment : report.segments) {
    for (const auto& name : segment.inputs) {
      auto it = values.find(name);
      if (it == values.end() || !it->second->isFusionInput || it->second->isConstant) {
        continue;
      }
      addValueNode("in/" + name, NodeKind::Input, *it->second, valueText(*it->second));
      addEdge("in/" + name + "->" + segmentId(segment.id), "in/" + name, segmentId(segment.id),
              name, "", false);
    }
  }
  for (const auto& edge : report.edges) {
    auto it = values.find(edge.tensor);
    const std::string label = it == values.end() ? edge.tensor : valueText(*it->second);
    addEdge(segmentId(edge.from) + "->" + segmentId(edge.to) + ":" + edge.tensor,
            segmentId(edge.from), segmentId(edge.to), edge.tensor, label, true);
  }
  for (const auto& v : report.values) {
    if (!v.isFusionOutput) continue;
    for (const auto& segment : report.segments) {
      if (std::find(segment.outputs.begin(), segment.outputs.end(), v.name) ==
          segment.outputs.end()) {
        continue;
      }
      addValueNode("out/" + v.name, NodeKind::Output, v, "output " + v.name);
      addEdge(segmentId(segment.id) + "->out/" + v.name, segmentId(segment.id), "out/" + v.name,
              v.name, "", false);
      break;
    }
  }
  if (options.legend) {
    // The legend lists what the clusters of buildSegmentedGraph would show.
    Graph full;
    SegmentedBuilder::appendSchedulerLegend(full, report);
    for (auto& cluster : full.clusters) graph.clusters.push_back(cluster);
    for (auto& node : full.nodes) graph.nodes.push_back(node);
  }
  showScriptNames(graph, report);
  return graph;
}

}  // namespace fuserlab::viz
