#include "app/gui/passes_model.h"

#include <QFont>
#include <QRegularExpression>

#include "core/report/script_names.h"

namespace fuserlab::gui {

QStringList mentionedNames(const QString& text) {
  static const QRegularExpression name(R"(\b([TS]\d+)\b)");
  QStringList names;
  for (auto it = name.globalMatch(text); it.hasNext();) {
    const QString found = it.next().captured(1);
    if (!names.contains(found)) names << found;
  }
  return names;
}

PassesModel::PassesModel(QObject* parent) : QAbstractItemModel(parent) {}

void PassesModel::setSnapshot(SnapshotPtr snapshot) {
  beginResetModel();
  passes_.clear();
  if (snapshot && snapshot->report) {
    const report::ScriptNames names(*snapshot->report);
    for (const auto& pass : snapshot->report->passes) {
      Pass row;
      row.name = QString::fromStdString(pass.name);
      row.enabled = pass.enabled;
      for (const auto& rewrite : pass.rewrites) {
        row.rewrites << QString::fromStdString(names.rename(rewrite));
      }
      passes_.push_back(std::move(row));
    }
  }
  endResetModel();
}

void PassesModel::setHighlight(const QSet<QString>& names) {
  highlight_ = names;
  for (int p = 0; p < static_cast<int>(passes_.size()); ++p) {
    const int n = static_cast<int>(passes_[p].rewrites.size());
    if (n > 0) {
      emit dataChanged(index(0, 0, index(p, 0)), index(n - 1, 1, index(p, 0)), {Qt::FontRole});
    }
  }
}

bool PassesModel::highlighted(const QString& rewrite) const {
  if (highlight_.isEmpty()) return false;
  for (const QString& name : mentionedNames(rewrite)) {
    if (highlight_.contains(name)) return true;
  }
  return false;
}

QStringList PassesModel::namesIn(const QModelIndex& index) const {
  if (!index.isValid() || index.internalId() == 0) return {};
  const Pass& pass = passes_[index.internalId() - 1];
  return mentionedNames(pass.rewrites[index.row()]);
}

QModelIndex PassesModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= 2) return {};
  if (!parent.isValid()) {
    if (row >= static_cast<int>(passes_.size())) return {};
    return createIndex(row, column, quintptr(0));
  }
  if (parent.internalId() != 0 || parent.column() != 0) return {};
  if (row >= passes_[parent.row()].rewrites.size()) return {};
  return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex PassesModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int PassesModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(passes_.size());
  if (parent.internalId() != 0 || parent.column() != 0) return 0;
  return static_cast<int>(passes_[parent.row()].rewrites.size());
}

int PassesModel::columnCount(const QModelIndex&) const { return 2; }

QVariant PassesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == 0) {
    const Pass& pass = passes_[index.row()];
    if (role == Qt::DisplayRole) {
      if (index.column() == 0) return pass.name;
      if (!pass.enabled) return QString("disabled");
      return pass.rewrites.isEmpty() ? QString("no rewrites")
                                     : QString("%1 rewrites").arg(pass.rewrites.size());
    }
    if (role == Qt::FontRole && pass.enabled && !pass.rewrites.isEmpty()) {
      QFont font;
      font.setBold(true);
      return font;
    }
    return {};
  }
  const QString& rewrite = passes_[index.internalId() - 1].rewrites[index.row()];
  if (role == Qt::DisplayRole) {
    return index.column() == 0 ? QString::number(index.row() + 1) : rewrite;
  }
  if (role == Qt::ToolTipRole && index.column() == 1) return rewrite;
  if (role == Qt::FontRole && highlighted(rewrite)) {
    QFont font;
    font.setBold(true);
    return font;
  }
  return {};
}

QVariant PassesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? QString("Pass") : QString("Rewrites");
}

}  // namespace fuserlab::gui
