#include "viz/graph_style.h"

#include "core/report/script_names.h"

#include <utility>

namespace fuserlab::viz {
namespace {

struct SchedulerColors {
  const char* scheduler;
  const char* fill;
  const char* border;
};

// Distinct hues for the kernel schedulers; the kernel-free ones are grey.
constexpr SchedulerColors kColors[] = {
    {"pointwise", "#dbeafe", "#1d4ed8"},
    {"reduction", "#dcfce7", "#15803d"},
    {"inner_persistent", "#fef3c7", "#b45309"},
    {"outer_persistent", "#ffedd5", "#c2410c"},
    {"transpose", "#f3e8ff", "#7e22ce"},
    {"matmul", "#fce7f3", "#be185d"},
    {"communication", "#e0f2fe", "#0369a1"},
    {"no_op", kKernelFreeFill, kKernelFreeBorder},
    {"expr_eval", kKernelFreeFill, kKernelFreeBorder},
};

const SchedulerColors* find(const std::string& scheduler) {
  for (const auto& colors : kColors) {
    if (scheduler == colors.scheduler) return &colors;
  }
  return nullptr;
}

}  // namespace

std::string schedulerFillColor(const std::string& scheduler) {
  const auto* colors = find(scheduler);
  return colors ? colors->fill : "#f5f5f5";
}

std::string schedulerBorderColor(const std::string& scheduler) {
  const auto* colors = find(scheduler);
  return colors ? colors->border : "#555555";
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return text + "]";
}

std::string valueText(const report::TensorReport& value) {
  std::string text = value.name + " " + value.dtype;
  if (value.isTensor) text += " " + shapeText(value.shape);
  return text;
}

void appendLegend(Graph& graph, const std::vector<std::string>& schedulers, bool withKernelFree) {
  GraphCluster legend;
  legend.id = "legend";
  legend.label = "schedulers";
  legend.borderColor = "#aaaaaa";
  graph.clusters.push_back(legend);
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& scheduler : schedulers) {
    GraphNode node;
    node.id = "legend/" + scheduler;
    node.label = scheduler;
    node.kind = NodeKind::Legend;
    node.cluster = "legend";
    node.fillColor = schedulerFillColor(scheduler);
    graph.nodes.push_back(std::move(node));
  }
  if (withKernelFree) {
    GraphNode node;
    node.id = "legend/kernel_free";
    node.label = "no kernel (host step)";
    node.kind = NodeKind::Legend;
    node.cluster = "legend";
    node.fillColor = kKernelFreeFill;
    node.dashed = true;
    graph.nodes.push_back(std::move(node));
  }
}

void showScriptNames(Graph& graph, const report::CompileReport& report) {
  const report::ScriptNames names(report);
  if (names.empty()) return;
  for (GraphNode& node : graph.nodes) node.label = names.rename(node.label);
  for (GraphEdge& edge : graph.edges) edge.label = names.rename(edge.label);
  for (GraphCluster& cluster : graph.clusters) cluster.label = names.rename(cluster.label);
}

}  // namespace fuserlab::viz
