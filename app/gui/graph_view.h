// GraphView: the segmented graph of a compile snapshot, drawn as
// QGraphicsScene items from viz's Graphviz layout: a box per segment
// (coloured by scheduler, kernel-free ones dashed) holding its ops, fusion
// inputs and outputs outside, edges as the layout's splines with their
// labels. Zoom (wheel), pan (drag), fit, search by name, op or scheduler
// (stepping through the matches in reading order: F3, Shift+F3), a
// minimap, and collapse to one node per segment / expand back. Layout runs on
// viz's worker thread; a late layout for an older snapshot is dropped.
#pragma once

#include <QColor>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QWidget>
#include <memory>

#include "app/gui/compile_service.h"
#include "app/gui/segment_metrics.h"
#include "app/gui/value_flow.h"

class QAction;
class QCheckBox;
class QComboBox;
class QGraphicsItem;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QMenu;

namespace fuserlab::viz {
struct Graph;
struct Layout;
}  // namespace fuserlab::viz

namespace fuserlab::gui {

class MetricsLegend;

class GraphView : public QWidget {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  void setSnapshot(SnapshotPtr snapshot);
  //! Outlines segment `id` and scrolls to it.
  void selectSegment(int id);
  //! Outlines the nodes of value `name` (the report's IR name; stubs too)
  //! in blue and scrolls to the first; "" clears. Returns how many.
  int selectValue(const QString& name);
  const QString& selectedValue() const { return selectedValue_; }
  //! Outlines segments in colours of their own (Compare: added, removed,
  //! rescheduled); the selection's red outline goes over them.
  void setSegmentMarks(const QHash<int, QColor>& marks);
  const QHash<int, QColor>& segmentMarks() const { return marks_; }
  //! The values (IR names) the expr writing `value` reads, and those written
  //! by the exprs that read it.
  QStringList producersOf(const QString& value) const;
  QStringList consumersOf(const QString& value) const;
  //! Selects `value` as a click on its node does: outlines and centres it,
  //! and says so (valueClicked, segmentClicked) so the other views follow.
  //! False if no node stands for it.
  bool jumpTo(const QString& value);
  //! Jumps from the selected value to its first producer (Alt+Up) or first
  //! consumer (Alt+Down); returns where it went, "" if nowhere.
  QString jumpToProducer();
  QString jumpToConsumer();
  //! The actions behind those shortcuts (the View menu lists them).
  QAction* producerAction() const { return producerAction_; }
  QAction* consumerAction() const { return consumerAction_; }
  //! The context menu of `value`'s node: "Go to producer T3", "Go to
  //! consumer T7", one entry each. The caller owns it.
  QMenu* valueMenu(const QString& value, QWidget* parent);
  //! The value (IR name) of the node at scene position `point`; "" for none.
  QString valueAt(const QPointF& point) const;
  //! One node per segment (true) or every segment's ops (false).
  void setCollapsed(bool collapsed);
  bool collapsed() const;
  //! Ranks from left to right (true) or top to bottom (false); remembered.
  void setLeftToRight(bool leftToRight);
  bool leftToRight() const;
  //! Labels every edge with its value's dtype and shape (remembered); off,
  //! only the edges between segments carry labels. A dense graph (more than
  //! kEdgeLabelsMaxEdges edges) goes without, and the status line says so.
  void setEdgeLabels(bool on);
  bool edgeLabels() const;
  //! Whether the last layout drew the dtype-and-shape labels.
  bool edgeLabelsDrawn() const { return edgeLabelsDrawn_; }
  //! How many edge labels the last layout drew.
  int edgeLabelCount() const { return edgeLabels_; }
  static constexpr int kEdgeLabelsMaxEdges = 80;
  //! Highlights items whose name, op or scheduler contains `text` and
  //! centres the first; returns how many matched.
  int search(const QString& text);
  //! Centres the next (previous) match of the last search, in reading order
  //! (top to bottom, left to right), wrapping around; returns its 1-based
  //! position among the matches, 0 when there are none. The status line
  //! says "k of N matches". Enter in the search box goes to the next match
  //! once the text has been searched, Shift+Enter to the previous one.
  int searchNext();
  int searchPrevious();
  //! The match centred last (1-based), 0 for none.
  int currentMatch() const { return current_ + 1; }
  //! Scene position of the match centred last.
  QPointF currentMatchPosition() const;
  void fit();
  //! Hides the row of switches (Compare's side-by-side graphs).
  void setCompact(bool compact);
  //! The metrics overlay: each segment's figures (kernel time, % of copy
  //! bandwidth, registers, spills, tuned speedup) as a line under its title
  //! and its fill coloured by one of them, with a legend; `origin` names
  //! where they came from. The first metrics turn the overlay on, none turn
  //! it off; `relayoutNow` false leaves the drawing to the next layout.
  void setMetrics(const SegmentMetricsMap& metrics, const QString& origin, bool relayoutNow = true);
  const SegmentMetricsMap& metrics() const { return metrics_; }
  //! Switches the overlay on or off (the "metrics" box), keeping the figures.
  void setMetricsShown(bool shown);
  bool metricsShown() const;
  //! Which metric colours the segments.
  void setColourMetric(Metric metric);
  Metric colourMetric() const;
  //! The overlay's line on segment `segment` ("" for none) and its fill as
  //! drawn (the scheduler's colour when the overlay is off).
  QString metricLabelOf(int segment) const;
  QColor segmentFillOf(int segment) const;
  MetricsLegend* legend() const { return legend_; }

  //! Writes the graph: .svg and .png as drawn, .dot as viz writes it.
  bool exportTo(const QString& path, QString* error = nullptr);

  bool pending() const { return pending_; }
  QGraphicsScene* scene() const { return scene_; }
  QGraphicsView* view() const { return view_; }
  //! Items drawn by the last layout.
  int clusterCount() const { return clusters_; }
  int nodeCount() const { return nodes_; }
  int edgeCount() const { return edges_; }
  //! The line under the graph: counts, "laying out...", a simplification.
  QString statusText() const;
  //! The segment drawn at scene position `point`; -1 for none.
  int segmentAt(const QPointF& point) const;

 signals:
  void segmentClicked(int id);
  //! A node was clicked: the value it stands for or writes (IR name).
  void valueClicked(const QString& value);
  //! A layout was drawn (or failed: the scene then says why).
  void laidOut();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void relayout();
  void draw(const viz::Graph& graph, const viz::Layout& layout);
  void showMessage(const QString& text);
  void updateSelection();
  //! Before a layout: edge labels with dtype and shape, and the metrics
  //! overlay's line under each segment's title (so the boxes fit it).
  void annotateForLayout(viz::Graph& graph);
  //! Places the legend in the view's top-left corner, shown with the overlay.
  void updateLegend();
  int showMatch(int index);
  //! search() without moving the view or the status line (`centre` false):
  //! a recompile's new layout keeps the search's highlights.
  int findMatches(const QString& text, bool centre);

  QGraphicsScene* scene_;
  QGraphicsView* view_;
  QGraphicsView* minimap_;
  QLineEdit* search_;
  QCheckBox* collapse_;
  QCheckBox* leftToRight_;
  QWidget* switches_;
  QCheckBox* edgeLabelsBox_;
  QCheckBox* metricsBox_;
  QComboBox* colourBy_;
  MetricsLegend* legend_;
  QLabel* status_;
  SegmentMetricsMap metrics_;
  ValueFlow flow_;
  QAction* producerAction_;
  QAction* consumerAction_;
  QString metricsOrigin_;
  SnapshotPtr snapshot_;
  std::shared_ptr<const viz::Graph> graph_;
  quint64 generation_ = 0;
  bool pending_ = false;
  int selected_ = -1;
  QString selectedValue_;
  QHash<int, QColor> marks_;
  //! The last search's matches in reading order, and the one centred.
  QList<QGraphicsItem*> matches_;
  QString searched_;
  int current_ = -1;
  int clusters_ = 0;
  int nodes_ = 0;
  int edges_ = 0;
  int edgeLabels_ = 0;
  bool edgeLabelsDrawn_ = false;
};

}  // namespace fuserlab::gui
