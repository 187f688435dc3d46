// PassesModel: the pre-segmentation passes of one compile snapshot as a
// tree: a row per pass (in pipeline order, disabled ones say so) with its
// rewrites under it. Rewrites that name a tensor of the selected segment are
// highlighted (setHighlight), so selecting a segment anywhere shows which
// rewrites shaped it.
#pragma once

#include <QAbstractItemModel>
#include <QSet>
#include <QStringList>

#include "app/gui/compile_service.h"

namespace fuserlab::gui {

class PassesModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  explicit PassesModel(QObject* parent = nullptr);

  void setSnapshot(SnapshotPtr snapshot);
  //! Tensor names (T3, T7, ...) whose rewrites to highlight.
  void setHighlight(const QSet<QString>& names);
  //! The tensor names a rewrite row mentions (empty for a pass row).
  QStringList namesIn(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Pass {
    QString name;
    bool enabled = true;
    QStringList rewrites;
  };
  // Internal ids: 0 for a pass row, pass + 1 for a rewrite row under it.
  bool highlighted(const QString& rewrite) const;

  std::vector<Pass> passes_;
  QSet<QString> highlight_;
};

//! The tensor and scalar names ("T12", "S3") that `text` mentions.
QStringList mentionedNames(const QString& text);

}  // namespace fuserlab::gui
