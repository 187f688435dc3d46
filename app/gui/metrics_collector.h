// MetricsCollector: gathers what was measured of the current compile's
// segments for the graph's overlay: kernel times from a bench file or a GPU
// run, a tuning sweep's winner, the heuristics database's tuned speedups (in
// the snapshot) and registers and spills, which it asks NVRTC for off the
// GUI thread whenever there are figures to show. The figures are kept as
// they came (kernel names, segment and scheduler) and matched to each new
// snapshot, so a recompile keeps what still applies and drops the rest.
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <optional>

#include "app/gui/compile_service.h"
#include "app/gui/kernel_usage_job.h"
#include "app/gui/segment_metrics.h"

namespace fuserlab::gui {

class MetricsCollector : public QObject {
  Q_OBJECT
 public:
  explicit MetricsCollector(QObject* parent = nullptr);
  ~MetricsCollector() override;

  //! The snapshot the figures are matched to; returns its metrics now
  //! (registers and spills follow by changed() once NVRTC is done).
  SegmentMetricsMap setSnapshot(SnapshotPtr snapshot);
  //! Reads a `fuserlab-cli bench --json` file; false, with why in `error`,
  //! if it cannot be read or is not one.
  bool loadBench(const QString& path, QString* error = nullptr);
  void setKernelFigures(const KernelFigures& figures);
  //! A sweep of segment `segment` (of the current snapshot) decided.
  void addSweep(int segment, double medianMicroseconds, double speedup);
  //! Forgets every figure (another script); the next snapshot shows none.
  void clear();

  SegmentMetricsMap metrics() const;
  //! Where the figures came from: "bench.json, ptxas".
  QString origin() const;
  //! Whether an NVRTC job is running (one at a time).
  bool busy() const { return usageRunning_; }

 signals:
  void changed();

 private:
  bool haveFigures() const;
  void startUsageJob();

  struct Sweep {
    std::string scheduler;
    double medianMicroseconds = 0;
    double speedup = 0;
  };
  SnapshotPtr snapshot_;
  std::optional<KernelFigures> kernels_;
  std::map<int, Sweep> sweeps_;
  //! Registers and spills of `usageOf_`'s kernels.
  KernelUsage usage_;
  SnapshotPtr usageOf_;
  bool usageRunning_ = false;
};

}  // namespace fuserlab::gui
