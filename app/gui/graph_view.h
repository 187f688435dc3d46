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

class QCheckBox;
class QGraphicsItem;
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
  //! Ranks from left to right (true) or top to bottom (false); remembered.
  void setLeftToRight(bool leftToRight);
  bool leftToRight() const;
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
  QLabel* status_;
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
};

}  // namespace fuserlab::gui
