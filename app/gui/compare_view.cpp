#include "app/gui/compare_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/gui/options_panel.h"

namespace fuserlab::gui {
namespace {

const QColor kDifferent(255, 214, 140);

QString segmentLine(const report::SegmentReport& segment) {
  QStringList outputs;
  for (const auto& name : segment.outputs) outputs << QString::fromStdString(name);
  return QString("%1 -> %2").arg(QString::fromStdString(segment.scheduler),
                                 outputs.join(" "));
}

QString propertiesLine(const report::SegmentReport& segment) {
  QStringList items;
  if (segment.properties.isObject()) {
    for (const auto& [key, value] : segment.properties.members()) {
      items << QString::fromStdString(key) + "=" +
                   QString::fromStdString(value.isString() ? value.asString()
                                                           : value.dump(-1));
    }
  }
  return items.join(", ");
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      a_(new OptionsPanel(this, true)),
      b_(new OptionsPanel(this, true)),
      serviceA_(new CompileService(this)),
      serviceB_(new CompileService(this)),
      table_(new QTableWidget(this)),
      summary_(new QLabel(this)) {
  a_->setObjectName("compareA");
  b_->setObjectName("compareB");
  CompileSettings privatize, forward;
  forward.options.set("upcast", "forward");
  a_->setSettings(privatize);
  b_->setSettings(forward);
  table_->setColumnCount(3);
  table_->setHorizontalHeaderLabels({"", "A", "B"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(true);
  summary_->setWordWrap(true);

  auto* layout = new QVBoxLayout(this);
  auto* labelA = new QLabel("<b>A</b>", this);
  auto* labelB = new QLabel("<b>B</b>", this);
  layout->addWidget(labelA);
  layout->addWidget(a_);
  layout->addWidget(labelB);
  layout->addWidget(b_);
  layout->addWidget(summary_);
  layout->addWidget(table_, 1);

  connect(a_, &OptionsPanel::settingsChanged, this, &CompareView::recompile);
  connect(b_, &OptionsPanel::settingsChanged, this, &CompareView::recompile);
  connect(serviceA_, &CompileService::finished, this, &CompareView::refresh);
  connect(serviceB_, &CompileService::finished, this, &CompareView::refresh);
}

void CompareView::setRequest(const CompileRequest& request) {
  request_ = request;
  haveRequest_ = true;
  recompile();
}

void CompareView::recompile() {
  if (!haveRequest_) return;
  summary_->setText("compiling...");
  for (auto [panel, service] : {std::pair{a_, serviceA_}, std::pair{b_, serviceB_}}) {
    CompileRequest request = request_;
    CompileSettings settings = panel->settings();
    settings.databasePath = request_.settings.databasePath;
    settings.inputs = request_.settings.inputs;
    request.settings = settings;
    service->request(std::move(request));
  }
}

void CompareView::refresh() {
  if (serviceA_->busy() || serviceB_->busy()) return;  // wait for both
  const SnapshotPtr a = serviceA_->latest();
  const SnapshotPtr b = serviceB_->latest();
  table_->setRowCount(0);
  differences_ = 0;
  if (!a || !b) return;
  auto addRow = [this](const QString& label, const QString& left, const QString& right,
                       bool counts = true) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, 0, new QTableWidgetItem(label));
    auto* itemA = new QTableWidgetItem(left);
    auto* itemB = new QTableWidgetItem(right);
    itemA->setToolTip(left);
    itemB->setToolTip(right);
    if (left != right) {
      itemA->setBackground(kDifferent);
      itemB->setBackground(kDifferent);
      differences_ += counts ? 1 : 0;
    }
    table_->setItem(row, 1, itemA);
    table_->setItem(row, 2, itemB);
  };
  if (!a->ok() || !b->ok()) {
    addRow("error", QString::fromStdString(a->error.value_or("")),
           QString::fromStdString(b->error.value_or("")));
    summary_->setText("one side did not compile");
    emit compared();
    return;
  }
  const auto& ra = *a->report;
  const auto& rb = *b->report;
  addRow("options", QString::fromStdString(a_->settings().summary()),
         QString::fromStdString(b_->settings().summary()), false);
  addRow("segments", QString::number(ra.segments.size()), QString::number(rb.segments.size()));
  addRow("kernels", QString::number(ra.kernelCount()), QString::number(rb.kernelCount()));
  const size_t n = std::max(ra.segments.size(), rb.segments.size());
  for (size_t i = 0; i < n; ++i) {
    const auto* sa = i < ra.segments.size() ? &ra.segments[i] : nullptr;
    const auto* sb = i < rb.segments.size() ? &rb.segments[i] : nullptr;
    addRow(QString("segment %1").arg(i), sa ? segmentLine(*sa) : "-",
           sb ? segmentLine(*sb) : "-");
    addRow("  properties", sa ? propertiesLine(*sa) : "-", sb ? propertiesLine(*sb) : "-");
  }
  table_->resizeRowsToContents();
  summary_->setText(
      QString("A: %1 segments (%2 kernels)   B: %3 segments (%4 kernels)   %5 rows differ")
          .arg(ra.segments.size())
          .arg(ra.kernelCount())
          .arg(rb.segments.size())
          .arg(rb.kernelCount())
          .arg(differences_));
  emit compared();
}

}  // namespace fuserlab::gui
