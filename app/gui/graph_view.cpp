#include "app/gui/graph_view.h"

#include <QAction>
#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "app/gui/graph_items.h"
#include "app/gui/metrics_legend.h"
#include "core/ir/error.h"
#include "core/ir/output_file.h"
#include "viz/dot_writer.h"
#include "viz/graph.h"
#include "viz/layout.h"
#include "viz/layout_budget.h"
#include "viz/layout_service.h"
#include "viz/segmented_graph.h"

namespace fuserlab::gui {
namespace {

using namespace graph_items;

// Past this many exprs the graph opens collapsed (segment-level first).
constexpr size_t kCollapseAboveExprs = 300;

QColor color(const std::string& hex, const QColor& fallback = Qt::white) {
  const QColor c(QString::fromStdString(hex));
  return c.isValid() ? c : fallback;
}

QFont nodeFont() {
  QFont font;
  font.setPointSizeF(9);
  return font;
}

QFont smallFont() {
  QFont font;
  font.setPointSizeF(7.5);
  return font;
}

// The main view: wheel zooms around the cursor, a click picks a segment.
class ZoomingView : public QGraphicsView {
 public:
  ZoomingView(QGraphicsScene* scene, GraphView* owner) : QGraphicsView(scene), owner_(owner) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setBackgroundBrush(QColor(250, 250, 250));
  }

 protected:
  void wheelEvent(QWheelEvent* event) override {
    const double steps = event->angleDelta().y() / 120.0;
    const double factor = std::pow(1.15, steps);
    const double current = transform().m11();
    if (current * factor < 0.05 || current * factor > 8) return;
    scale(factor, factor);
    event->accept();
  }
  void mouseReleaseEvent(QMouseEvent* event) override {
    QGraphicsView::mouseReleaseEvent(event);
    if ((event->position().toPoint() - pressedAt_).manhattanLength() < 4) {
      const QPointF at = mapToScene(event->position().toPoint());
      const int id = owner_->segmentAt(at);
      if (id >= 0) emit owner_->segmentClicked(id);
      const QString value = owner_->valueAt(at);
      if (!value.isEmpty()) {
        owner_->selectValue(value);  // what Alt+Up / Alt+Down start from
        emit owner_->valueClicked(value);
      }
    }
  }
  void mousePressEvent(QMouseEvent* event) override {
    pressedAt_ = event->position().toPoint();
    QGraphicsView::mousePressEvent(event);
  }
  void contextMenuEvent(QContextMenuEvent* event) override {
    // A node's menu: its producers and consumers.
    const QString value = owner_->valueAt(mapToScene(event->pos()));
    if (value.isEmpty()) return;
    owner_->jumpTo(value);
    std::unique_ptr<QMenu> menu(owner_->valueMenu(value, this));
    menu->exec(event->globalPos());
  }
  void mouseDoubleClickEvent(QMouseEvent* event) override {
    // In the collapsed graph, double-clicking a segment expands the graph.
    const int id = owner_->segmentAt(mapToScene(event->position().toPoint()));
    if (id >= 0 && owner_->collapsed()) {
      owner_->setCollapsed(false);
      emit owner_->segmentClicked(id);
    }
  }
  void scrollContentsBy(int dx, int dy) override {
    QGraphicsView::scrollContentsBy(dx, dy);
    if (minimap_) minimap_->viewport()->update();
  }

 public:
  QGraphicsView* minimap_ = nullptr;

 private:
  GraphView* owner_;
  QPoint pressedAt_;
};

// The minimap: the whole scene small, with the main view's rectangle on it.
class MiniMap : public QGraphicsView {
 public:
  MiniMap(QGraphicsScene* scene, QGraphicsView* main, QWidget* parent)
      : QGraphicsView(scene, parent), main_(main) {
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHints(QPainter::Antialiasing);
    setFrameShape(QFrame::Box);
    setFixedSize(170, 120);
  }

 protected:
  void drawForeground(QPainter* painter, const QRectF&) override {
    const QRectF visible = main_->mapToScene(main_->viewport()->rect()).boundingRect();
    painter->setPen(QPen(QColor(200, 30, 30), 0));
    painter->setBrush(QColor(200, 30, 30, 30));
    painter->drawRect(visible);
  }
  void mousePressEvent(QMouseEvent* event) override {
    main_->centerOn(mapToScene(event->position().toPoint()));
    viewport()->update();
  }
  void resizeEvent(QResizeEvent* event) override {
    QGraphicsView::resizeEvent(event);
    fitInView(sceneRect(), Qt::KeepAspectRatio);
  }

 private:
  QGraphicsView* main_;
};

QPainterPath splinePath(const viz::EdgeLayout& edge) {
  QPainterPath path;
  if (edge.points.empty()) return path;
  path.moveTo(edge.points[0].x, edge.points[0].y);
  for (size_t i = 1; i + 2 < edge.points.size(); i += 3) {
    path.cubicTo(edge.points[i].x, edge.points[i].y, edge.points[i + 1].x, edge.points[i + 1].y,
                 edge.points[i + 2].x, edge.points[i + 2].y);
  }
  return path;
}

}  // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent),
      scene_(new QGraphicsScene(this)),
      search_(new QLineEdit(this)),
      collapse_(new QCheckBox("segments only", this)),
      leftToRight_(new QCheckBox("left to right", this)),
      edgeLabelsBox_(new QCheckBox("edge labels", this)),
      metricsBox_(new QCheckBox("metrics", this)),
      colourBy_(new QComboBox(this)),
      status_(new QLabel(this)) {
  auto* view = new ZoomingView(scene_, this);
  view_ = view;
  view_->setObjectName("graph");
  minimap_ = new MiniMap(scene_, view_, view_);
  view->minimap_ = minimap_;
  producerAction_ = new QAction("Go to &producer", this);
  producerAction_->setObjectName("goToProducer");
  producerAction_->setShortcut(QKeySequence("Alt+Up"));
  producerAction_->setToolTip("select the value the selected node's expr reads first");
  consumerAction_ = new QAction("Go to &consumer", this);
  consumerAction_->setObjectName("goToConsumer");
  consumerAction_->setShortcut(QKeySequence("Alt+Down"));
  consumerAction_->setToolTip("select the first value computed from the selected node's");
  connect(producerAction_, &QAction::triggered, this, [this] { jumpToProducer(); });
  connect(consumerAction_, &QAction::triggered, this, [this] { jumpToConsumer(); });
  legend_ = new MetricsLegend(view_->viewport());
  legend_->hide();
  edgeLabelsBox_->setObjectName("graphEdgeLabels");
  edgeLabelsBox_->setToolTip(QString("label every edge with its tensor's dtype and shape (off by "
                                     "itself past %1 edges)")
                                 .arg(kEdgeLabelsMaxEdges));
  edgeLabelsBox_->setChecked(QSettings().value("graph/edgeLabels", true).toBool());
  metricsBox_->setObjectName("graphMetrics");
  metricsBox_->setToolTip(
      "colour and label each segment by what was measured of it (a GPU run that timed its "
      "kernels, a tuning sweep, File > Load metrics..., the heuristics database)");
  metricsBox_->setEnabled(false);
  colourBy_->setObjectName("graphColourBy");
  colourBy_->setToolTip("the metric that colours the segments");
  for (Metric metric : kAllMetrics) {
    colourBy_->addItem(QString::fromStdString(metricName(metric)), static_cast<int>(metric));
  }
  colourBy_->setEnabled(false);
  search_->setObjectName("graphSearch");
  search_->setPlaceholderText("search: tensor, op or scheduler");
  search_->setClearButtonEnabled(true);
  collapse_->setObjectName("graphCollapse");
  collapse_->setToolTip("collapse every segment to one node (double-click one to expand)");
  leftToRight_->setObjectName("graphLeftToRight");
  leftToRight_->setToolTip("rank the graph from left to right instead of top to bottom");
  leftToRight_->setChecked(QSettings().value("graph/leftToRight", false).toBool());
  auto* fitButton = new QPushButton("Fit", this);
  auto* zoomIn = new QPushButton("+", this);
  auto* zoomOut = new QPushButton("-", this);
  for (auto* button : {zoomIn, zoomOut}) {
    button->setFixedWidth(28);
    button->setObjectName("graphZoom");
  }

  // Two rows, so the graph fits a narrow window (issue 46: the one row of
  // switches made the window at least 1258 px wide): search, colour and
  // zoom; then the switches and the status line, which elides.
  colourBy_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  colourBy_->setMinimumContentsLength(10);
  status_->setMinimumWidth(1);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(search_, 1);
  bar->addWidget(colourBy_);
  bar->addWidget(zoomOut);
  bar->addWidget(zoomIn);
  bar->addWidget(fitButton);
  switches_ = new QWidget(this);
  auto* switches = new QHBoxLayout(switches_);
  switches->setContentsMargins(0, 0, 0, 0);
  switches->addWidget(collapse_);
  switches->addWidget(leftToRight_);
  switches->addWidget(edgeLabelsBox_);
  switches->addWidget(metricsBox_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  auto* second = new QHBoxLayout;
  second->setContentsMargins(0, 0, 0, 0);
  second->addWidget(switches_);
  second->addWidget(status_, 1);
  layout->addLayout(second);
  layout->addWidget(view_, 1);

  connect(fitButton, &QPushButton::clicked, this, &GraphView::fit);
  connect(zoomIn, &QPushButton::clicked, this, [this] { view_->scale(1.25, 1.25); });
  connect(zoomOut, &QPushButton::clicked, this, [this] { view_->scale(0.8, 0.8); });
  // Enter: search, then the next match; Shift+Enter: the previous one.
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier) {
      searchPrevious();
    } else if (searched_ == search_->text() && !matches_.isEmpty()) {
      searchNext();
    } else {
      search(search_->text());
    }
  });
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) search({});
  });
  connect(collapse_, &QCheckBox::toggled, this, [this] { relayout(); });
  connect(edgeLabelsBox_, &QCheckBox::toggled, this, [this](bool on) {
    QSettings().setValue("graph/edgeLabels", on);
    relayout();
  });
  connect(metricsBox_, &QCheckBox::toggled, this, [this] {
    colourBy_->setEnabled(metricsBox_->isChecked());
    relayout();
  });
  connect(colourBy_, &QComboBox::currentIndexChanged, this, [this] {
    if (metricsShown()) relayout();
  });
  connect(leftToRight_, &QCheckBox::toggled, this, [this](bool on) {
    QSettings().setValue("graph/leftToRight", on);
    relayout();
  });
  view_->viewport()->installEventFilter(this);
}

GraphView::~GraphView() = default;

bool GraphView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Resize) {
    const QSize size = view_->viewport()->size();
    minimap_->move(size.width() - minimap_->width() - 6, size.height() - minimap_->height() - 6);
    updateLegend();
  }
  return QWidget::eventFilter(watched, event);
}

void GraphView::setSnapshot(SnapshotPtr snapshot) {
  // The first compile of a file decides "segments only" by its size; the
  // user's choice holds while the same file is edited (it stayed on across
  // files: issue 46).
  const bool first =
      !snapshot_ || !snapshot_->report || (snapshot && snapshot_->fileName != snapshot->fileName);
  snapshot_ = std::move(snapshot);
  flow_ = snapshot_ && snapshot_->report ? ValueFlow(*snapshot_->report) : ValueFlow();
  if (first && snapshot_ && snapshot_->report) {
    size_t exprs = 0;
    for (const auto& segment : snapshot_->report->segments) exprs += segment.exprs.size();
    const QSignalBlocker block(collapse_);
    collapse_->setChecked(exprs > kCollapseAboveExprs);
  }
  relayout();
}

void GraphView::setCollapsed(bool collapsed) {
  if (collapse_->isChecked() != collapsed) collapse_->setChecked(collapsed);  // relayouts
}

bool GraphView::collapsed() const { return collapse_->isChecked(); }

void GraphView::setLeftToRight(bool leftToRight) { leftToRight_->setChecked(leftToRight); }

bool GraphView::leftToRight() const { return leftToRight_->isChecked(); }

void GraphView::showMessage(const QString& text) {
  // The last search's matches go with the items they point at.
  matches_.clear();
  current_ = -1;
  searched_.clear();
  scene_->clear();
  clusters_ = nodes_ = edges_ = 0;
  auto* item = scene_->addText(text);
  item->setDefaultTextColor(QColor(120, 120, 120));
  scene_->setSceneRect(item->boundingRect());
}

void GraphView::relayout() {
  const quint64 generation = ++generation_;
  if (!snapshot_ || !snapshot_->report) {
    pending_ = false;
    graph_.reset();
    showMessage(snapshot_ && snapshot_->error ? "no graph: the script did not compile"
                                              : "no graph yet");
    emit laidOut();
    return;
  }
  auto graph =
      std::make_shared<viz::Graph>(collapsed() ? viz::buildSegmentOverviewGraph(*snapshot_->report)
                                               : viz::buildSegmentedGraph(*snapshot_->report));
  annotateForLayout(*graph);
  // Graphviz would take minutes (and hold the layout worker): say so instead.
  if (const std::string refusal = viz::layoutRefusal(*graph); !refusal.empty()) {
    pending_ = false;
    graph_.reset();
    status_->setText({});
    showMessage(
        QString::fromStdString(refusal) +
        (collapsed() ? QString() : QString("; tick 'segments only' for one node per segment")));
    emit laidOut();
    return;
  }
  // Node sizes as this view will draw the labels.
  viz::NodeSizes sizes;
  const QFontMetricsF metrics(nodeFont());
  for (const viz::GraphNode& node : graph->nodes) {
    double width = 0;
    const QStringList lines = QString::fromStdString(node.label).split('\n');
    for (const QString& line : lines) width = std::max(width, metrics.horizontalAdvance(line));
    sizes[node.id] = {width + 16, lines.size() * metrics.lineSpacing() + 10};
  }
  pending_ = true;
  status_->setText("laying out...");
  // The layout runs on the layout service's own thread. Nothing waits for
  // it: this thread asks whether it is done every few milliseconds. (A
  // global-pool thread blocked in get() deadlocked the window on 2 cores:
  // the raster engine paints with that pool too; issue 46.)
  auto future = std::make_shared<std::future<std::shared_ptr<const viz::Layout>>>(
      viz::LayoutService::shared().layout(*graph, sizes, leftToRight()));
  auto* poll = new QTimer(this);
  poll->setInterval(10);
  connect(poll, &QTimer::timeout, this, [this, poll, future, generation, graph] {
    if (generation != generation_) {
      // A newer snapshot or mode: this layout's result is not wanted.
      poll->deleteLater();
      return;
    }
    if (future->wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    poll->deleteLater();
    pending_ = false;
    graph_ = graph;
    try {
      draw(*graph, *future->get());
      // A recompile keeps the search's highlights (issue 46 item 7).
      if (!search_->text().isEmpty()) findMatches(search_->text(), false);
    } catch (const std::exception& error) {
      showMessage("no layout: " + QString::fromUtf8(error.what()));
    }
    emit laidOut();
  });
  poll->start();
}

void GraphView::draw(const viz::Graph& graph, const viz::Layout& layout) {
  // The last search's matches go with the items they point at.
  matches_.clear();
  current_ = -1;
  searched_.clear();
  scene_->clear();
  clusters_ = nodes_ = edges_ = edgeLabels_ = 0;
  // The overlay colours segments by one metric; the others are in the label.
  const bool overlay = metricsShown();
  const MetricScale scale(colourMetric(), metrics_);
  const auto segmentFill = [&](int segment, const QColor& fill) {
    if (!overlay || segment < 0) return fill;
    const auto it = metrics_.find(segment);
    return scale.colour(it == metrics_.end() ? std::nullopt : it->second.value(colourMetric()));
  };
  const auto metricLine = [&](int segment) {
    const auto it = metrics_.find(segment);
    return overlay && it != metrics_.end() ? QString::fromStdString(it->second.label()) : QString();
  };
  for (const viz::ClusterLayout& box : layout.clusters) {
    const viz::GraphCluster* cluster = graph.findCluster(box.id);
    if (cluster == nullptr) continue;
    QPen pen(color(cluster->borderColor, Qt::black), 1.2);
    if (cluster->dashed) pen.setStyle(Qt::DashLine);
    auto* rect = scene_->addRect(box.box.x, box.box.y, box.box.width, box.box.height, pen,
                                 segmentFill(cluster->segment, color(cluster->fillColor)));
    rect->setData(kMetricKey, metricLine(cluster->segment));
    rect->setZValue(0);
    rect->setData(kSegmentKey, cluster->segment);
    rect->setData(kSearchKey, QString::fromStdString(cluster->label + " " + cluster->scheduler));
    rect->setData(kKindKey, "cluster");
    rect->setToolTip(QString::fromStdString(cluster->label));
    auto* label = new QGraphicsSimpleTextItem(QString::fromStdString(cluster->label), rect);
    label->setFont(nodeFont());
    label->setPos(box.box.x + 4, box.box.y + 2);
    clusters_ += cluster->segment >= 0 ? 1 : 0;
  }
  for (const viz::EdgeLayout& edge : layout.edges) {
    const viz::GraphEdge* info = graph.findEdge(edge.id);
    QPen pen(info && info->crossesSegments ? QColor(60, 60, 160) : QColor(90, 90, 90), 1.0);
    auto* path = scene_->addPath(splinePath(edge), pen);
    path->setZValue(1);
    if (edge.hasArrow && !edge.points.empty()) {
      const viz::Point& from = edge.points.back();
      const QLineF line(QPointF(from.x, from.y), QPointF(edge.arrowTip.x, edge.arrowTip.y));
      const double angle = std::atan2(-line.dy(), line.dx());
      const QPointF tip = line.p2();
      const double size = std::max(4.0, line.length());
      QPolygonF head;
      head << tip << tip - QPointF(std::cos(angle - 0.4) * size, -std::sin(angle - 0.4) * size)
           << tip - QPointF(std::cos(angle + 0.4) * size, -std::sin(angle + 0.4) * size);
      scene_->addPolygon(head, pen, pen.color())->setZValue(1);
    }
    if (edge.hasLabel && info && !info->label.empty()) {
      auto* text = scene_->addSimpleText(QString::fromStdString(info->label), smallFont());
      text->setData(kKindKey, "edgeLabel");
      ++edgeLabels_;
      text->setBrush(QColor(70, 70, 70));
      text->setPos(edge.labelBox.x, edge.labelBox.y);
      text->setZValue(1);
    }
    ++edges_;
  }
  int stubs = 0;
  int segmentNodes = 0;
  for (const viz::NodeLayout& box : layout.nodes) {
    const viz::GraphNode* node = graph.findNode(box.id);
    if (node == nullptr) continue;
    const QRectF rect(box.box.x, box.box.y, box.box.width, box.box.height);
    QPainterPath shape;
    if (node->kind == viz::NodeKind::Input || node->kind == viz::NodeKind::Output) {
      shape.addEllipse(rect);
    } else {
      shape.addRoundedRect(rect, 4, 4);
    }
    QPen pen(QColor(60, 60, 60), 1.0);
    if (node->dashed) pen.setStyle(Qt::DashLine);
    const bool segmentNode = node->kind == viz::NodeKind::Segment;
    auto* item = scene_->addPath(
        shape, pen,
        segmentNode ? segmentFill(node->segment, color(node->fillColor)) : color(node->fillColor));
    if (segmentNode) item->setData(kMetricKey, metricLine(node->segment));
    item->setZValue(2);
    item->setData(kSegmentKey, node->segment);
    item->setData(kSearchKey, QString::fromStdString(node->label + " " + node->value));
    item->setData(kKindKey, "node");
    item->setData(kValueKey, QString::fromStdString(node->value));
    item->setToolTip(node->stubOf.empty()
                         ? QString::fromStdString(node->label)
                         : QString::fromStdString(node->label) +
                               " (drawn again beside this use instead of a long edge)");
    if (!node->stubOf.empty()) ++stubs;
    if (node->kind == viz::NodeKind::Segment) ++segmentNodes;
    auto* text = new QGraphicsSimpleTextItem(QString::fromStdString(node->label), item);
    text->setFont(nodeFont());
    const QRectF bounds = text->boundingRect();
    text->setPos(rect.center() - bounds.center());
    ++nodes_;
  }
  scene_->setSceneRect(QRectF(-10, -10, layout.width + 20, layout.height + 20));
  // Collapsed, each segment is a node, not a cluster.
  status_->setText(
      QString("%1 segments, %2 nodes").arg(std::max(clusters_, segmentNodes)).arg(nodes_) +
      (stubs > 0 ? QString(", %1 stubs").arg(stubs) : QString()));
  if (edgeLabels() && !edgeLabelsDrawn_) {
    status_->setText(status_->text() + QString(", edge labels off (%1 edges)").arg(edges_));
  }
  status_->setToolTip(stubs > 0 ? QString("Simplified: %1 distant uses of widely read values "
                                          "are drawn as dashed stubs beside their readers "
                                          "instead of long edges")
                                      .arg(stubs)
                                : QString());
  updateSelection();
  if (!selectedValue_.isEmpty()) selectValue(selectedValue_);
  updateLegend();
  fit();
}

QString GraphView::statusText() const { return status_->text() + "\n" + status_->toolTip(); }

void GraphView::fit() {
  view_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  // Never blow a small graph up past its natural size.
  if (view_->transform().m11() > 1.5) view_->setTransform(QTransform::fromScale(1.5, 1.5));
  minimap_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  minimap_->viewport()->update();
}

void GraphView::setCompact(bool compact) {
  switches_->setVisible(!compact);
  colourBy_->setVisible(!compact);
  for (auto* button : findChildren<QPushButton*>("graphZoom")) button->setVisible(!compact);
}

int GraphView::segmentAt(const QPointF& point) const {
  for (QGraphicsItem* item : scene_->items(point)) {
    for (QGraphicsItem* at = item; at != nullptr; at = at->parentItem()) {
      if (at->data(kSegmentKey).isValid() && at->data(kSegmentKey).toInt() >= 0) {
        return at->data(kSegmentKey).toInt();
      }
    }
  }
  return -1;
}

QString GraphView::valueAt(const QPointF& point) const {
  for (QGraphicsItem* item : scene_->items(point)) {
    for (QGraphicsItem* at = item; at != nullptr; at = at->parentItem()) {
      if (at->data(kValueKey).isValid() && !at->data(kValueKey).toString().isEmpty()) {
        return at->data(kValueKey).toString();
      }
    }
  }
  return {};
}

int GraphView::selectValue(const QString& name) {
  selectedValue_ = name;
  int found = 0;
  QGraphicsItem* first = nullptr;
  for (QGraphicsItem* item : scene_->items(Qt::AscendingOrder)) {
    if (!item->data(kValueKey).isValid()) continue;
    auto* shape = static_cast<QAbstractGraphicsShapeItem*>(item);
    const bool match = !name.isEmpty() && item->data(kValueKey).toString() == name;
    QPen pen = shape->pen();
    if (match) {
      pen.setColor(QColor(30, 90, 210));
      pen.setWidthF(3);
      ++found;
      if (!first) first = item;
    } else if (pen.color() == QColor(30, 90, 210)) {
      pen.setColor(QColor(60, 60, 60));
      pen.setWidthF(1);
    }
    shape->setPen(pen);
  }
  if (first) view_->ensureVisible(first, 40, 40);
  return found;
}

void GraphView::setSegmentMarks(const QHash<int, QColor>& marks) {
  marks_ = marks;
  updateSelection();
}

void GraphView::selectSegment(int id) {
  selected_ = id;
  updateSelection();
}

void GraphView::updateSelection() {
  QGraphicsItem* target = nullptr;
  for (QGraphicsItem* item : scene_->items()) {
    auto* shape = dynamic_cast<QAbstractGraphicsShapeItem*>(item);
    if (shape == nullptr || !item->data(kKindKey).isValid()) continue;
    const bool isCluster = item->data(kKindKey).toString() == "cluster";
    const bool isSegmentNode = collapsed() && !isCluster;
    if (!isCluster && !isSegmentNode) continue;
    QPen pen = shape->pen();
    const int segment = item->data(kSegmentKey).toInt();
    const bool selected = segment == selected_ && selected_ >= 0;
    const auto mark = marks_.constFind(segment);
    pen.setWidthF(selected ? 3.5 : mark != marks_.constEnd() ? 3.0 : (isCluster ? 1.2 : 1.0));
    if (selected) {
      pen.setColor(QColor(210, 30, 30));
      target = item;
    } else if (mark != marks_.constEnd()) {
      pen.setColor(*mark);
    } else if (pen.color() == QColor(210, 30, 30) || item->data(kMarkedKey).toBool()) {
      pen.setColor(isCluster ? QColor(Qt::black) : QColor(60, 60, 60));
    }
    item->setData(kMarkedKey, mark != marks_.constEnd());
    shape->setPen(pen);
  }
  if (target) view_->ensureVisible(target, 20, 20);
}

int GraphView::search(const QString& text) { return findMatches(text, true); }

int GraphView::findMatches(const QString& text, bool centre) {
  int matches = 0;
  QGraphicsItem* first = nullptr;
  matches_.clear();
  searched_ = text;
  current_ = -1;
  for (QGraphicsItem* item : scene_->items(Qt::AscendingOrder)) {
    if (!item->data(kKindKey).isValid() || item->data(kKindKey).toString() != "node") continue;
    auto* shape = static_cast<QAbstractGraphicsShapeItem*>(item);
    const bool match =
        !text.isEmpty() && item->data(kSearchKey).toString().contains(text, Qt::CaseInsensitive);
    QPen pen = shape->pen();
    pen.setColor(match ? QColor(230, 140, 0) : QColor(60, 60, 60));
    pen.setWidthF(match ? 3 : 1);
    shape->setPen(pen);
    if (match && !first) first = item;
    if (match) matches_.append(item);
    matches += match ? 1 : 0;
  }
  // A scheduler name matches the segments it schedules.
  for (QGraphicsItem* item : scene_->items(Qt::AscendingOrder)) {
    if (text.isEmpty() || item->data(kKindKey).toString() != "cluster") continue;
    if (item->data(kSearchKey).toString().contains(text, Qt::CaseInsensitive)) {
      if (!first) first = item;
      matches_.append(item);
      ++matches;
    }
  }
  // Reading order: top to bottom, then left to right.
  std::stable_sort(matches_.begin(), matches_.end(), [](QGraphicsItem* a, QGraphicsItem* b) {
    const QPointF pa = a->sceneBoundingRect().center();
    const QPointF pb = b->sceneBoundingRect().center();
    return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
  });
  if (centre) {
    if (!matches_.isEmpty()) {
      showMatch(0);
    } else if (first) {
      view_->centerOn(first);
    }
    if (!text.isEmpty() && matches_.isEmpty()) status_->setText("0 matches");
  }
  updateSelection();
  return matches;
}

int GraphView::showMatch(int index) {
  if (matches_.isEmpty()) return 0;
  const int count = static_cast<int>(matches_.size());
  current_ = ((index % count) + count) % count;
  view_->centerOn(matches_[current_]);
  status_->setText(QString("%1 of %2 matches").arg(current_ + 1).arg(count));
  return current_ + 1;
}

int GraphView::searchNext() {
  if (searched_ != search_->text() && !search_->text().isEmpty()) search(search_->text());
  return matches_.isEmpty() ? 0 : showMatch(current_ + 1);
}

int GraphView::searchPrevious() {
  if (searched_ != search_->text() && !search_->text().isEmpty()) search(search_->text());
  return matches_.isEmpty() ? 0 : showMatch(current_ - 1);
}

QPointF GraphView::currentMatchPosition() const {
  if (current_ < 0 || current_ >= matches_.size()) return {};
  return matches_[current_]->sceneBoundingRect().center();
}

bool GraphView::exportTo(const QString& path, QString* error) {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!graph_) return fail("no graph to export");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QRectF area = scene_->sceneRect();
  // Drawn into memory, then written through the checked writer: a full disk
  // or a pipe without a reader is an error, never "wrote".
  QByteArray bytes;
  if (suffix == "dot") {
    bytes = QByteArray::fromStdString(viz::toDot(*graph_));
  } else if (suffix == "svg") {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(area.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
    svg.setTitle("FuserLab segmented graph");
    QPainter painter(&svg);
    scene_->render(&painter, QRectF(QPointF(0, 0), area.size()), area);
    painter.end();
  } else if (suffix == "png") {
    QImage image((area.size() * 2).toSize(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene_->render(&painter, QRectF(QPointF(0, 0), area.size() * 2), area);
    painter.end();
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return fail("cannot encode the graph as PNG");
  } else {
    return fail("unknown graph format '" + suffix + "': use .svg, .png or .dot");
  }
  try {
    ir::writeUserFile(QFile::encodeName(path).toStdString(),
                      std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
  } catch (const UserError& failure) {
    return fail(QString::fromUtf8(failure.what()));
  }
  return true;
}

}  // namespace fuserlab::gui
