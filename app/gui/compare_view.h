// CompareView: the same script compiled under two option sets, side by side:
// segment and kernel counts, and each segment's scheduler and properties,
// with every difference highlighted. Both sides compile off the GUI thread;
// it opens on seed 000's question: upcast=privatize (A) vs forward (B).
#pragma once

#include <QWidget>

#include "app/gui/compile_service.h"

class QLabel;
class QTableWidget;

namespace fuserlab::gui {

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
  SnapshotPtr snapshotA() const { return serviceA_->latest(); }
  SnapshotPtr snapshotB() const { return serviceB_->latest(); }

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
  CompileRequest request_;
  bool haveRequest_ = false;
  int differences_ = 0;
};

}  // namespace fuserlab::gui
