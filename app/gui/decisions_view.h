// DecisionsView: the segmenter's decision log as a table — each decision
// (the whole fusion tried, a segment_set cut, a region or pair merge tried,
// the scheduler each segment got), accepted or refused, and why, with the
// script's own names. Selecting a decision outlines, in the graph, the first
// tensor its reason names and, for a segment's schedule, selects it.
#pragma once

#include <QWidget>

#include "app/gui/compile_service.h"

class QCheckBox;
class QTreeWidget;

namespace fuserlab::gui {

class DecisionsView : public QWidget {
  Q_OBJECT
 public:
  explicit DecisionsView(QWidget* parent = nullptr);

  void setSnapshot(const SnapshotPtr& snapshot);
  QTreeWidget* tree() const { return tree_; }
  QCheckBox* refusedOnlyBox() const { return refusedOnly_; }

 signals:
  //! The first value (IR name) the selected decision's reason names.
  void valueChosen(const QString& value);
  //! The segment a selected schedule decision is about.
  void segmentChosen(int id);

 private:
  void refill();

  QTreeWidget* tree_;
  QCheckBox* refusedOnly_;
  SnapshotPtr snapshot_;
};

}  // namespace fuserlab::gui
