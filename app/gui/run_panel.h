// RunPanel: runs the current script on a backend (the CPU reference, or a
// CUDA GPU with an optional check against the reference and an optional
// timing of its kernels from CUPTI's records) off the GUI thread and shows
// each output's summary, the launch count and the time. Without a
// GPU the cuda backend says so and the panel stays usable on the CPU.
#pragma once

#include <QWidget>
#include <functional>

#include "app/gui/run_job.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace fuserlab::gui {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  //! `currentRequest` gives the script and settings at the time Run is pressed.
  RunPanel(std::function<CompileRequest()> currentRequest, QWidget* parent = nullptr);

  QComboBox* backendBox() const { return backend_; }
  QPushButton* runButton() const { return run_; }
  QPlainTextEdit* output() const { return output_; }
  QCheckBox* timeKernelsBox() const { return timeKernels_; }

 public slots:
  void startRun();

 signals:
  void runFinished(bool ok);
  //! A GPU run timed its kernels ("time the kernels").
  void kernelsTimed(const fuserlab::gui::KernelFigures& figures);

 private:
  void updateBackendNote();

  std::function<CompileRequest()> currentRequest_;
  QComboBox* backend_;
  QSpinBox* seed_;
  QCheckBox* check_;
  QCheckBox* timeKernels_;
  QPushButton* run_;
  QLabel* note_;
  QPlainTextEdit* output_;
  quint64 generation_ = 0;
};

}  // namespace fuserlab::gui
