#include "app/gui/decisions_view.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/report/script_names.h"

namespace fuserlab::gui {
namespace {

constexpr int kValueRole = Qt::UserRole;
constexpr int kSegmentRole = Qt::UserRole + 1;

}  // namespace

DecisionsView::DecisionsView(QWidget* parent)
    : QWidget(parent),
      tree_(new QTreeWidget(this)),
      refusedOnly_(new QCheckBox("refused only", this)) {
  tree_->setObjectName("decisions");
  tree_->setColumnCount(4);
  tree_->setHeaderLabels({"#", "decision", "", "why"});
  tree_->setRootIsDecorated(false);
  tree_->setWordWrap(true);
  tree_->setUniformRowHeights(false);
  tree_->header()->setSectionResizeMode(3, QHeaderView::Stretch);
  tree_->header()->setStretchLastSection(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(refusedOnly_);
  layout->addWidget(tree_, 1);
  connect(refusedOnly_, &QCheckBox::toggled, this, &DecisionsView::refill);
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (item == nullptr) return;
    const QString value = item->data(0, kValueRole).toString();
    if (!value.isEmpty()) emit valueChosen(value);
    const QVariant segment = item->data(0, kSegmentRole);
    if (segment.isValid()) emit segmentChosen(segment.toInt());
  });
}

void DecisionsView::setSnapshot(const SnapshotPtr& snapshot) {
  snapshot_ = snapshot;
  refill();
}

void DecisionsView::refill() {
  tree_->clear();
  if (!snapshot_ || !snapshot_->report) return;
  const report::CompileReport& report = *snapshot_->report;
  const report::ScriptNames names(report);
  static const QRegularExpression tensor(R"(\b(T\d+)\b)");
  static const QRegularExpression segment(R"(^segment (\d+) )");
  for (size_t i = 0; i < report.decisions.size(); ++i) {
    const report::DecisionReport& decision = report.decisions[i];
    if (refusedOnly_->isChecked() && decision.accepted) continue;
    const QString reason = QString::fromStdString(decision.reason);
    auto* item = new QTreeWidgetItem(tree_);
    item->setText(0, QString::number(i));
    item->setText(1, QString::fromStdString(decision.kind));
    item->setText(2, decision.accepted ? "accepted" : "refused");
    item->setText(3, QString::fromStdString(names.rename(decision.reason)));
    item->setToolTip(3, item->text(3));
    item->setForeground(2, decision.accepted ? QColor(22, 120, 50) : QColor(190, 40, 30));
    if (const auto match = tensor.match(reason); match.hasMatch()) {
      item->setData(0, kValueRole, match.captured(1));
    }
    if (const auto match = segment.match(reason); decision.kind == "schedule" && match.hasMatch()) {
      item->setData(0, kSegmentRole, match.captured(1).toInt());
    }
  }
  for (int c = 0; c < 3; ++c) tree_->resizeColumnToContents(c);
}

}  // namespace fuserlab::gui
