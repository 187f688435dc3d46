// ReportModel: the segment inspector's tree over one compile snapshot. One
// top-level row per segment ("segment 1  inner_persistent"); under it the
// scheduler, the params with where they came from, the properties
// (persistent buffers, vectorization, ...), every scheduler that refused the
// segment with its reason, the segment's inputs, outputs and exprs.
// Columns: 0 the item, 1 its value. A thin adapter: setSnapshot rebuilds the
// rows from the snapshot and keeps nothing else.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "app/gui/compile_service.h"

namespace fuserlab::gui {

class ReportModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  explicit ReportModel(QObject* parent = nullptr);

  void setSnapshot(SnapshotPtr snapshot);
  SnapshotPtr snapshot() const { return snapshot_; }

  //! The segment row `id`; invalid if there is none.
  QModelIndex indexOfSegment(int id) const;
  //! The segment `index` belongs to; -1 for none.
  int segmentOf(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Node {
    QString name;
    QString value;
    QString tip;
    int parent = -1;  //!< -1: a top-level row
    int row = 0;
    int segment = -1;
    bool refusal = false;
    std::vector<int> children;
  };
  int add(int parent, int segment, QString name, QString value = {});

  SnapshotPtr snapshot_;
  std::vector<Node> nodes_;
  std::vector<int> roots_;
};

}  // namespace fuserlab::gui
