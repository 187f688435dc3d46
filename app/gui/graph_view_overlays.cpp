// GraphView's overlays on the drawing: the metrics overlay (each segment's
// figures as a line under its title, its fill by one metric, the legend),
// edge labels with dtype and shape, and the jumps from a value's node to
// its producers and consumers. The drawing itself is graph_view.cpp's.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <map>

#include "app/gui/graph_items.h"
#include "app/gui/graph_view.h"
#include "app/gui/metrics_legend.h"
#include "core/report/script_names.h"
#include "viz/graph.h"
#include "viz/graph_style.h"

namespace fuserlab::gui {

using namespace graph_items;

void GraphView::annotateForLayout(viz::Graph& graph) {
  // Every edge's dtype and shape, unless the graph is too dense to read them
  // (or to lay them out quickly).
  edgeLabelsDrawn_ = edgeLabels() && static_cast<int>(graph.edges.size()) <= kEdgeLabelsMaxEdges;
  if (edgeLabelsDrawn_) {
    std::map<std::string, const report::TensorReport*> values;
    for (const auto& value : snapshot_->report->values) values[value.name] = &value;
    for (viz::GraphEdge& edge : graph.edges) {
      const auto it = values.find(edge.value);
      if (!edge.label.empty() || it == values.end()) continue;
      edge.label =
          it->second->dtype + (it->second->isTensor ? " " + viz::shapeText(it->second->shape) : "");
    }
  }
  if (metricsShown()) {
    // The overlay's line goes under each segment's title before the layout,
    // so the boxes are sized for it.
    for (viz::GraphCluster& cluster : graph.clusters) {
      const auto it = metrics_.find(cluster.segment);
      if (cluster.segment >= 0 && it != metrics_.end() && !it->second.label().empty()) {
        cluster.label += "\n" + it->second.label();
      }
    }
    for (viz::GraphNode& node : graph.nodes) {
      const auto it = metrics_.find(node.segment);
      if (node.kind == viz::NodeKind::Segment && it != metrics_.end() &&
          !it->second.label().empty()) {
        node.label += "\n" + it->second.label();
      }
    }
  }
}

void GraphView::setEdgeLabels(bool on) {
  if (edgeLabelsBox_->isChecked() != on) edgeLabelsBox_->setChecked(on);  // relayouts
}

bool GraphView::edgeLabels() const { return edgeLabelsBox_->isChecked(); }

void GraphView::setMetrics(const SegmentMetricsMap& metrics, const QString& origin,
                           bool relayoutNow) {
  const bool first = !metricsBox_->isEnabled();
  metrics_ = metrics;
  metricsOrigin_ = origin;
  metricsBox_->setEnabled(!metrics_.empty());
  if (first && !metrics_.empty()) {
    const QSignalBlocker block(metricsBox_);
    metricsBox_->setChecked(true);
  }
  colourBy_->setEnabled(metricsShown());
  // Colour by the first metric every segment shown has, kernel time first.
  if (!metrics_.empty() && MetricScale(colourMetric(), metrics_).empty()) {
    for (Metric metric : kAllMetrics) {
      if (!MetricScale(metric, metrics_).empty()) {
        const QSignalBlocker quiet(colourBy_);
        colourBy_->setCurrentIndex(colourBy_->findData(static_cast<int>(metric)));
        break;
      }
    }
  }
  if (relayoutNow) relayout();
}

void GraphView::setMetricsShown(bool shown) {
  if (metricsBox_->isChecked() != shown) metricsBox_->setChecked(shown);  // relayouts
}

bool GraphView::metricsShown() const { return metricsBox_->isChecked() && !metrics_.empty(); }

void GraphView::setColourMetric(Metric metric) {
  colourBy_->setCurrentIndex(colourBy_->findData(static_cast<int>(metric)));
}

Metric GraphView::colourMetric() const {
  return static_cast<Metric>(colourBy_->currentData().toInt());
}

QString GraphView::metricLabelOf(int segment) const {
  for (QGraphicsItem* item : scene_->items()) {
    if (item->data(kSegmentKey).toInt() == segment && item->data(kMetricKey).isValid()) {
      return item->data(kMetricKey).toString();
    }
  }
  return {};
}

QColor GraphView::segmentFillOf(int segment) const {
  for (QGraphicsItem* item : scene_->items()) {
    const QString kind = item->data(kKindKey).toString();
    if (item->data(kSegmentKey).toInt() != segment) continue;
    const bool segmentShape = kind == "cluster" || item->data(kMetricKey).isValid();
    if (!segmentShape) continue;
    if (auto* shape = dynamic_cast<QAbstractGraphicsShapeItem*>(item)) {
      return shape->brush().color();
    }
  }
  return {};
}

void GraphView::updateLegend() {
  const bool shown = metricsShown();
  legend_->setVisible(shown);
  if (!shown) return;
  legend_->setScale(MetricScale(colourMetric(), metrics_), metricsOrigin_);
  legend_->move(6, 6);
  legend_->raise();
}

QStringList GraphView::producersOf(const QString& value) const {
  QStringList names;
  for (const std::string& name : flow_.producers(value.toStdString())) {
    names << QString::fromStdString(name);
  }
  return names;
}

QStringList GraphView::consumersOf(const QString& value) const {
  QStringList names;
  for (const std::string& name : flow_.consumers(value.toStdString())) {
    names << QString::fromStdString(name);
  }
  return names;
}

bool GraphView::jumpTo(const QString& value) {
  if (value.isEmpty()) return false;
  QGraphicsItem* node = nullptr;
  for (QGraphicsItem* item : scene_->items(Qt::AscendingOrder)) {
    if (item->data(kValueKey).toString() == value) {
      node = item;
      break;
    }
  }
  if (node == nullptr) return false;
  // The other views follow first (the editor's line selects the line's
  // first value); then this value is the one selected and centred.
  const int segment = node->data(kSegmentKey).toInt();
  emit valueClicked(value);
  if (segment >= 0) emit segmentClicked(segment);
  selectValue(value);
  view_->centerOn(node);
  return true;
}

QString GraphView::jumpToProducer() {
  for (const QString& producer : producersOf(selectedValue_)) {
    if (jumpTo(producer)) return producer;
  }
  status_->setText(selectedValue_.isEmpty() ? QString("select a node first")
                                            : QString("no producer: a fusion input"));
  return {};
}

QString GraphView::jumpToConsumer() {
  for (const QString& consumer : consumersOf(selectedValue_)) {
    if (jumpTo(consumer)) return consumer;
  }
  status_->setText(selectedValue_.isEmpty() ? QString("select a node first")
                                            : QString("no consumer: nothing reads it"));
  return {};
}

QMenu* GraphView::valueMenu(const QString& value, QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName("valueMenu");
  const report::ScriptNames names = snapshot_ && snapshot_->report
                                        ? report::ScriptNames(*snapshot_->report)
                                        : report::ScriptNames();
  const auto shown = [&](const QString& name) {
    return QString::fromStdString(names.shown(name.toStdString()));
  };
  const auto addJumps = [&](const QString& verb, const QStringList& targets,
                            const QKeySequence& first) {
    if (targets.isEmpty()) {
      menu->addAction(QString("No %1").arg(verb))->setEnabled(false);
      return;
    }
    for (const QString& target : targets) {
      QAction* action = menu->addAction(QString("Go to %1 %2").arg(verb, shown(target)), this,
                                        [this, target] { jumpTo(target); });
      action->setData(target);
      if (target == targets.front()) action->setShortcut(first);
    }
  };
  addJumps("producer", producersOf(value), producerAction_->shortcut());
  menu->addSeparator();
  addJumps("consumer", consumersOf(value), consumerAction_->shortcut());
  return menu;
}

}  // namespace fuserlab::gui
