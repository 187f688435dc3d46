#include "app/gui/main_window.h"

#include "core/report/script_names.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGraphicsOpacityEffect>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBlock>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "app/gui/compare_view.h"
#include "app/gui/database_panel.h"
#include "app/gui/decisions_view.h"
#include "app/gui/graph_view.h"
#include "app/gui/metrics_collector.h"
#include "app/gui/options_panel.h"
#include "app/gui/passes_model.h"
#include "app/gui/report_model.h"
#include "app/gui/run_panel.h"
#include "app/gui/script_editor.h"
#include "app/gui/tuning_panel.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/output_file.h"

namespace fuserlab::gui {
namespace {

QTreeView* makeTree(QAbstractItemModel* model, const QString& name, QWidget* parent) {
  auto* tree = new QTreeView(parent);
  tree->setObjectName(name);
  tree->setModel(model);
  tree->setUniformRowHeights(true);
  tree->setAlternatingRowColors(true);
  tree->header()->setStretchLastSection(true);
  tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
  return tree;
}

// "file:12:5: ..." in a message without a structured location.
bool locationInMessage(const QString& message, int& line, int& column) {
  static const QRegularExpression pattern(R"(:(\d+):(\d+):)");
  const auto match = pattern.match(message);
  if (!match.hasMatch()) return false;
  line = match.captured(1).toInt();
  column = match.captured(2).toInt();
  return true;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      editor_(new ScriptEditor(this)),
      options_(new OptionsPanel(this)),
      service_(new CompileService(this)),
      reportModel_(new ReportModel(this)),
      passesModel_(new PassesModel(this)),
      inspector_(makeTree(reportModel_, "inspector", this)),
      graph_(new GraphView(this)),
      passesView_(makeTree(passesModel_, "passes", this)),
      code_(new QPlainTextEdit(this)),
      problems_(new QListWidget(this)),
      compare_(new CompareView(this)),
      run_(new RunPanel([this] { return currentRequest(); }, this)),
      database_(new DatabasePanel(this)),
      tuning_(new TuningPanel([this] { return currentRequest(); },
                              [this] { return database_->path(); }, this)),
      decisions_(new DecisionsView(this)),
      metrics_(new MetricsCollector(this)),
      tabs_(new QTabWidget(this)),
      statusLabel_(new QLabel(this)),
      fusionPicker_(new QComboBox(this)),
      editDebounce_(new QTimer(this)) {
  prompts_ = dialogPrompts(this);
  setWindowTitle("FuserLab[*]");
  setAcceptDrops(true);
  editor_->setObjectName("editor");
  code_->setObjectName("cuda");
  code_->setReadOnly(true);
  code_->setLineWrapMode(QPlainTextEdit::NoWrap);
  code_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  problems_->setObjectName("problems");
  inspector_->header()->resizeSection(0, 190);
  passesView_->header()->resizeSection(0, 170);

  // Left: the script over its problems. Right: the inspector over the tabs.
  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(editor_);
  left->addWidget(problems_);
  left->setStretchFactor(0, 5);
  left->setStretchFactor(1, 1);
  tabs_->addTab(code_, "CUDA");
  tabs_->addTab(passesView_, "Passes");
  tabs_->addTab(decisions_, "Decisions");
  tabs_->addTab(compare_, "Compare");
  tabs_->addTab(run_, "Run");
  tabs_->addTab(database_, "Database");
  tuning_->setObjectName("tuning");
  tabs_->addTab(tuning_, "Tuning");
  auto* middle = new QSplitter(Qt::Vertical, this);
  middle->addWidget(graph_);
  middle->addWidget(tabs_);
  middle->setStretchFactor(0, 3);
  middle->setStretchFactor(1, 2);
  auto* central = new QSplitter(Qt::Horizontal, this);
  central->addWidget(left);
  central->addWidget(middle);
  central->setStretchFactor(0, 2);
  central->setStretchFactor(1, 3);
  central->setSizes({400, 620});
  middle->setSizes({480, 320});
  left->setSizes({680, 120});
  setCentralWidget(central);

  // Right: the inspector over the what-if switches.
  auto* inspectorDock = new QDockWidget("Segment inspector", this);
  inspectorDock->setObjectName("inspectorDock");
  inspectorDock->setWidget(inspector_);
  addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
  auto* dock = new QDockWidget("What if", this);
  dock->setObjectName("whatIfDock");
  // Scrolled: the long pass names no longer hold the dock (and the window)
  // wide.
  auto* optionsScroll = new QScrollArea(this);
  optionsScroll->setWidget(options_);
  optionsScroll->setWidgetResizable(true);
  optionsScroll->setFrameShape(QFrame::NoFrame);
  dock->setWidget(optionsScroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  resizeDocks({inspectorDock, dock}, {520, 300}, Qt::Vertical);
  resizeDocks({inspectorDock}, {380}, Qt::Horizontal);
  statusBar()->addWidget(statusLabel_, 1);
  // A script of several FusionDefinitions: which one the views show.
  fusionPicker_->setObjectName("fusionPicker");
  fusionPicker_->setToolTip("the script defines several fusions: the one compiled and shown");
  fusionPicker_->setVisible(false);
  statusBar()->addPermanentWidget(fusionPicker_);
  connect(fusionPicker_, &QComboBox::activated, this, [this](int index) {
    fusionName_ = fusionPicker_->itemText(index).toStdString();
    recompile();
  });

  editDebounce_->setSingleShot(true);
  editDebounce_->setInterval(400);
  connect(editDebounce_, &QTimer::timeout, this, &MainWindow::recompile);
  connect(editor_, &QPlainTextEdit::textChanged, this, [this] {
    if (loading_) return;
    editDebounce_->start();
    updateModified();
  });
  connect(editor_, &ScriptEditor::fileDropped, this, &MainWindow::openFile);
  connect(options_, &OptionsPanel::settingsChanged, this, [this] {
    rememberInputs();
    recompile();
  });
  connect(database_, &DatabasePanel::databaseChanged, this, &MainWindow::recompile);
  connect(tuning_, &TuningPanel::databaseUpdated, database_, &DatabasePanel::refresh);
  // What was measured goes on the graph (the metrics overlay).
  connect(metrics_, &MetricsCollector::changed, this,
          [this] { graph_->setMetrics(metrics_->metrics(), metrics_->origin()); });
  connect(run_, &RunPanel::kernelsTimed, this, [this](const KernelFigures& figures) {
    metrics_->setKernelFigures(figures);
    graph_->setMetricsShown(true);
  });
  connect(tuning_, &TuningPanel::segmentTuned, this,
          [this](int segment, double medianMicroseconds, double speedup) {
            metrics_->addSweep(segment, medianMicroseconds, speedup);
            graph_->setMetricsShown(true);
          });
  connect(service_, &CompileService::started, this,
          [this] { statusLabel_->setText("compiling..."); });
  connect(service_, &CompileService::finished, this, &MainWindow::showSnapshot);
  connect(graph_, &GraphView::segmentClicked, this, [this](int id) {
    if (id != selected_) selectSegment(id);
  });
  // Selection sync with the editor: a node shows its script line, the
  // cursor's line outlines its values' nodes (issue 46).
  connect(graph_, &GraphView::valueClicked, this, &MainWindow::showValueInEditor);
  connect(decisions_, &DecisionsView::valueChosen, graph_, &GraphView::selectValue);
  connect(decisions_, &DecisionsView::segmentChosen, this, [this](int id) {
    if (id != selected_) selectSegment(id);
  });
  connect(editor_, &QPlainTextEdit::cursorPositionChanged, this,
          [this] { showLineInGraph(editor_->textCursor().blockNumber() + 1); });
  connect(inspector_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            const int id = reportModel_->segmentOf(current);
            if (id >= 0 && id != selected_) selectSegment(id);
          });
  connect(passesView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            const SnapshotPtr snapshot = reportModel_->snapshot();
            if (!snapshot || !snapshot->report) return;
            // The first segment that computes or reads a tensor the rewrite
            // names (both shown with the script's names).
            const report::ScriptNames shown(*snapshot->report);
            for (const QString& name : passesModel_->namesIn(current)) {
              const QRegularExpression word("\\b" + name + "\\b");
              for (const auto& segment : snapshot->report->segments) {
                for (const auto& expr : segment.exprs) {
                  if (word.match(QString::fromStdString(shown.rename(expr))).hasMatch()) {
                    if (segment.id != selected_) selectSegment(segment.id);
                    return;
                  }
                }
              }
            }
          });
  connect(problems_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const int line = item->data(Qt::UserRole).toInt();
    const int column = item->data(Qt::UserRole + 1).toInt();
    if (line <= 0) return;
    QTextCursor cursor(editor_->document()->findBlockByNumber(line - 1));
    cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, qMax(0, column - 1));
    editor_->setTextCursor(cursor);
    editor_->setFocus();
  });

  markSaved(QString());  // an empty editor has nothing to lose
  buildMenus();
  restoreSettings();
  resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  // A narrow window (a laptop's half screen, ~900 px) gives the editor and
  // the graph the room: the right-hand docks go to a fifth of the width,
  // down to what they need (the docks kept 380 px and left the editor 70).
  if (event->size().width() == event->oldSize().width() || width() >= kWideWindow) return;
  QList<QDockWidget*> docks;
  QList<int> widths;
  for (QDockWidget* dock : findChildren<QDockWidget*>()) {
    if (dockWidgetArea(dock) != Qt::RightDockWidgetArea || dock->isFloating()) continue;
    docks << dock;
    widths << std::max(dock->minimumSizeHint().width(), width() / 5);
  }
  if (!docks.isEmpty()) resizeDocks(docks, widths, Qt::Horizontal);
}

CompileRequest MainWindow::currentRequest() const {
  CompileRequest request;
  request.source = editor_->toPlainText().toStdString();
  request.fileName = displayName_.toStdString();
  request.fusionName = fusionName_;
  request.settings = options_->settings();
  if (database_->useForCompiling()) {
    request.settings.databasePath = database_->path().toStdString();
  }
  return request;
}

void MainWindow::recompile() {
  editDebounce_->stop();
  if (editor_->toPlainText().trimmed().isEmpty()) return;
  const CompileRequest request = currentRequest();
  service_->request(request);
  compare_->setRequest(request);
}

bool MainWindow::openFile(const QString& path) {
  // The CLI's reader: a regular file of at most kMaxScriptBytes. A named
  // pipe would block the GUI thread, /dev/zero would fill its memory.
  std::string text;
  try {
    text = ir::readUserFile(QFile::encodeName(path).toStdString(), "script", ir::kMaxScriptBytes);
  } catch (const UserError& error) {
    showProblem(QString::fromStdString(error.message()), 0, 0);
    return false;
  }
  // Read first: a file that cannot be read costs the edits nothing.
  if (!confirmDiscard()) return false;
  file_ = QFileInfo(path).absoluteFilePath();
  // The sizes this file was last compiled at (none: its inputs block).
  options_->setInputs(rememberedInputs(file_));
  addRecentFile(file_);
  // As QIODevice::Text read it: Windows line ends become '\n'.
  QString script = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
  script.replace("\r\n", "\n");
  setScript(script, path);
  savePath_ = isExample(file_) ? QString() : file_;
  return true;
}

void MainWindow::setScript(const QString& text, const QString& name) {
  displayName_ = name;
  savePath_.clear();
  loading_ = true;
  editor_->setPlainText(text);
  loading_ = false;
  markSaved(text);
  updateTitle();
  editor_->clearErrorMarker();
  selected_ = -1;
  metrics_->clear();  // measured on another script
  // Another script: the one it executes, until another is picked.
  fusionName_.clear();
  recompile();
}

void MainWindow::showProblem(const QString& message, int line, int column) {
  auto* item = new QListWidgetItem(
      line > 0 ? QString("line %1, column %2: %3").arg(line).arg(column).arg(message) : message,
      problems_);
  item->setData(Qt::UserRole, line);
  item->setData(Qt::UserRole + 1, column);
  item->setForeground(QColor(170, 0, 0));
  statusLabel_->setText(message.section('\n', 0, 0));
}

void MainWindow::setViewsStale(bool stale) {
  stale_ = stale;
  for (QWidget* view :
       std::initializer_list<QWidget*>{inspector_, passesView_, graph_, code_, decisions_}) {
    if (!stale) {
      view->setGraphicsEffect(nullptr);
      continue;
    }
    auto* dim = new QGraphicsOpacityEffect(view);
    dim->setOpacity(0.45);
    view->setGraphicsEffect(dim);
  }
}

void MainWindow::showSnapshot(SnapshotPtr snapshot) {
  problems_->clear();
  if (snapshot->definitions.size() > 1) {
    QStringList names;
    for (const std::string& name : snapshot->definitions) names << QString::fromStdString(name);
    QStringList shown;
    for (int i = 0; i < fusionPicker_->count(); ++i) shown << fusionPicker_->itemText(i);
    if (names != shown) {
      fusionPicker_->clear();
      fusionPicker_->addItems(names);
    }
    const int current = fusionPicker_->findText(QString::fromStdString(snapshot->fusionName));
    if (current >= 0) fusionPicker_->setCurrentIndex(current);
    fusionPicker_->setVisible(true);
  } else if (snapshot->ok() || snapshot->definitions.size() == 1) {
    fusionPicker_->setVisible(false);
  }
  const int previous = selected_;
  // A script that stops compiling while it is edited keeps the last compile
  // of the same file on screen, dimmed, with the error on top (issue 46):
  // blanking every view at each typing error lost the picture.
  const SnapshotPtr shown = reportModel_->snapshot();
  const bool keepLastGood =
      !snapshot->ok() && shown && shown->ok() && shown->fileName == snapshot->fileName;
  if (!keepLastGood) {
    tuning_->setSnapshot(snapshot);
    reportModel_->setSnapshot(snapshot);
    passesModel_->setSnapshot(snapshot);
    decisions_->setSnapshot(snapshot);
    // The figures that still apply, drawn with the new layout.
    graph_->setMetrics(metrics_->setSnapshot(snapshot), metrics_->origin(), false);
    graph_->setSnapshot(snapshot);
  }
  setViewsStale(keepLastGood);
  if (!snapshot->ok()) {
    const QString message = QString::fromStdString(*snapshot->error);
    int line = 0, column = 0;
    if (snapshot->errorLocation && snapshot->errorLocation->line > 0) {
      line = snapshot->errorLocation->line;
      column = snapshot->errorLocation->column;
    } else {
      locationInMessage(message, line, column);
    }
    if (line > 0) {
      editor_->setErrorMarker(line, column, message);
    } else {
      editor_->clearErrorMarker();
    }
    showProblem(message, line, column);
    if (keepLastGood) {
      statusLabel_->setText("the script does not compile (" + message.section('\n', 0, 0) +
                            "); showing its last compile, dimmed");
    } else {
      code_->setPlainText("// no code: the script did not compile\n// " + message);
      selected_ = -1;
    }
    emit snapshotShown();
    return;
  }
  editor_->clearErrorMarker();
  const report::CompileReport& report = *snapshot->report;
  statusLabel_->setText(QString("%1 on %2: %3 segments (%4 kernels, %5 kernel-free) in %6 ms  [%7]")
                            .arg(QString::fromStdString(snapshot->fusionName),
                                 QString::fromStdString(snapshot->deviceName))
                            .arg(report.segments.size())
                            .arg(report.kernelCount())
                            .arg(static_cast<int>(report.segments.size()) - report.kernelCount())
                            .arg(snapshot->milliseconds, 0, 'f', 1)
                            .arg(QString::fromStdString(options_->settings().summary())));
  QStringList hashes;
  for (const auto& hash : snapshot->segmentHashes) hashes << QString::fromStdString(hash);
  database_->setCurrentSegments(hashes);
  passesView_->expandAll();
  selected_ = -1;
  const int count = static_cast<int>(report.segments.size());
  selectSegment(previous >= 0 && previous < count ? previous : (count > 0 ? 0 : -1));
  emit snapshotShown();
}

void MainWindow::selectSegment(int id) {
  selected_ = id;
  const QModelIndex index = reportModel_->indexOfSegment(id);
  // Chosen outside the inspector (graph, menu, passes): the inspector turns
  // to the segment. The others fold away and its row goes to the top, so its
  // params are what shows; setCurrentIndex alone scrolled the still folded
  // row to the bottom edge and left the previous segment open above it
  // (issue 46 item 6). A row the user picked in the inspector stays put.
  const bool fromInspector = reportModel_->segmentOf(inspector_->currentIndex()) == id;
  if (index.isValid() && !fromInspector) {
    for (int row = 0; row < reportModel_->rowCount(); ++row) {
      const QModelIndex other = reportModel_->index(row, 0);
      if (other != index) inspector_->collapse(other);
    }
    inspector_->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  }
  if (index.isValid()) {
    inspector_->expand(index);
    for (int row = 0; row < reportModel_->rowCount(index); ++row) {
      const QModelIndex child = reportModel_->index(row, 0, index);
      const QString name = child.data().toString();
      if (name == "params" || name == "refused by" || name == "properties") {
        inspector_->expand(child);
      }
    }
    if (!fromInspector) inspector_->scrollTo(index, QAbstractItemView::PositionAtTop);
  }
  // The passes view highlights rewrites naming this segment's tensors.
  QSet<QString> names;
  const SnapshotPtr snapshot = reportModel_->snapshot();
  if (snapshot && snapshot->report) {
    const report::ScriptNames shown(*snapshot->report);
    for (const auto& segment : snapshot->report->segments) {
      if (segment.id != id) continue;
      for (const auto& list : {segment.inputs, segment.outputs, segment.exprs}) {
        for (const auto& text : list) {
          for (const QString& name : mentionedNames(QString::fromStdString(shown.rename(text)))) {
            names.insert(name);
          }
        }
      }
    }
  }
  passesModel_->setHighlight(names);
  graph_->selectSegment(id);
  updateCode();
}

void MainWindow::showValueInEditor(const QString& value) {
  const SnapshotPtr snapshot = reportModel_->snapshot();
  if (!snapshot || !snapshot->report) return;
  for (const auto& v : snapshot->report->values) {
    if (v.name != value.toStdString() || v.scriptLine <= 0) continue;
    const QTextBlock block = editor_->document()->findBlockByNumber(v.scriptLine - 1);
    if (!block.isValid()) return;
    QTextCursor cursor(block);
    editor_->setTextCursor(cursor);  // moves the cursor only: no recompile
    editor_->centerCursor();
    return;
  }
}

void MainWindow::showLineInGraph(int line) {
  const SnapshotPtr snapshot = reportModel_->snapshot();
  if (!snapshot || !snapshot->report) return;
  std::string value;
  for (const auto& v : snapshot->report->values) {
    if (v.scriptLine == line && !v.isConstant) {
      value = v.name;
      break;
    }
  }
  graph_->selectValue(QString::fromStdString(value));
  if (value.empty()) return;
  for (const auto& segment : snapshot->report->segments) {
    for (const auto& expr : segment.exprFlow) {
      if (std::find(expr.outputs.begin(), expr.outputs.end(), value) == expr.outputs.end())
        continue;
      if (segment.id != selected_) selectSegment(segment.id);
      return;
    }
  }
}

void MainWindow::updateCode() {
  const SnapshotPtr snapshot = reportModel_->snapshot();
  if (!snapshot || !snapshot->report || selected_ < 0) {
    code_->clear();
    return;
  }
  const auto& segments = snapshot->report->segments;
  const auto it = std::find_if(segments.begin(), segments.end(),
                               [this](const auto& s) { return s.id == selected_; });
  if (it == segments.end()) {
    code_->clear();
    return;
  }
  const SegmentCode* code = snapshot->codeFor(selected_);
  if (code == nullptr) {
    code_->setPlainText(
        QString("// segment %1 (%2) launches no kernel: it runs on the host "
                "as a view or a library call.\n\n// its fusion:\n%3")
            .arg(selected_)
            .arg(QString::fromStdString(it->scheduler), QString::fromStdString(it->fusionIr)));
  } else if (!code->error.empty()) {
    code_->setPlainText(QString("// segment %1: no kernel: %2")
                            .arg(selected_)
                            .arg(QString::fromStdString(code->error)));
  } else {
    code_->setPlainText(
        QString("// %1 (segment %2, %3)\n%4")
            .arg(QString::fromStdString(code->kernelName))
            .arg(selected_)
            .arg(QString::fromStdString(it->scheduler), QString::fromStdString(code->source)));
  }
}

bool MainWindow::loadMetrics(const QString& path, QString* error) {
  if (!metrics_->loadBench(path, error)) return false;
  graph_->setMetricsShown(true);
  return true;
}

bool MainWindow::exportReportJson(const QString& path, QString* error) {
  const SnapshotPtr snapshot = service_->latest();
  if (!snapshot || !snapshot->report) {
    if (error) *error = "no report to export: the script has not compiled";
    return false;
  }
  report::Json root = snapshot->report->toJson();
  root.set("file", snapshot->fileName);
  root.set("fusion", snapshot->fusionName);
  try {
    ir::writeUserFile(QFile::encodeName(path).toStdString(), root.dump() + "\n");
  } catch (const UserError& failure) {
    if (error) *error = QString::fromUtf8(failure.what());
    return false;
  }
  return true;
}

bool MainWindow::exportSegmentScript(int segment, const QString& path, QString* error) {
  const SnapshotPtr snapshot = service_->latest();
  if (!snapshot || !snapshot->report) {
    if (error) *error = "no segments to export: the script has not compiled";
    return false;
  }
  const int count = static_cast<int>(snapshot->segmentScripts.size());
  if (segment < 0 || segment >= count) {
    if (error) {
      *error =
          QString("segment %1 does not exist: the fusion has %2 segments").arg(segment).arg(count);
    }
    return false;
  }
  const SegmentScript& written = snapshot->segmentScripts[segment];
  if (!written.error.empty()) {
    if (error) *error = QString::fromStdString(written.error);
    return false;
  }
  try {
    ir::writeUserFile(QFile::encodeName(path).toStdString(), written.script);
  } catch (const UserError& failure) {
    if (error) *error = QString::fromUtf8(failure.what());
    return false;
  }
  return true;
}

}  // namespace fuserlab::gui
