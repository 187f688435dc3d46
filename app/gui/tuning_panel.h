// TuningPanel: tunes one segment of the current compile. Pick the segment,
// the strategy (exhaustive, random, coordinate), a budget and a GPU; "Dry
// run" lists the search space (variants and their params, which the
// strategy would measure) without a GPU; "Start" runs the sweep off the GUI
// thread, with a progress bar, Cancel (the tuner's atomic flag: it stops
// before the next variant), a live plot of every variant's median time and
// the winner highlighted. Measurements and the winner go to the Database
// tab's file (the tuner stores them), after which databaseUpdated() fires.
// Without a GPU the panel says so and only the dry run is enabled.
#pragma once

#include <QFutureWatcher>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <functional>
#include <map>
#include <memory>

#include "app/gui/compile_service.h"
#include "app/gui/tune_job.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fuserlab::gui {

class TuningPlot;

class TuningPanel : public QWidget {
  Q_OBJECT
 public:
  //! `currentRequest` gives the script and switches, `databasePath` the
  //! Database tab's file, both read when a job starts.
  TuningPanel(std::function<CompileRequest()> currentRequest, std::function<QString()> databasePath,
              QWidget* parent = nullptr);
  ~TuningPanel() override;

  //! Lists the snapshot's tunable segments.
  void setSnapshot(SnapshotPtr snapshot);
  //! Replaces the runner (a fake in tests) and the GPUs it offers.
  void setRunnerFactory(RunnerFactory factory, const QStringList& gpus);

  //! The executable started as the tuning worker (`EXE --tune-worker ...`);
  //! default: this application.
  void setWorkerExecutable(const QString& path) { workerExecutable_ = path; }

  bool busy() const { return sweep_ != nullptr || dry_ != nullptr; }
  //! The cancel flag of the running sweep (null when none runs).
  const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }

  QComboBox* segmentBox() const { return segment_; }
  QComboBox* strategyBox() const { return strategy_; }
  QSpinBox* budgetBox() const { return budget_; }
  QComboBox* gpuBox() const { return gpu_; }
  QPushButton* dryRunButton() const { return dryRun_; }
  QPushButton* startButton() const { return start_; }
  QPushButton* cancelButton() const { return cancelButton_; }
  QProgressBar* progress() const { return progress_; }
  QLabel* note() const { return note_; }
  QLabel* status() const { return status_; }
  QTableWidget* table() const { return table_; }
  TuningPlot* plot() const { return plot_; }

 public slots:
  void startDryRun();
  void startSweep();
  void cancelSweep();

 signals:
  void dryRunFinished(bool ok);
  void sweepFinished(bool ok);
  //! A sweep wrote to the database (the browser should refresh).
  void databaseUpdated();
  //! A sweep of segment `segment` decided: its winner's median (0 if it was
  //! not measured in this sweep) and speedup over the heuristic's params.
  void segmentTuned(int segment, double medianMicroseconds, double speedup);

 private:
  TuneRequest makeRequest() const;
  void updateButtons();
  void showError(const QString& message);
  void showSpace(const SpaceTable& table);
  void showPoint(const VariantPoint& point);
  void showSummary(const TuneSummary& summary);

  std::function<CompileRequest()> currentRequest_;
  std::function<QString()> databasePath_;
  RunnerFactory factory_;
  QStringList gpus_;
  QString workerExecutable_;
  QComboBox* segment_;
  QComboBox* strategy_;
  QSpinBox* budget_;
  QSpinBox* seed_;
  QComboBox* gpu_;
  QPushButton* dryRun_;
  QPushButton* start_;
  QPushButton* cancelButton_;
  QProgressBar* progress_;
  QLabel* note_;
  QLabel* status_;
  QTableWidget* table_;
  TuningPlot* plot_;
  std::map<size_t, int> rowOf_;  //!< variant id -> table row
  int medianColumn_ = 0;
  QFutureWatcher<DryRunResult>* dry_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<TuneSummary>* sweep_ = nullptr;
};

}  // namespace fuserlab::gui
