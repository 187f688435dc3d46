// MainWindow: the workbench. The script editor with its problems pane; the
// segmented graph, the segment inspector, the passes' rewrites and the generated CUDA of the
// selected segment; the what-if switches (a dock) that recompile off the GUI
// thread; compare, run, database and tuning tabs. One segment is "selected"
// for the whole window: choosing it in any view selects it in all.
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <functional>

#include "app/gui/compile_service.h"

class QComboBox;
class QLabel;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QTabWidget;
class QTimer;
class QTreeView;

namespace fuserlab::gui {

class CompareView;
class DatabasePanel;
class DecisionsView;
class GraphView;
class MetricsCollector;
class OptionsPanel;
class PassesModel;
class ReportModel;
class RunPanel;
class ScriptEditor;
class TuningPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  //! Narrower than this, the docks give way to the editor and the graph.
  static constexpr int kWideWindow = 1300;
  ~MainWindow() override;

  //! The questions the window asks about unsaved edits, through functions a
  //! test can replace so no dialog opens.
  struct FilePrompts {
    //! Save, Discard or Cancel for the unsaved edits to the script `name`.
    std::function<QMessageBox::StandardButton(const QString& name)> saveChanges;
    //! The path to save the script to; empty to cancel.
    std::function<QString(const QString& suggested)> savePath;
    //! Tells that saving failed and why.
    std::function<void(const QString& message)> saveFailed;
  };
  //! Replaces the prompts that are set in `prompts`; the others stay dialogs.
  void setFilePrompts(const FilePrompts& prompts);

  //! Opens a script file and compiles it; false (with the error shown in the
  //! problems pane) if it cannot be read, or if the editor holds unsaved
  //! edits and the user cancels.
  bool openFile(const QString& path);
  //! Writes the editor's text to its file; asks for a path (as saveAs) when
  //! it has none or came from an example. False if not written.
  bool save();
  //! Asks for a path and writes the editor's text there; false if not written.
  bool saveAs();
  //! The editor's text differs from what was last loaded or saved.
  bool isScriptModified() const { return modified_; }
  //! The file save() writes to; empty for an example, pasted or new script.
  QString savePath() const { return savePath_; }
  //! Shows `text` as the script named `name`, unmodified and with no file for
  //! save() (which asks for one), and compiles it.
  void setScript(const QString& text, const QString& name);
  //! Compiles the editor's text now with the current switches.
  void recompile();
  //! The request the current editor text and switches make.
  CompileRequest currentRequest() const;

  void selectSegment(int id);
  //! Moves the editor's cursor to the script line that defines `value`
  //! (a report IR name), when one does.
  void showValueInEditor(const QString& value);
  //! Outlines the graph's nodes of the value script line `line` defines and
  //! selects the segment that computes it.
  void showLineInGraph(int line);
  //! Whether the views show an older compile than the script (dimmed).
  bool viewsStale() const { return stale_; }
  int selectedSegment() const { return selected_; }

  ScriptEditor* editor() const { return editor_; }
  DecisionsView* decisions() const { return decisions_; }
  OptionsPanel* options() const { return options_; }
  //! The definition picker of a script with several (hidden otherwise).
  QComboBox* fusionPicker() const { return fusionPicker_; }
  CompileService* service() const { return service_; }
  ReportModel* reportModel() const { return reportModel_; }
  PassesModel* passesModel() const { return passesModel_; }
  QTreeView* inspector() const { return inspector_; }
  GraphView* graph() const { return graph_; }
  QTreeView* passesView() const { return passesView_; }
  QPlainTextEdit* codeView() const { return code_; }
  QListWidget* problems() const { return problems_; }
  CompareView* compare() const { return compare_; }
  RunPanel* runPanel() const { return run_; }
  DatabasePanel* database() const { return database_; }
  TuningPanel* tuning() const { return tuning_; }
  QTabWidget* tabs() const { return tabs_; }
  QString currentFile() const { return file_; }

  //! Reads a `fuserlab-cli bench --json` file and shows its kernel times on
  //! the graph (File > Load metrics...); false with why in `error`.
  bool loadMetrics(const QString& path, QString* error = nullptr);
  MetricsCollector* metricsCollector() const { return metrics_; }

  //! Writes the last report as JSON; false if there is none or the write
  //! failed (a full disk, a pipe without a reader), with why in `error`.
  bool exportReportJson(const QString& path, QString* error = nullptr);
  //! Writes segment `segment` of the last compile as a standalone script
  //! (File > Export segment as script); false with why in `error` if there
  //! is no such segment or the write failed.
  bool exportSegmentScript(int segment, const QString& path, QString* error = nullptr);

 signals:
  //! A snapshot was shown (after every finished compile).
  void snapshotShown();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void setViewsStale(bool stale);
  void buildMenus();
  void buildRecentMenu();
  void addRecentFile(const QString& path);
  void showSnapshot(SnapshotPtr snapshot);
  void showProblem(const QString& message, int line, int column);
  void updateCode();
  void pasteFromClipboard();
  void openDialog();
  //! True when nothing unsaved would be lost: no edits, or the user saved or
  //! discarded them.
  bool confirmDiscard();
  //! The dialogs that answer FilePrompts, on top of `parent`.
  static FilePrompts dialogPrompts(QWidget* parent);
  //! `path` lies in the examples folder, which Save never overwrites.
  static bool isExample(const QString& path);
  bool writeScript(const QString& path);
  void markSaved(const QString& text);
  void updateModified();
  void updateTitle();
  void exportReportDialog();
  void exportGraphDialog();
  void exportSegmentDialog();
  void loadMetricsDialog();
  void restoreSettings();
  //! The input sizes last given for script `file` (QSettings), "" if none.
  static QString rememberedInputs(const QString& file);
  //! Remembers the inputs field for the current file.
  void rememberInputs();

  ScriptEditor* editor_;
  OptionsPanel* options_;
  CompileService* service_;
  ReportModel* reportModel_;
  PassesModel* passesModel_;
  QTreeView* inspector_;
  GraphView* graph_;
  QTreeView* passesView_;
  QPlainTextEdit* code_;
  QListWidget* problems_;
  CompareView* compare_;
  RunPanel* run_;
  DatabasePanel* database_;
  TuningPanel* tuning_;
  DecisionsView* decisions_;
  MetricsCollector* metrics_;
  QTabWidget* tabs_;
  QLabel* statusLabel_;
  //! Which definition of a script with several is compiled; hidden for one.
  QComboBox* fusionPicker_;
  std::string fusionName_;  //!< empty: the one the script executes
  bool stale_ = false;
  QMenu* recentMenu_ = nullptr;
  QTimer* editDebounce_;
  QString file_;
  QString displayName_;
  QString savePath_;
  QString savedText_;  //!< the text as last loaded or saved
  int savedCharacters_ = 0;
  bool modified_ = false;
  FilePrompts prompts_;
  int selected_ = -1;
  bool loading_ = false;
};

}  // namespace fuserlab::gui
