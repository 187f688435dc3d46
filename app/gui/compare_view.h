// CompareView: the same script compiled under two option sets, side by side:
// segment and kernel counts, then the segments paired by what they compute
// (report_diff.h), each with its scheduler, exprs and every params and
// properties field on its own row, changed fields highlighted; below, both
// segmented graphs with added (green), removed (grey) and rescheduled
// (orange) segments outlined. Side A can be pinned as a baseline: it keeps
// its compile while the script and B change. Both sides compile off the GUI
// thread; it opens on seed 000's question: upcast=privatize (A) vs forward.
#pragma once

#include <QWidget>

#include "app/gui/compile_service.h"

class QCheckBox;
class QLabel;
class QTableWidget;

namespace fuserlab::gui {

class GraphView;
class OptionsPanel;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  //! Compiles `request` under side A's and side B's settings (the request's
  //! own settings give the device and database both sides start from).
  void setRequest(const CompileRequest& request);
  OptionsPanel* sideA() const { return a_; }
  OptionsPanel* sideB() const { return b_; }
  QTableWidget* table() const { return table_; }
  //! The number of rows that differ in the last comparison.
  int differences() const { return differences_; }
  SnapshotPtr snapshotA() const { return baseline_ ? baseline_ : serviceA_->latest(); }
  SnapshotPtr snapshotB() const { return serviceB_->latest(); }
  GraphView* graphA() const { return graphA_; }
  GraphView* graphB() const { return graphB_; }
  //! Keeps side A's current compile as the baseline (true) or lets A
  //! recompile with the script again (false).
  void setBaselinePinned(bool pinned);
  bool baselinePinned() const { return baseline_ != nullptr; }
  //! Writes side A's compile (the pinned baseline, if any) to `path` as a
  //! baseline file (compare_baseline.h); false with why in `error`.
  bool saveBaseline(const QString& path, QString* error = nullptr);
  //! Reads a baseline file and pins it as side A: B, compiled from the
  //! script now, is compared with it. False with why in `error`.
  bool loadBaseline(const QString& path, QString* error = nullptr);
  //! The loaded baseline file's name; empty when A is not from a file.
  QString baselineFile() const { return baselineFile_; }

 signals:
  void compared();

 private:
  void recompile();
  void refresh();

  OptionsPanel* a_;
  OptionsPanel* b_;
  CompileService* serviceA_;
  CompileService* serviceB_;
  QTableWidget* table_;
  QLabel* summary_;
  QCheckBox* pin_;
  GraphView* graphA_;
  GraphView* graphB_;
  SnapshotPtr baseline_;
  QString baselineFile_;
  QString baselineSettings_;
  CompileRequest request_;
  bool haveRequest_ = false;
  int differences_ = 0;
};

}  // namespace fuserlab::gui
