// MainWindow's menus and file habits: open (dialog, command line, drag and
// drop), recent files, paste from the clipboard, examples, save and save as
// with a modified marker and a question before unsaved edits are replaced,
// export, shortcuts and remembered settings.
#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextDocument>

#include "app/gui/compare_view.h"
#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/options_panel.h"
#include "app/gui/run_panel.h"
#include "app/gui/script_editor.h"
#include "core/passes/pipeline.h"

namespace fuserlab::gui {
namespace {

constexpr int kMaxRecentFiles = 10;

QString examplesDirectory() {
  const QString fromEnv = qEnvironmentVariable("FUSERLAB_EXAMPLES");
  if (!fromEnv.isEmpty()) return fromEnv;
  const QString installed = QCoreApplication::applicationDirPath() + "/../share/fuserlab/examples";
  if (QFileInfo::exists(installed)) return installed;
  return QStringLiteral(FUSERLAB_EXAMPLES_DIR);
}

}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::openDialog);
  recentMenu_ = file->addMenu("Open &Recent");
  file->addAction("&Paste script from clipboard", QKeySequence("Ctrl+Shift+V"), this,
                  &MainWindow::pasteFromClipboard);
  file->addAction("&Save", QKeySequence::Save, this, [this] { save(); });
  file->addAction("Save &As...", QKeySequence("Ctrl+Shift+S"), this, [this] { saveAs(); });
  file->addSeparator();
  file->addAction("&Export report JSON...", QKeySequence("Ctrl+E"), this,
                  &MainWindow::exportReportDialog);
  file->addAction("Export &segment as script...", this, &MainWindow::exportSegmentDialog);
  file->addAction("Export &graph (SVG, PNG, DOT)...", QKeySequence("Ctrl+Shift+E"), this,
                  &MainWindow::exportGraphDialog);
  file->addAction("Load &metrics (bench --json)...", this, &MainWindow::loadMetricsDialog);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  buildRecentMenu();

  QMenu* examples = menuBar()->addMenu("E&xamples");
  const QDir dir(examplesDirectory());
  const QStringList scripts = dir.entryList({"*.py"}, QDir::Files, QDir::Name);
  if (scripts.isEmpty()) {
    examples->addAction("(no examples found in " + dir.path() + ")")->setEnabled(false);
  }
  for (const QString& name : scripts) {
    const QString path = dir.filePath(name);
    examples->addAction(name, this, [this, path] { openFile(path); });
  }

  QMenu* compile = menuBar()->addMenu("&Compile");
  compile->addAction("&Recompile", QKeySequence("F5"), this, &MainWindow::recompile);
  compile->addAction("&Run", QKeySequence("Ctrl+R"), this, [this] {
    tabs_->setCurrentWidget(run_);
    run_->startRun();
  });
  compile->addAction("&Compare option sets", QKeySequence("Ctrl+K"), this,
                     [this] { tabs_->setCurrentWidget(compare_); });
  compile->addAction("&Next segment", QKeySequence("Ctrl+]"), this, [this] {
    const auto snapshot = service_->latest();
    if (snapshot && snapshot->report && !snapshot->report->segments.empty()) {
      selectSegment((selected_ + 1) % static_cast<int>(snapshot->report->segments.size()));
    }
  });
  compile->addAction("&Previous segment", QKeySequence("Ctrl+["), this, [this] {
    const auto snapshot = service_->latest();
    if (snapshot && snapshot->report && !snapshot->report->segments.empty()) {
      const int n = static_cast<int>(snapshot->report->segments.size());
      selectSegment((selected_ + n - 1) % n);
    }
  });

  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("&Fit graph", QKeySequence("Ctrl+0"), graph_, &GraphView::fit);
  view->addAction("&Find in graph", QKeySequence::Find, this, [this] {
    if (auto* search = graph_->findChild<QLineEdit*>("graphSearch")) search->setFocus();
  });
  view->addAction("Find &next", QKeySequence::FindNext, graph_, &GraphView::searchNext);
  view->addAction("Find &previous", QKeySequence::FindPrevious, graph_, &GraphView::searchPrevious);
  view->addAction("&Collapse or expand segments", QKeySequence("Ctrl+L"), this,
                  [this] { graph_->setCollapsed(!graph_->collapsed()); });
  view->addSeparator();
  view->addAction(graph_->producerAction());
  view->addAction(graph_->consumerAction());

  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&About FuserLab", this, [this] {
    QMessageBox::about(
        this, "About FuserLab",
        "<b>FuserLab</b>: a fusion compiler workbench.<p>FuserLab's code is Apache-2.0. "
        "This GUI links Qt (LGPL-3) and Qt Charts (GPL-3): a binary distribution of the "
        "GUI follows GPL-3.");
  });
}

void MainWindow::buildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& path : files) {
    recentMenu_->addAction(path, this, [this, path] { openFile(path); });
  }
  recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue("recentFiles", files);
  buildRecentMenu();
}

void MainWindow::pasteFromClipboard() {
  const QString text = QApplication::clipboard()->text();
  if (text.trimmed().isEmpty()) {
    statusBar()->showMessage("the clipboard holds no text", 4000);
    return;
  }
  if (!confirmDiscard()) return;
  file_.clear();
  setScript(text, "<pasted>");
  // No file holds it: it counts as unsaved until it is saved.
  savedCharacters_ = -1;
  updateModified();
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open a fusion script", file_.isEmpty() ? examplesDirectory() : file_,
      "FusionDefinition scripts (*.py);;All files (*)");
  if (!path.isEmpty()) openFile(path);
}

MainWindow::FilePrompts MainWindow::dialogPrompts(QWidget* parent) {
  FilePrompts prompts;
  prompts.saveChanges = [parent](const QString& name) {
    return QMessageBox::warning(parent, "Unsaved changes",
                                QString("The script %1 has changes that are not saved.").arg(name),
                                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                QMessageBox::Save);
  };
  prompts.savePath = [parent](const QString& suggested) {
    return QFileDialog::getSaveFileName(parent, "Save the script", suggested,
                                        "FusionDefinition scripts (*.py);;All files (*)");
  };
  prompts.saveFailed = [parent](const QString& message) {
    QMessageBox::critical(parent, "The script is not saved", message);
  };
  return prompts;
}

void MainWindow::setFilePrompts(const FilePrompts& prompts) {
  if (prompts.saveChanges) prompts_.saveChanges = prompts.saveChanges;
  if (prompts.savePath) prompts_.savePath = prompts.savePath;
  if (prompts.saveFailed) prompts_.saveFailed = prompts.saveFailed;
}

bool MainWindow::isExample(const QString& path) {
  const QString examples = QDir(examplesDirectory()).canonicalPath();
  return !examples.isEmpty() && QFileInfo(path).canonicalPath() == examples;
}

bool MainWindow::confirmDiscard() {
  if (!modified_) return true;
  const QString name =
      displayName_.isEmpty() ? QString("(untitled)") : QFileInfo(displayName_).fileName();
  switch (prompts_.saveChanges(name)) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

bool MainWindow::save() { return savePath_.isEmpty() ? saveAs() : writeScript(savePath_); }

bool MainWindow::saveAs() {
  // An example is offered under its name in the home folder, not over itself.
  QString suggested = savePath_;
  if (suggested.isEmpty()) {
    suggested =
        QDir::home().filePath(file_.isEmpty() ? QString("fusion.py") : QFileInfo(file_).fileName());
  }
  const QString path = prompts_.savePath(suggested);
  if (path.isEmpty()) return false;
  return writeScript(path);
}

bool MainWindow::writeScript(const QString& path) {
  const QString text = editor_->toPlainText();
  const QByteArray bytes = text.toUtf8();
  // QSaveFile writes beside the file and renames over it on commit: a
  // failed write leaves the old file whole.
  QSaveFile out(path);
  QString error;
  if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
    error = out.errorString();
  } else if (out.write(bytes) != bytes.size()) {
    error = out.errorString();
    out.cancelWriting();
  } else if (!out.commit()) {
    error = out.errorString();
  }
  if (!error.isEmpty()) {
    const QString message =
        QString("Cannot write %1: %2. The script is not saved.").arg(path, error);
    statusBar()->showMessage(message, 10000);
    prompts_.saveFailed(message);
    return false;
  }
  file_ = QFileInfo(path).absoluteFilePath();
  savePath_ = file_;
  displayName_ = path;
  markSaved(text);
  updateTitle();
  addRecentFile(file_);
  statusBar()->showMessage("saved " + file_, 4000);
  return true;
}

void MainWindow::markSaved(const QString& text) {
  savedText_ = text;
  savedCharacters_ = editor_->document()->characterCount();
  editor_->document()->setModified(false);
  updateModified();
}

void MainWindow::updateModified() {
  // The length first: typing changes it, and comparing it costs nothing
  // where comparing a long script's text would on every key.
  const QTextDocument* document = editor_->document();
  modified_ = savedCharacters_ < 0 || document->characterCount() != savedCharacters_ ||
              editor_->toPlainText() != savedText_;
  editor_->document()->setModified(modified_);
  setWindowModified(modified_);
}

void MainWindow::updateTitle() {
  QString name = displayName_.isEmpty() ? QString() : QFileInfo(displayName_).fileName();
  name.replace("[*]", "[*][*]");  // a literal "[*]" in a file name
  setWindowTitle(name.isEmpty() ? QString("FuserLab[*]") : QString("%1[*] - FuserLab").arg(name));
}

void MainWindow::exportReportDialog() {
  const QString path = QFileDialog::getSaveFileName(this, "Export the compile report",
                                                    "report.json", "JSON (*.json)");
  if (path.isEmpty()) return;
  QString error;
  if (exportReportJson(path, &error)) {
    statusBar()->showMessage("wrote " + path, 5000);
    return;
  }
  statusBar()->showMessage("The report is not exported: " + error, 10000);
  QMessageBox::warning(this, "Export the compile report",
                       "The report is not exported.\n\n" + error);
}

void MainWindow::exportGraphDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, "Export the segmented graph", "graph.svg",
                                   "SVG (*.svg);;PNG (*.png);;Graphviz DOT (*.dot)");
  if (path.isEmpty()) return;
  QString error;
  if (graph_->exportTo(path, &error)) {
    statusBar()->showMessage("wrote " + path, 5000);
    return;
  }
  statusBar()->showMessage("The graph is not exported: " + error, 10000);
  QMessageBox::warning(this, "Export the graph", "The graph is not exported.\n\n" + error);
}

void MainWindow::loadMetricsDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Load metrics: a file of fuserlab-cli bench --json", {}, "JSON (*.json);;All (*)");
  if (path.isEmpty()) return;
  QString error;
  if (loadMetrics(path, &error)) {
    statusBar()->showMessage("metrics from " + path + " on the graph", 5000);
    return;
  }
  statusBar()->showMessage("No metrics loaded: " + error, 10000);
  QMessageBox::warning(this, "Load metrics", "No metrics loaded.\n\n" + error);
}

void MainWindow::exportSegmentDialog() {
  const int segment = std::max(selected_, 0);
  const QString path =
      QFileDialog::getSaveFileName(this, QString("Export segment %1 as a script").arg(segment),
                                   QString("segment_%1.py").arg(segment), "Python (*.py)");
  if (path.isEmpty()) return;
  QString error;
  if (exportSegmentScript(segment, path, &error)) {
    statusBar()->showMessage(QString("wrote segment %1 to %2").arg(segment).arg(path), 5000);
    return;
  }
  statusBar()->showMessage("The segment is not exported: " + error, 10000);
  QMessageBox::warning(this, "Export segment as script",
                       "The segment is not exported.\n\n" + error);
}

void MainWindow::restoreSettings() {
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  // Where the docks are and whether they show (by their object names).
  restoreState(settings.value("window/state").toByteArray());
  CompileSettings compile = options_->settings();
  try {
    // The what-if pass switches turned off last time; a name this version
    // does not know is dropped.
    for (const QString& pass : settings.value("options/disabledPasses").toStringList()) {
      if (passes::isPassName(pass.toStdString())) compile.options.disablePass(pass.toStdString());
    }
    const QString device = settings.value("options/device").toString();
    if (!device.isEmpty()) compile.device = device.toStdString();
    const QString upcast = settings.value("options/upcast").toString();
    if (!upcast.isEmpty()) compile.options.set("upcast", upcast.toStdString());
    const QString bookend = settings.value("options/bookend").toString();
    if (!bookend.isEmpty()) compile.options.set("bookend", bookend.toStdString());
  } catch (const std::exception&) {
    // A setting from another version: keep the defaults.
  }
  options_->setSettings(compile);
  const QString database = settings.value("database/path").toString();
  if (!database.isEmpty()) database_->openDatabase(database);
}

namespace {

// Per file, the input sizes given in the What-if dock, most recent first.
constexpr const char* kInputsKey = "options/inputsByFile";
constexpr int kMaxRememberedInputs = 200;

}  // namespace

QString MainWindow::rememberedInputs(const QString& file) {
  return QSettings().value(kInputsKey).toMap().value(file).toString();
}

void MainWindow::rememberInputs() {
  if (file_.isEmpty()) return;
  QSettings settings;
  QVariantMap inputs = settings.value(kInputsKey).toMap();
  const QString text = QString::fromStdString(options_->settings().inputs);
  if (text.isEmpty()) {
    inputs.remove(file_);
  } else {
    inputs[file_] = text;
  }
  // Bounded: other files go, first by name, once there are too many.
  for (auto it = inputs.begin(); inputs.size() > kMaxRememberedInputs && it != inputs.end();) {
    it = it.key() == file_ ? std::next(it) : inputs.erase(it);
  }
  settings.setValue(kInputsKey, inputs);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!confirmDiscard()) {
    event->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  const CompileSettings compile = options_->settings();
  QStringList disabled;
  for (const std::string& pass : compile.options.disabledPasses) {
    disabled << QString::fromStdString(pass);
  }
  settings.setValue("options/disabledPasses", disabled);
  settings.setValue("options/device", QString::fromStdString(compile.device));
  settings.setValue(
      "options/upcast",
      QString::fromStdString(std::string(segmenter::toString(compile.options.upcast))));
  settings.setValue("options/bookend",
                    QString::fromStdString(std::string(passes::toString(compile.options.bookend))));
  settings.setValue("database/path", database_->path());
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) {
      openFile(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
  }
}

}  // namespace fuserlab::gui
