// GraphView: the segmented graph of a compile snapshot, drawn as
// QGraphicsScene items from viz's Graphviz layout: a box per segment
// (coloured by scheduler, kernel-free ones dashed) holding its ops, fusion
// inputs and outputs outside, edges as the layout's splines with their
// labels. Zoom (wheel), pan (drag), fit, search by name, op or scheduler, a
// minimap, and collapse to one node per segment / expand back. Layout runs on
// viz's worker thread; a late layout for an older snapshot is dropped.
#pragma once

#include <QColor>
#include <QHash>
#include <QWidget>
#include <memory>

#include "app/gui/compile_service.h"

class QCheckBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;

namespace fuserlab::viz {
struct Graph;
struct Layout;
}  // namespace fuserlab::viz

namespace fuserlab::gui {

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
  //! The value (IR name) of the node at scene position `point`; "" for none.
  QString valueAt(const QPointF& point) const;
  //! One node per segment (true) or every segment's ops (false).
  void setCollapsed(bool collapsed);
  bool collapsed() const;
  //! Highlights items whose name, op or scheduler contains `text` and
  //! centres the first; returns how many matched.
  int search(const QString& text);
  void fit();
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

  QGraphicsScene* scene_;
  QGraphicsView* view_;
  QGraphicsView* minimap_;
  QLineEdit* search_;
  QCheckBox* collapse_;
  QLabel* status_;
  SnapshotPtr snapshot_;
  std::shared_ptr<const viz::Graph> graph_;
  quint64 generation_ = 0;
  bool pending_ = false;
  int selected_ = -1;
  QString selectedValue_;
  QHash<int, QColor> marks_;
  int clusters_ = 0;
  int nodes_ = 0;
  int edges_ = 0;
};

}  // namespace fuserlab::gui
