// MainWindow's menus and file habits: open (dialog, command line, drag and
// drop), recent files, paste from the clipboard, examples, save, export,
// shortcuts and remembered settings.
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
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "app/gui/compare_view.h"
#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/options_panel.h"
#include "app/gui/run_panel.h"
#include "app/gui/script_editor.h"

namespace fuserlab::gui {
namespace {

constexpr int kMaxRecentFiles = 10;

QString examplesDirectory() {
  const QString fromEnv = qEnvironmentVariable("FUSERLAB_EXAMPLES");
  if (!fromEnv.isEmpty()) return fromEnv;
  const QString installed =
      QCoreApplication::applicationDirPath() + "/../share/fuserlab/examples";
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
  file->addAction("&Save script as...", QKeySequence::Save, this, &MainWindow::saveScript);
  file->addSeparator();
  file->addAction("&Export report JSON...", QKeySequence("Ctrl+E"), this,
                  &MainWindow::exportReportDialog);
  file->addAction("Export &graph (SVG, PNG, DOT)...", QKeySequence("Ctrl+Shift+E"), this,
                  &MainWindow::exportGraphDialog);
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
  view->addAction("&Collapse or expand segments", QKeySequence("Ctrl+L"), this,
                  [this] { graph_->setCollapsed(!graph_->collapsed()); });

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
  file_.clear();
  setScript(text, "<pasted>");
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open a fusion script", file_.isEmpty() ? examplesDirectory() : file_,
      "FusionDefinition scripts (*.py);;All files (*)");
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::saveScript() {
  const QString path = QFileDialog::getSaveFileName(
      this, "Save the script", file_.isEmpty() ? "fusion.py" : file_, "Python (*.py)");
  if (path.isEmpty()) return;
  QFile out(path);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    statusBar()->showMessage("cannot write " + path + ": " + out.errorString(), 6000);
    return;
  }
  out.write(editor_->toPlainText().toUtf8());
  file_ = QFileInfo(path).absoluteFilePath();
  displayName_ = path;
  addRecentFile(file_);
}

void MainWindow::exportReportDialog() {
  const QString path = QFileDialog::getSaveFileName(this, "Export the compile report",
                                                    "report.json", "JSON (*.json)");
  if (path.isEmpty()) return;
  statusBar()->showMessage(exportReportJson(path) ? "wrote " + path
                                                  : "no report to export to " + path,
                           5000);
}

void MainWindow::exportGraphDialog() {
  const QString path = QFileDialog::getSaveFileName(
      this, "Export the segmented graph", "graph.svg",
      "SVG (*.svg);;PNG (*.png);;Graphviz DOT (*.dot)");
  if (path.isEmpty()) return;
  QString error;
  statusBar()->showMessage(graph_->exportTo(path, &error) ? "wrote " + path : error, 5000);
}

void MainWindow::restoreSettings() {
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  CompileSettings compile = options_->settings();
  try {
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

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  const CompileSettings compile = options_->settings();
  settings.setValue("options/device", QString::fromStdString(compile.device));
  settings.setValue("options/upcast",
                    QString::fromStdString(std::string(passes::toString(compile.options.upcast))));
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
