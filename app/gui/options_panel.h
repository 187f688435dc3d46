// OptionsPanel: the what-if switches: device (the built-in table and this
// machine's GPUs), upcast strategy, bookending, each pass on or off (and
// refine_reshaped_reductions, on by default, off), and the input sizes. Every change emits
// settingsChanged() at once; the owner recompiles off the GUI thread.
#pragma once

#include <QWidget>
#include <map>

#include "app/gui/compile_job.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace fuserlab::gui {

class OptionsPanel : public QWidget {
  Q_OBJECT
 public:
  //! `compact` lays the switches out in one row (the compare view's header).
  explicit OptionsPanel(QWidget* parent = nullptr, bool compact = false);

  CompileSettings settings() const;
  //! Shows `settings` without emitting settingsChanged.
  void setSettings(const CompileSettings& settings);

  QComboBox* deviceBox() const { return device_; }
  QComboBox* upcastBox() const { return upcast_; }
  QComboBox* bookendBox() const { return bookend_; }
  //! The input sizes field (the CLI's --inputs form; empty: the script's).
  QLineEdit* inputsEdit() const { return inputs_; }
  //! Shows `inputs` without emitting settingsChanged.
  void setInputs(const QString& inputs);
  QCheckBox* passBox(const QString& pass) const;
  //! refine_reshaped_reductions (on by default, compile_options.h).
  QCheckBox* refineBox() const { return refine_; }

 signals:
  void settingsChanged();

 private:
  QComboBox* device_;
  QComboBox* upcast_;
  QComboBox* bookend_;
  QLineEdit* inputs_;
  std::map<QString, QCheckBox*> passes_;
  QCheckBox* refine_ = nullptr;
  CompileSettings base_;  //!< what the panel does not show (database path)
  bool quiet_ = false;
};

}  // namespace fuserlab::gui
