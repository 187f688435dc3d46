#include "app/gui/run_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/background_jobs.h"

namespace fuserlab::gui {

RunPanel::RunPanel(std::function<CompileRequest()> currentRequest, QWidget* parent)
    : QWidget(parent),
      currentRequest_(std::move(currentRequest)),
      backend_(new QComboBox(this)),
      seed_(new QSpinBox(this)),
      check_(new QCheckBox("check against the cpu reference", this)),
      timeKernels_(new QCheckBox("time the kernels", this)),
      run_(new QPushButton("Run", this)),
      note_(new QLabel(this)),
      output_(new QPlainTextEdit(this)) {
  backend_->setObjectName("backend");
  run_->setObjectName("run");
  timeKernels_->setObjectName("timeKernels");
  timeKernels_->setToolTip(QString("After the run, %1 more on the same inputs, each after an L2 "
                                   "flush, timed from CUPTI's kernel records: the GPU time "
                                   "nsys would show, per kernel")
                               .arg(kTimedRuns));
  backend_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  backend_->setMinimumContentsLength(10);
  backend_->addItem("cpu (reference executor)", "cpu");
  backend_->addItem("cuda", "cuda");
  seed_->setRange(0, 1 << 30);
  seed_->setPrefix("seed ");
  output_->setReadOnly(true);
  output_->setObjectName("runOutput");
  note_->setWordWrap(true);

  // Two rows: the panel fits a narrow window.
  auto* row = new QHBoxLayout;
  row->addWidget(backend_);
  row->addWidget(seed_);
  row->addStretch();
  row->addWidget(run_);
  auto* switches = new QHBoxLayout;
  switches->addWidget(check_);
  switches->addWidget(timeKernels_);
  switches->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addLayout(switches);
  layout->addWidget(note_);
  layout->addWidget(output_, 1);

  connect(backend_, &QComboBox::currentIndexChanged, this, &RunPanel::updateBackendNote);
  connect(run_, &QPushButton::clicked, this, &RunPanel::startRun);
  updateBackendNote();
}

void RunPanel::updateBackendNote() {
  const bool cuda = backend_->currentData().toString() == "cuda";
  check_->setEnabled(cuda);
  timeKernels_->setEnabled(cuda);
  if (!cuda) {
    note_->setText(
        "Runs every op on the CPU with the dtypes' rounding (the oracle of "
        "the GPU tests). Large inputs take a while.");
    run_->setEnabled(true);
    return;
  }
  if (auto why = cudaUnavailable()) {
    note_->setText("<b>no GPU</b>: " + QString::fromStdString(*why).toHtmlEscaped() +
                   ". Use the cpu backend on this machine.");
    run_->setEnabled(false);
  } else {
    note_->setText("Runs on cuda:0 through NVRTC-compiled kernels.");
    run_->setEnabled(true);
  }
}

void RunPanel::startRun() {
  RunRequest request;
  request.compile = currentRequest_();
  request.backend = backend_->currentData().toString().toStdString();
  request.seed = static_cast<uint64_t>(seed_->value());
  request.check = check_->isChecked();
  request.timeKernels = timeKernels_->isChecked();
  const quint64 generation = ++generation_;
  output_->setPlainText("running on " + backend_->currentText() + "...");
  run_->setEnabled(false);
  auto* watcher = new QFutureWatcher<RunResult>(this);
  connect(watcher, &QFutureWatcher<RunResult>::finished, this, [this, watcher, generation] {
    const RunResult result = watcher->result();
    watcher->deleteLater();
    if (generation != generation_) return;
    updateBackendNote();
    QStringList lines;
    if (result.error) {
      lines << "error: " + QString::fromStdString(*result.error);
    } else {
      for (const auto& line : result.lines) lines << QString::fromStdString(line);
      lines << QString("time: %1 ms").arg(result.milliseconds, 0, 'f', 3);
      if (result.kernelLaunches >= 0) lines << QString("launches: %1").arg(result.kernelLaunches);
    }
    output_->setPlainText(lines.join("\n"));
    if (result.kernelFigures) emit kernelsTimed(*result.kernelFigures);
    emit runFinished(!result.error && !result.checkFailed);
  });
  watcher->setFuture(
      QtConcurrent::run(backgroundJobs(), [request] { return runFusionJob(request); }));
}

}  // namespace fuserlab::gui
