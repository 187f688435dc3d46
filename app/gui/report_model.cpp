#include "app/gui/report_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include "core/report/script_names.h"

namespace fuserlab::gui {
namespace {

QString jsonText(const report::Json& value) {
  return QString::fromStdString(value.isString() ? value.asString() : value.dump(-1));
}

QString joined(const std::vector<std::string>& items, const report::ScriptNames& names) {
  QStringList list;
  for (const auto& item : items) list << QString::fromStdString(names.shown(item));
  return list.join(", ");
}

}  // namespace

ReportModel::ReportModel(QObject* parent) : QAbstractItemModel(parent) {}

int ReportModel::add(int parent, int segment, QString name, QString value) {
  Node node;
  node.name = std::move(name);
  node.value = std::move(value);
  node.tip = node.value;
  node.parent = parent;
  node.segment = segment;
  std::vector<int>& siblings = parent < 0 ? roots_ : nodes_[parent].children;
  node.row = static_cast<int>(siblings.size());
  nodes_.push_back(std::move(node));
  const int id = static_cast<int>(nodes_.size()) - 1;
  (parent < 0 ? roots_ : nodes_[parent].children).push_back(id);
  return id;
}

void ReportModel::setSnapshot(SnapshotPtr snapshot) {
  beginResetModel();
  snapshot_ = std::move(snapshot);
  nodes_.clear();
  roots_.clear();
  if (snapshot_ && snapshot_->report) {
    // The script's own names, as the graph shows them (issue 46).
    const report::ScriptNames names(*snapshot_->report);
    for (const report::SegmentReport& segment : snapshot_->report->segments) {
      const int id = segment.id;
      const int top = add(-1, id, QString("segment %1").arg(id),
                          QString::fromStdString(segment.scheduler) +
                              (segment.launchesKernel ? "" : "  (no kernel)"));
      add(top, id, "scheduler", QString::fromStdString(segment.scheduler));
      if (!segment.params.isNull()) {
        QString source = QString::fromStdString(segment.paramsSource);
        if (segment.paramsEntryId != 0) {
          source += QString(", database entry %1").arg(segment.paramsEntryId);
        }
        const int params = add(top, id, "params", "from " + source);
        if (segment.params.isObject()) {
          for (const auto& [key, value] : segment.params.members()) {
            add(params, id, QString::fromStdString(key), jsonText(value));
          }
        }
        if (!segment.paramsNote.empty()) {
          add(params, id, "note", QString::fromStdString(segment.paramsNote));
        }
      }
      if (segment.properties.isObject() && !segment.properties.members().empty()) {
        const int properties = add(top, id, "properties");
        for (const auto& [key, value] : segment.properties.members()) {
          add(properties, id, QString::fromStdString(key), jsonText(value));
        }
      }
      const int refused =
          add(top, id, "refused by", QString("%1 schedulers").arg(segment.rejected.size()));
      for (const auto& rejection : segment.rejected) {
        const int row = add(refused, id, QString::fromStdString(rejection.scheduler),
                            QString::fromStdString(rejection.reason));
        nodes_[row].refusal = true;
      }
      add(top, id, "inputs", joined(segment.inputs, names));
      add(top, id, "outputs", joined(segment.outputs, names));
      const int exprs = add(top, id, "exprs", QString::number(segment.exprs.size()));
      for (size_t i = 0; i < segment.exprs.size(); ++i) {
        add(exprs, id, QString::number(i), QString::fromStdString(names.rename(segment.exprs[i])));
      }
    }
  }
  endResetModel();
}

QModelIndex ReportModel::indexOfSegment(int id) const {
  for (int root : roots_) {
    if (nodes_[root].segment == id) return createIndex(nodes_[root].row, 0, quintptr(root));
  }
  return {};
}

int ReportModel::segmentOf(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return -1;
  return nodes_[index.internalId()].segment;
}

QModelIndex ReportModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= 2) return {};
  if (parent.isValid() && parent.column() != 0) return {};
  const std::vector<int>& rows = parent.isValid() ? nodes_[parent.internalId()].children : roots_;
  if (row >= static_cast<int>(rows.size())) return {};
  return createIndex(row, column, quintptr(rows[row]));
}

QModelIndex ReportModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int parent = nodes_[child.internalId()].parent;
  if (parent < 0) return {};
  return createIndex(nodes_[parent].row, 0, quintptr(parent));
}

int ReportModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(roots_.size());
  if (parent.column() != 0) return 0;
  return static_cast<int>(nodes_[parent.internalId()].children.size());
}

int ReportModel::columnCount(const QModelIndex&) const { return 2; }

QVariant ReportModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Node& node = nodes_[index.internalId()];
  switch (role) {
    case Qt::DisplayRole: return index.column() == 0 ? node.name : node.value;
    case Qt::ToolTipRole: return node.tip.isEmpty() ? QVariant() : QVariant(node.tip);
    case Qt::ForegroundRole:
      if (node.refusal && index.column() == 1) return QBrush(QColor(150, 40, 40));
      return {};
    case Qt::FontRole:
      if (node.parent < 0) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return {};
    case Qt::UserRole: return node.segment;
    default: return {};
  }
}

QVariant ReportModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? QString("Item") : QString("Value");
}

}  // namespace fuserlab::gui
