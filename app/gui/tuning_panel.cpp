#include "app/gui/tuning_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/background_jobs.h"
#include "app/gui/run_job.h"
#include "app/gui/tune_worker.h"
#include "app/gui/tuning_plot.h"
#include "core/cuda/cuda_device.h"
#include "core/scheduler/scheduler_type.h"
#include "tuner/search_space.h"

namespace fuserlab::gui {
namespace {

// Hands the tuning thread's events to the panel on the GUI thread; events
// for a panel that is gone are dropped (the panel is their context).
class QueuedProgress : public TuneProgress {
 public:
  explicit QueuedProgress(QObject* panel, std::function<void(const SpaceTable&)> space,
                          std::function<void(const VariantPoint&)> point)
      : panel_(panel), space_(std::move(space)), point_(std::move(point)) {}
  void spaceReady(const SpaceTable& table) override {
    QMetaObject::invokeMethod(
        panel_, [f = space_, table] { f(table); }, Qt::QueuedConnection);
  }
  void measured(const VariantPoint& p) override {
    QMetaObject::invokeMethod(
        panel_, [f = point_, p] { f(p); }, Qt::QueuedConnection);
  }

 private:
  QObject* panel_;
  std::function<void(const SpaceTable&)> space_;
  std::function<void(const VariantPoint&)> point_;
};

QString microseconds(double ns) { return QString::number(ns / 1000.0, 'f', 2); }

}  // namespace

TuningPanel::TuningPanel(std::function<CompileRequest()> currentRequest,
                         std::function<QString()> databasePath, QWidget* parent)
    : QWidget(parent),
      currentRequest_(std::move(currentRequest)),
      databasePath_(std::move(databasePath)),
      factory_(workerRunnerFactory()),
      segment_(new QComboBox(this)),
      strategy_(new QComboBox(this)),
      budget_(new QSpinBox(this)),
      seed_(new QSpinBox(this)),
      gpu_(new QComboBox(this)),
      dryRun_(new QPushButton("Dry run", this)),
      start_(new QPushButton("Start", this)),
      cancelButton_(new QPushButton("Cancel", this)),
      progress_(new QProgressBar(this)),
      note_(new QLabel(this)),
      status_(new QLabel(this)),
      table_(new QTableWidget(this)),
      plot_(new TuningPlot(this)) {
  segment_->setObjectName("tuneSegment");
  strategy_->setObjectName("tuneStrategy");
  budget_->setObjectName("tuneBudget");
  gpu_->setObjectName("tuneGpu");
  dryRun_->setObjectName("tuneDryRun");
  start_->setObjectName("tuneStart");
  cancelButton_->setObjectName("tuneCancel");
  progress_->setObjectName("tuneProgress");
  note_->setObjectName("tuneNote");
  status_->setObjectName("tuneStatus");
  table_->setObjectName("tuneVariants");
  for (const char* kind : {"exhaustive", "random", "coordinate"}) strategy_->addItem(kind);
  budget_->setRange(0, 100000);
  budget_->setSpecialValueText("all variants");
  budget_->setSuffix(" variants");
  seed_->setRange(0, 1 << 30);
  seed_->setPrefix("seed ");
  note_->setWordWrap(true);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);

  // Three rows, so the panel fits a narrow window.
  auto* target = new QHBoxLayout;
  target->addWidget(new QLabel("segment", this));
  target->addWidget(segment_, 1);
  auto* choices = new QHBoxLayout;
  choices->addWidget(strategy_);
  choices->addWidget(budget_);
  choices->addWidget(seed_);
  choices->addStretch();
  auto* where = new QHBoxLayout;
  where->addWidget(new QLabel("on", this));
  where->addWidget(gpu_, 1);
  auto* actions = new QHBoxLayout;
  actions->addWidget(dryRun_);
  actions->addWidget(start_);
  actions->addWidget(cancelButton_);
  actions->addWidget(progress_, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(table_);
  split->addWidget(plot_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(target);
  layout->addLayout(choices);
  layout->addLayout(where);
  layout->addLayout(actions);
  layout->addWidget(note_);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  const int count = runtime::cudaDeviceCount();
  for (int i = 0; i < count; ++i) gpus_ << QString("cuda:%1").arg(i);
  gpu_->addItems(gpus_);

  connect(dryRun_, &QPushButton::clicked, this, &TuningPanel::startDryRun);
  connect(start_, &QPushButton::clicked, this, &TuningPanel::startSweep);
  connect(cancelButton_, &QPushButton::clicked, this, &TuningPanel::cancelSweep);
  connect(strategy_, &QComboBox::currentIndexChanged, this,
          [this] { seed_->setEnabled(strategy_->currentText() == "random"); });
  seed_->setEnabled(false);
  updateButtons();
}

TuningPanel::~TuningPanel() {
  // The jobs read nothing of the panel, but their results come back to it.
  if (cancel_) cancel_->store(true);
  if (sweep_) sweep_->waitForFinished();
  if (dry_) dry_->waitForFinished();
}

void TuningPanel::setRunnerFactory(RunnerFactory factory, const QStringList& gpus) {
  factory_ = std::move(factory);
  gpus_ = gpus;
  gpu_->clear();
  gpu_->addItems(gpus_);
  updateButtons();
}

void TuningPanel::setSnapshot(SnapshotPtr snapshot) {
  const QVariant previous = segment_->currentData();
  segment_->clear();
  if (snapshot && snapshot->report) {
    for (const auto& segment : snapshot->report->segments) {
      const auto type = scheduler::parseSchedulerType(segment.scheduler);
      if (!segment.launchesKernel || !type || !tuner::isTunable(*type)) continue;
      segment_->addItem(
          QString("%1 (%2)").arg(segment.id).arg(QString::fromStdString(segment.scheduler)),
          segment.id);
    }
  }
  const int keep = segment_->findData(previous);
  if (keep >= 0) segment_->setCurrentIndex(keep);
  updateButtons();
}

void TuningPanel::updateButtons() {
  const bool running = busy();
  const bool haveSegment = segment_->count() > 0;
  dryRun_->setEnabled(!running && haveSegment);
  start_->setEnabled(!running && haveSegment && !gpus_.isEmpty());
  cancelButton_->setEnabled(sweep_ != nullptr);
  QStringList lines;
  if (gpus_.isEmpty()) {
    std::string why = runtime::cudaUnavailableReason();
    if (why.empty()) why = "no CUDA device on this machine";
    lines << "<b>no GPU</b>: " + QString::fromStdString(why).toHtmlEscaped() +
                 ". Only a dry run (the search space, no measurements) is possible here.";
  }
  if (!haveSegment) {
    lines << "No segment of the current compile has params to tune (pointwise, reduction "
             "and normalization kernels do).";
  }
  const QString db = databasePath_ ? databasePath_() : QString();
  if (!gpus_.isEmpty()) {
    lines << (db.isEmpty() ? QString("Results go to the Database tab's file: none is "
                                     "chosen yet.")
                           : "Results go to " + db.toHtmlEscaped() + ".");
  }
  note_->setText(lines.join("<br>"));
}

TuneRequest TuningPanel::makeRequest() const {
  TuneRequest request;
  request.compile = currentRequest_();
  request.segment = segment_->currentData().toInt();
  request.strategy.kind = tuner::parseStrategy(strategy_->currentText().toStdString());
  request.strategy.budget = budget_->value();
  request.strategy.seed = static_cast<uint64_t>(seed_->value());
  request.gpu = gpu_->currentText().toStdString();
  request.databasePath = databasePath_ ? databasePath_().toStdString() : std::string();
  const QString worker =
      workerExecutable_.isEmpty() ? QCoreApplication::applicationFilePath() : workerExecutable_;
  request.workerCommand = {worker.toStdString(), kTuneWorkerFlag};
  return request;
}

void TuningPanel::showError(const QString& message) {
  status_->setText("<span style='color:#a00'>error: " + message.toHtmlEscaped() + "</span>");
}

void TuningPanel::startDryRun() {
  if (busy() || segment_->count() == 0) return;
  const TuneRequest request = makeRequest();
  status_->setText("building the search space...");
  dry_ = new QFutureWatcher<DryRunResult>(this);
  connect(dry_, &QFutureWatcher<DryRunResult>::finished, this, [this] {
    const DryRunResult result = dry_->result();
    dry_->deleteLater();
    dry_ = nullptr;
    updateButtons();
    if (result.error) {
      showError(QString::fromStdString(*result.error));
    } else {
      showSpace(result.table);
      status_->setText(QString::fromStdString(result.table.heading));
    }
    emit dryRunFinished(!result.error);
  });
  updateButtons();
  dry_->setFuture(QtConcurrent::run(backgroundJobs(), [request] { return dryRunJob(request); }));
}

void TuningPanel::startSweep() {
  if (busy() || segment_->count() == 0 || gpus_.isEmpty()) return;
  const TuneRequest request = makeRequest();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto progress = std::make_shared<QueuedProgress>(
      this,
      [this](const SpaceTable& table) {
        showSpace(table);
        progress_->setRange(0, static_cast<int>(table.plannedCount));
        status_->setText(QString::fromStdString(table.heading));
      },
      [this](const VariantPoint& p) { showPoint(p); });
  progress_->setRange(0, 0);  // busy until the space is known
  status_->setText("compiling the segment...");
  sweep_ = new QFutureWatcher<TuneSummary>(this);
  const int segment = request.segment;
  connect(sweep_, &QFutureWatcher<TuneSummary>::finished, this, [this, segment] {
    const TuneSummary summary = sweep_->result();
    sweep_->deleteLater();
    sweep_ = nullptr;
    cancel_.reset();
    updateButtons();
    showSummary(summary);
    if (!summary.error && summary.speedup > 0) {
      emit segmentTuned(segment, summary.chosenMedianNs / 1000.0, summary.speedup);
    }
    if (summary.measured > 0 || summary.entryId != 0) emit databaseUpdated();
    emit sweepFinished(!summary.error && !summary.cancelled);
  });
  updateButtons();
  const RunnerFactory factory = factory_;
  const std::shared_ptr<std::atomic<bool>> cancel = cancel_;
  sweep_->setFuture(QtConcurrent::run(backgroundJobs(), [request, factory, cancel, progress] {
    return runTuneJob(request, factory, progress.get(), cancel.get());
  }));
}

void TuningPanel::cancelSweep() {
  if (!cancel_) return;
  cancel_->store(true);
  cancelButton_->setEnabled(false);
  status_->setText("cancelling after the variant in flight...");
}

void TuningPanel::showSpace(const SpaceTable& space) {
  rowOf_.clear();
  table_->clear();
  plot_->reset(space);
  QStringList headers{"variant"};
  for (const auto& knob : space.knobs) headers << QString::fromStdString(knob);
  headers << "planned"
          << "median (us)"
          << "params";
  medianColumn_ = headers.size() - 2;
  table_->setColumnCount(headers.size());
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(space.rows.size()));
  for (size_t r = 0; r < space.rows.size(); ++r) {
    const SpaceTable::Row& row = space.rows[r];
    const int at = static_cast<int>(r);
    rowOf_[row.id] = at;
    int column = 0;
    auto set = [&](const QString& text) {
      table_->setItem(at, column++, new QTableWidgetItem(text));
    };
    set(QString::number(row.id) + (row.isDefault ? " (default)" : ""));
    for (int64_t v : row.values) set(QString::number(v));
    set(row.planned ? "yes" : "");
    set("");
    set(QString::fromStdString(row.label));
  }
  table_->resizeColumnsToContents();
}

void TuningPanel::showPoint(const VariantPoint& p) {
  progress_->setMaximum(static_cast<int>(std::max<size_t>(p.planned, 1)));
  progress_->setValue(static_cast<int>(p.done));
  if (auto it = rowOf_.find(p.id); it != rowOf_.end()) {
    QString text = p.ok ? microseconds(p.medianNs) : "failed: " + QString::fromStdString(p.error);
    if (p.resumed) text += " (stored)";
    table_->setItem(it->second, medianColumn_, new QTableWidgetItem(text));
  }
  if (p.ok) plot_->addPoint(p.id, p.medianNs);
  status_->setText(QString("%1 of %2 variants, best %3 us")
                       .arg(p.done)
                       .arg(p.planned)
                       .arg(p.bestMedianNs > 0 ? microseconds(p.bestMedianNs) : "-"));
}

void TuningPanel::showSummary(const TuneSummary& s) {
  progress_->setRange(0, std::max(progress_->maximum(), 1));
  if (s.error) {
    showError(QString::fromStdString(*s.error));
    return;
  }
  plot_->setWinner(s.chosen);
  if (s.chosen) {
    if (auto it = rowOf_.find(*s.chosen); it != rowOf_.end()) {
      for (int c = 0; c < table_->columnCount(); ++c) {
        if (QTableWidgetItem* item = table_->item(it->second, c)) {
          QFont font = item->font();
          font.setBold(true);
          item->setFont(font);
          item->setBackground(QColor(255, 225, 225));
        }
      }
      table_->selectRow(it->second);
      table_->scrollToItem(table_->item(it->second, 0));
    }
  }
  QString text = QString("%1%2 measured, %3 stored before, %4 failed in %5 s. %6")
                     .arg(s.cancelled ? "Cancelled: " : "")
                     .arg(s.measured)
                     .arg(s.resumed)
                     .arg(s.failed)
                     .arg(s.seconds, 0, 'f', 1)
                     .arg(QString::fromStdString(s.decision));
  if (s.entryId != 0) text += QString(" Stored as entry %1.").arg(s.entryId);
  status_->setText(text.toHtmlEscaped());
}

}  // namespace fuserlab::gui
