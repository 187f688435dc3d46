#include "app/gui/metrics_collector.h"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/background_jobs.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"

namespace fuserlab::gui {
namespace {

// A bench file is a few KiB; this bounds what a wrong file can cost.
constexpr size_t kMaxBenchBytes = size_t{16} << 20;

}  // namespace

MetricsCollector::MetricsCollector(QObject* parent) : QObject(parent) {}

MetricsCollector::~MetricsCollector() {
  // NVRTC must not be compiling while the process tears its libraries down
  // (a job left running at exit crashed inside nvrtcCompileProgram).
  for (auto* watcher : findChildren<QFutureWatcher<KernelUsage>*>()) watcher->waitForFinished();
}

bool MetricsCollector::haveFigures() const {
  return kernels_.has_value() || !sweeps_.empty() ||
         (snapshot_ && !snapshot_->tunedSpeedups.empty());
}

SegmentMetricsMap MetricsCollector::setSnapshot(SnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  if (haveFigures()) startUsageJob();
  return metrics();
}

bool MetricsCollector::loadBench(const QString& path, QString* error) {
  try {
    const std::string text =
        ir::readUserFile(QFile::encodeName(path).toStdString(), "metrics file", kMaxBenchBytes);
    kernels_ =
        kernelFiguresFromBench(report::Json::parse(text), QFileInfo(path).fileName().toStdString());
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromUtf8(failure.what());
    return false;
  }
  startUsageJob();
  emit changed();
  return true;
}

void MetricsCollector::setKernelFigures(const KernelFigures& figures) {
  kernels_ = figures;
  startUsageJob();
  emit changed();
}

void MetricsCollector::addSweep(int segment, double medianMicroseconds, double speedup) {
  if (!snapshot_ || !snapshot_->report) return;
  for (const auto& s : snapshot_->report->segments) {
    if (s.id == segment) sweeps_[segment] = {s.scheduler, medianMicroseconds, speedup};
  }
  startUsageJob();
  emit changed();
}

void MetricsCollector::clear() {
  kernels_.reset();
  sweeps_.clear();
}

SegmentMetricsMap MetricsCollector::metrics() const {
  SegmentMetricsMap metrics;
  if (!snapshot_ || !snapshot_->report || !haveFigures()) return metrics;
  const report::CompileReport& report = *snapshot_->report;
  if (kernels_) addKernelFigures(*kernels_, report, metrics);
  for (const auto& [segment, speedup] : snapshot_->tunedSpeedups) {
    metrics[segment].tunedSpeedup = speedup;
  }
  for (const auto& [segment, sweep] : sweeps_) {
    for (const auto& s : report.segments) {
      if (s.id != segment || s.scheduler != sweep.scheduler) continue;
      SegmentMetrics& m = metrics[segment];
      m.tunedSpeedup = sweep.speedup;
      // A bench or run time of the whole fusion's kernel wins over the sweep's.
      if (!m.kernelMicroseconds && sweep.medianMicroseconds > 0) {
        m.kernelMicroseconds = sweep.medianMicroseconds;
      }
    }
  }
  if (usageOf_ == snapshot_) {
    for (const auto& [segment, usage] : usage_.bySegment) {
      SegmentMetrics& m = metrics[segment];
      m.registers = usage.registers;
      m.spillBytes = usage.spillStoreBytes + usage.spillLoadBytes;
    }
  }
  return metrics;
}

QString MetricsCollector::origin() const {
  QStringList parts;
  if (kernels_) parts << QString::fromStdString(kernels_->origin);
  if (!sweeps_.empty()) parts << "tuning sweep";
  if (snapshot_ && !snapshot_->tunedSpeedups.empty()) parts << "database";
  if (usageOf_ == snapshot_ && !usage_.bySegment.empty()) parts << "ptxas";
  return parts.join(", ");
}

void MetricsCollector::startUsageJob() {
  if (!snapshot_ || !snapshot_->report || usageOf_ == snapshot_) return;
  // One NVRTC job at a time: they share the pool with the compiles, and a
  // burst of edits must not queue one per keystroke. When the running one
  // ends, the newest snapshot gets the next.
  if (usageRunning_) return;
  const SnapshotPtr snapshot = snapshot_;
  const int computeCapability = reportComputeCapability(*snapshot->report);
  usageRunning_ = true;
  auto* watcher = new QFutureWatcher<KernelUsage>(this);
  connect(watcher, &QFutureWatcher<KernelUsage>::finished, this, [this, watcher, snapshot] {
    usage_ = watcher->result();
    usageOf_ = snapshot;
    watcher->deleteLater();
    usageRunning_ = false;
    if (snapshot == snapshot_) {
      emit changed();
    } else if (haveFigures()) {
      startUsageJob();
    }
  });
  watcher->setFuture(QtConcurrent::run(backgroundJobs(), [snapshot, computeCapability] {
    return kernelUsageJob(snapshot->kernels, computeCapability);
  }));
}

}  // namespace fuserlab::gui
