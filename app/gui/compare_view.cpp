#include "app/gui/compare_view.h"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/gui/compare_baseline.h"
#include "app/gui/graph_view.h"
#include "app/gui/options_panel.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/output_file.h"
#include "core/report/report_diff.h"
#include "core/report/script_names.h"

namespace fuserlab::gui {
namespace {

const QColor kDifferent(255, 214, 140);

const QColor kAdded(22, 150, 60);
const QColor kRemoved(120, 120, 120);
const QColor kRescheduled(230, 120, 0);

QColor changeColor(report::SegmentChange change) {
  switch (change) {
    case report::SegmentChange::Added: return kAdded;
    case report::SegmentChange::Removed: return kRemoved;
    case report::SegmentChange::Rescheduled: return kRescheduled;
    default: return {};
  }
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      a_(new OptionsPanel(this, true)),
      b_(new OptionsPanel(this, true)),
      serviceA_(new CompileService(this)),
      serviceB_(new CompileService(this)),
      table_(new QTableWidget(this)),
      summary_(new QLabel(this)),
      pin_(new QCheckBox("Pin A as the baseline", this)),
      graphA_(new GraphView(this)),
      graphB_(new GraphView(this)) {
  pin_->setObjectName("pinBaseline");
  pin_->setToolTip("keep side A's compile while the script and B change");
  graphA_->setCompact(true);
  graphB_->setCompact(true);
  graphA_->setObjectName("compareGraphA");
  graphB_->setObjectName("compareGraphB");
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
  auto* baselineRow = new QHBoxLayout;
  baselineRow->addWidget(pin_, 1);
  auto* saveButton = new QPushButton("Save A...", this);
  auto* loadButton = new QPushButton("Load baseline...", this);
  saveButton->setObjectName("saveBaseline");
  loadButton->setObjectName("loadBaseline");
  saveButton->setToolTip("write side A's compile to a JSON file, to compare later compiles with");
  loadButton->setToolTip("compare B with a compile saved earlier (it becomes side A)");
  baselineRow->addWidget(saveButton);
  baselineRow->addWidget(loadButton);
  layout->addLayout(baselineRow);
  connect(saveButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Save A as a baseline", "baseline.json",
                                                      "JSON (*.json)");
    QString error;
    if (!path.isEmpty() && !saveBaseline(path, &error)) summary_->setText(error);
  });
  connect(loadButton, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, "Load a baseline", {}, "JSON (*.json);;All (*)");
    QString error;
    if (!path.isEmpty() && !loadBaseline(path, &error)) summary_->setText(error);
  });
  layout->addWidget(summary_);
  auto* graphs = new QSplitter(Qt::Horizontal, this);
  graphs->addWidget(graphA_);
  graphs->addWidget(graphB_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(graphs);
  layout->addWidget(split, 1);
  connect(pin_, &QCheckBox::toggled, this, &CompareView::setBaselinePinned);

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

void CompareView::setBaselinePinned(bool pinned) {
  if (pin_->isChecked() != pinned) pin_->setChecked(pinned);  // re-enters once
  if (pinned == baselinePinned()) return;
  baseline_ = pinned ? serviceA_->latest() : nullptr;
  baselineFile_.clear();
  baselineSettings_.clear();
  a_->setEnabled(!pinned);
  if (!pinned) recompile();
  refresh();
}

bool CompareView::saveBaseline(const QString& path, QString* error) {
  const SnapshotPtr a = snapshotA();
  if (!a || !a->report) {
    if (error) *error = "no baseline to save: side A has not compiled";
    return false;
  }
  const std::string summary =
      baselineSettings_.isEmpty() ? a_->settings().summary() : baselineSettings_.toStdString();
  try {
    ir::writeUserFile(QFile::encodeName(path).toStdString(), baselineJson(*a, summary));
  } catch (const UserError& failure) {
    if (error) *error = QString::fromUtf8(failure.what());
    return false;
  }
  return true;
}

bool CompareView::loadBaseline(const QString& path, QString* error) {
  // A report of a 2,000-op fusion is a few MiB; this bounds a wrong file.
  constexpr size_t kMaxBaselineBytes = size_t{256} << 20;
  Baseline baseline;
  try {
    const std::string text =
        ir::readUserFile(QFile::encodeName(path).toStdString(), "baseline", kMaxBaselineBytes);
    baseline = baselineFromJson(text, QFileInfo(path).fileName().toStdString());
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromUtf8(failure.what());
    return false;
  }
  {
    const QSignalBlocker block(pin_);
    pin_->setChecked(true);
  }
  baseline_ = std::make_shared<const CompileSnapshot>(std::move(baseline.snapshot));
  baselineFile_ = QFileInfo(path).fileName();
  baselineSettings_ = QString::fromStdString(baseline.settingsSummary);
  a_->setEnabled(false);
  recompile();  // B, against the loaded baseline
  refresh();
  return true;
}

void CompareView::recompile() {
  if (!haveRequest_) return;
  summary_->setText("compiling...");
  for (auto [panel, service] : {std::pair{a_, serviceA_}, std::pair{b_, serviceB_}}) {
    if (panel == a_ && baseline_) continue;  // the baseline keeps its compile
    CompileRequest request = request_;
    CompileSettings settings = panel->settings();
    settings.databasePath = request_.settings.databasePath;
    settings.inputs = request_.settings.inputs;
    request.settings = settings;
    service->request(std::move(request));
  }
}

void CompareView::refresh() {
  if ((!baseline_ && serviceA_->busy()) || serviceB_->busy()) return;  // wait for both
  const SnapshotPtr a = snapshotA();
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
  const QString optionsA =
      !baselineFile_.isEmpty() ? QString("baseline %1 (%2 on %3): %4")
                                     .arg(baselineFile_, QString::fromStdString(a->fileName),
                                          QString::fromStdString(a->deviceName), baselineSettings_)
      : baseline_ ? QString("baseline: ") + QString::fromStdString(a_->settings().summary())
                  : QString::fromStdString(a_->settings().summary());
  addRow("options", optionsA, QString::fromStdString(b_->settings().summary()), false);
  const report::ReportDiff diff = report::diffReports(ra, rb);
  for (const report::FieldDiff& field : diff.summary) {
    addRow(QString::fromStdString(field.field), QString::fromStdString(field.a),
           QString::fromStdString(field.b));
  }
  const report::ScriptNames namesA(ra), namesB(rb);
  QHash<int, QColor> marksA, marksB;
  int rescheduled = 0, added = 0, removed = 0;
  for (const report::SegmentPair& pair : diff.segments) {
    const QString title = pair.a < 0   ? QString("segment - / %1").arg(pair.b)
                          : pair.b < 0 ? QString("segment %1 / -").arg(pair.a)
                                       : QString("segment %1 / %2").arg(pair.a).arg(pair.b);
    const int header = table_->rowCount();
    addRow(title + "  (" + report::toString(pair.change) + ")", "", "", false);
    const QColor color = changeColor(pair.change);
    if (color.isValid()) {
      for (int c = 0; c < 3; ++c) table_->item(header, c)->setForeground(color);
      if (pair.a >= 0) marksA[pair.a] = color;
      if (pair.b >= 0) marksB[pair.b] = color;
    }
    rescheduled += pair.change == report::SegmentChange::Rescheduled;
    added += pair.change == report::SegmentChange::Added;
    removed += pair.change == report::SegmentChange::Removed;
    for (const report::FieldDiff& field : pair.fields) {
      const bool names = field.field == "exprs";
      addRow("  " + QString::fromStdString(field.field),
             QString::fromStdString(names ? namesA.rename(field.a) : field.a),
             QString::fromStdString(names ? namesB.rename(field.b) : field.b));
    }
  }
  table_->resizeRowsToContents();
  differences_ = diff.differences();
  summary_->setText(
      QString("A: %1 segments (%2 kernels)   B: %3 segments (%4 kernels)   %5 rescheduled, "
              "%6 added, %7 removed; %8 fields differ")
          .arg(ra.segments.size())
          .arg(ra.kernelCount())
          .arg(rb.segments.size())
          .arg(rb.kernelCount())
          .arg(rescheduled)
          .arg(added)
          .arg(removed)
          .arg(differences_));
  if (graphA_->property("snapshot").value<const void*>() != a.get()) {
    graphA_->setSnapshot(a);
    graphA_->setProperty("snapshot", QVariant::fromValue<const void*>(a.get()));
  }
  if (graphB_->property("snapshot").value<const void*>() != b.get()) {
    graphB_->setSnapshot(b);
    graphB_->setProperty("snapshot", QVariant::fromValue<const void*>(b.get()));
  }
  graphA_->setSegmentMarks(marksA);
  graphB_->setSegmentMarks(marksB);
  emit compared();
}

}  // namespace fuserlab::gui
