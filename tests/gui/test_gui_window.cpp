// The main window driven as a user would, on the offscreen platform: open a
// file, flip upcast on seed 000 and see the segmentation change, a syntax
// error marks its line, selecting a segment selects it everywhere, the
// compare view shows seed 000's difference, the run panel runs on the CPU,
// the database browser lists and deletes this fusion's entries.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QThreadPool>
#include <QTreeView>
#include <QTreeWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <QtTest>

#include <QWindow>
#include <functional>

#include <sys/stat.h>

#include "app/gui/compare_view.h"
#include "app/gui/database_panel.h"
#include "app/gui/decisions_view.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/options_panel.h"
#include "app/gui/passes_model.h"
#include "app/gui/report_model.h"
#include "app/gui/run_panel.h"
#include "app/gui/script_editor.h"
#include "core/scheduler/device_spec.h"
#include "db/compiler_version.h"
#include "db/heuristics_database.h"
#include "tests/gui/window_test_support.h"
#include "tests/source_dir.h"

using namespace fuserlab::gui;
using namespace fuserlab::gui::testing;

namespace {

const QString kExamples =
    QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/");

// The title the window system shows, "[*]" turned into the marker.
QString shownTitle(MainWindow& window) {
  return window.windowHandle() ? window.windowHandle()->title() : QString();
}

QAction* actionNamed(MainWindow& window, const QString& text) {
  for (QAction* action : window.findChildren<QAction*>()) {
    if (action->text() == text) return action;
  }
  return nullptr;
}

QString readText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool writeText(const QString& path, const QString& text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) == text.toUtf8().size();
}

// Types `text` at the end of the editor, as a user would.
void typeAtEnd(MainWindow& window, const QString& text) {
  QTextCursor cursor = window.editor()->textCursor();
  cursor.movePosition(QTextCursor::End);
  window.editor()->setTextCursor(cursor);
  const QStringList lines = text.split('\n');
  for (int i = 0; i < lines.size(); ++i) {
    if (i > 0) QTest::keyClick(window.editor(), Qt::Key_Return);
    QTest::keyClicks(window.editor(), lines[i]);
  }
}

// The prompts a test answers instead of the dialogs, counting the questions.
struct ScriptedPrompts {
  QMessageBox::StandardButton answer = QMessageBox::Cancel;
  QString path;  // what the save dialog answers
  int asked = 0;
  QStringList suggested;
  QStringList failures;

  void install(MainWindow& window) {
    MainWindow::FilePrompts prompts;
    prompts.saveChanges = [this](const QString&) {
      ++asked;
      return answer;
    };
    prompts.savePath = [this](const QString& offered) {
      suggested << offered;
      return path;
    };
    prompts.saveFailed = [this](const QString& message) { failures << message; };
    window.setFilePrompts(prompts);
  }
};

}  // namespace

class GuiWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("FuserLabTests");
    QSettings().clear();
    // The window treats files of its examples folder as examples; point it
    // at the tree the tests read (FUSERLAB_SOURCE_DIR may move it).
    if (qEnvironmentVariableIsEmpty("FUSERLAB_EXAMPLES")) {
      qputenv("FUSERLAB_EXAMPLES", kExamples.toUtf8());
    }
  }

  void openFileAndSwitchUpcast() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    const int privatized = segmentCount(window);
    QVERIFY(privatized > 0);
    QCOMPARE(window.reportModel()->rowCount(), privatized);
    QCOMPARE(window.problems()->count(), 0);

    QComboBox* upcast = window.options()->upcastBox();
    QElapsedTimer timer;
    timer.start();
    upcast->setCurrentIndex(upcast->findData("forward"));
    QVERIFY(waitForSnapshot(window));
    qInfo("upcast=forward recompiled and shown in %lld ms", timer.elapsed());
    const int forwarded = segmentCount(window);
    QVERIFY2(
        forwarded != privatized,
        qPrintable(QString("privatize %1 segments, forward %2").arg(privatized).arg(forwarded)));
    QCOMPARE(window.reportModel()->rowCount(), forwarded);
    // The status line names the new option.
    QVERIFY(window.options()->settings().options.upcast ==
            fuserlab::segmenter::UpcastStrategy::Forward);
  }

  // refine_reshaped_reductions is on by default: a GroupNorm's statistics
  // and normalization are one kernel; switched off, two, and the segments
  // shown follow.
  void refineSwitchTurnsAGroupNormIntoOneKernel() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(QString::fromStdString(
        fuserlab::test::sourceDir() + "/tests/frontend/corpus/bench_groupnorm_reshape.py")));
    QVERIFY(waitForSnapshot(window));
    auto kernels = [&window] {
      const auto snapshot = window.service()->latest();
      int n = 0;
      for (const auto& segment : snapshot->report->segments) {
        n += segment.scheduler == "inner_persistent" || segment.scheduler == "pointwise" ||
                     segment.scheduler == "reduction"
                 ? 1
                 : 0;
      }
      return n;
    };
    QCheckBox* refine = window.options()->refineBox();
    QVERIFY(refine->isChecked());
    QVERIFY(window.options()->settings().options.refineReshapedReductions);
    QVERIFY(window.service()->latest() && window.service()->latest()->report);
    QCOMPARE(kernels(), 1);
    const int refined = segmentCount(window);
    refine->setChecked(false);
    QVERIFY(waitForSnapshot(window));
    QVERIFY(!window.options()->settings().options.refineReshapedReductions);
    QCOMPARE(kernels(), 2);
    QVERIFY(segmentCount(window) != refined);
  }

  void graphDrawsSegmentsAndFollowsUpcast() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    const int privatized = segmentCount(window);
    QCOMPARE(graph->clusterCount(), privatized);
    QVERIFY(graph->nodeCount() > privatized);
    QVERIFY(graph->edgeCount() > 0);

    window.options()->upcastBox()->setCurrentIndex(
        window.options()->upcastBox()->findData("forward"));
    QVERIFY(waitForSnapshot(window));
    QVERIFY(waitForGraph(*graph));
    QCOMPARE(graph->clusterCount(), segmentCount(window));
    QVERIFY(graph->clusterCount() != privatized);
  }

  // Issue 43 defect 1: a fusion too large for Graphviz opens at segment
  // level; expanding it shows why it is not laid out instead of hanging.
  void graphOfA15000OpChainSaysWhyItIsNotLaidOut() {
    QTemporaryDir dir;
    const QString path = dir.filePath("chain.py");
    {
      QFile file(path);
      QVERIFY(file.open(QIODevice::WriteOnly));
      QByteArray text =
          "from nvfuser_direct import FusionDefinition, DataType\n"
          "with FusionDefinition() as fd:\n"
          "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n";
      for (int i = 0; i < 15000; ++i) {
        text += "    T" + QByteArray::number(i + 1) + " = fd.ops.add(T" + QByteArray::number(i) +
                ", 1.0)\n";
      }
      text +=
          "    fd.add_output(T15000)\n"
          "inputs = [torch.randn(1024, dtype=torch.float32, device='cuda:0')]\n";
      file.write(text);
    }
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(path));
    QVERIFY(waitForSnapshot(window, 120000));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->collapsed());
    QCOMPARE(graph->clusterCount(), 0);  // the overview: one node per segment
    QVERIFY(graph->nodeCount() > 0);
    graph->setCollapsed(false);
    QVERIFY(waitForGraph(*graph, 5000));
    QCOMPARE(graph->nodeCount(), 0);
    QString shown;
    for (QGraphicsItem* item : graph->scene()->items()) {
      if (auto* text = dynamic_cast<QGraphicsTextItem*>(item)) shown += text->toPlainText();
    }
    QVERIFY2(shown.contains("too large to lay out"), qPrintable(shown));
    QVERIFY2(shown.contains("segments only"), qPrintable(shown));
  }

  void graphClickSearchCollapseExport() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    const int segments = segmentCount(window);
    QVERIFY(segments > 1);
    // Clicking inside the last segment's box selects it in every view.
    const int last = segments - 1;
    QGraphicsItem* box = nullptr;
    for (QGraphicsItem* item : graph->scene()->items()) {
      if (item->data(2).toString() == "cluster" && item->data(0).toInt() == last) box = item;
    }
    QVERIFY(box != nullptr);
    const QPointF inside = box->sceneBoundingRect().topLeft() + QPointF(3, 3);
    QCOMPARE(graph->segmentAt(inside), last);
    graph->view()->centerOn(inside);
    QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, {},
                      graph->view()->mapFromScene(inside));
    QCOMPARE(window.selectedSegment(), last);
    QCOMPARE(window.reportModel()->segmentOf(window.inspector()->currentIndex()), last);

    const auto snapshot = window.service()->latest();
    const QString scheduler = QString::fromStdString(snapshot->report->segments[0].scheduler);
    QVERIFY(graph->search(scheduler) >= 1);
    QCOMPARE(graph->search("no_such_tensor_name"), 0);

    const int expandedNodes = graph->nodeCount();
    graph->setCollapsed(true);
    QVERIFY(waitForGraph(*graph));
    QCOMPARE(graph->clusterCount(), 0);  // a node per segment instead
    QVERIFY(graph->nodeCount() < expandedNodes);
    QCOMPARE(graph->segmentAt(graph->scene()->sceneRect().center()) >= -1, true);
    graph->setCollapsed(false);
    QVERIFY(waitForGraph(*graph));
    QCOMPARE(graph->nodeCount(), expandedNodes);

    QTemporaryDir dir;
    for (const char* name : {"g.svg", "g.png", "g.dot"}) {
      QString error;
      QVERIFY2(graph->exportTo(dir.filePath(name), &error), qPrintable(error));
      QVERIFY(QFileInfo(dir.filePath(name)).size() > 100);
    }
    QFile dot(dir.filePath("g.dot"));
    QVERIFY(dot.open(QIODevice::ReadOnly));
    QVERIFY(dot.readAll().contains("digraph"));
    QVERIFY(!graph->exportTo(dir.filePath("g.bmpx")));
  }

  void syntaxErrorMarksTheLine() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    QCOMPARE(window.editor()->errorLine(), 0);
    // Break line 12 by typing into the editor, as a user would.
    QTextCursor cursor(window.editor()->document()->findBlockByNumber(11));
    cursor.movePosition(QTextCursor::EndOfBlock);
    window.editor()->setTextCursor(cursor);
    QTest::keyClicks(window.editor(), " +* )");
    QVERIFY(waitForSnapshot(window));
    QCOMPARE(window.editor()->errorLine(), 12);
    QVERIFY(window.editor()->errorColumn() > 0);
    QCOMPARE(window.problems()->count(), 1);
    QVERIFY(window.problems()->item(0)->text().startsWith("line 12"));
    // The last good compile stays, dimmed (issue 46 item 7).
    QVERIFY(window.viewsStale());
    QVERIFY(window.reportModel()->rowCount() > 0);
    // Undo the typing: the marker goes away and the segments come back.
    for (int i = 0; i < 5; ++i) QTest::keyClick(window.editor(), Qt::Key_Backspace);
    QVERIFY(waitForSnapshot(window));
    QCOMPARE(window.editor()->errorLine(), 0);
    QVERIFY(window.reportModel()->rowCount() > 0);
    QVERIFY(!window.viewsStale());
  }

  void selectionIsShared() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed001_nanogpt_layer_norm.py"));
    QVERIFY(waitForSnapshot(window));
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot->ok());
    QCOMPARE(window.selectedSegment(), 0);
    // The kernel segment: pick it in the inspector.
    int kernelSegment = -1;
    for (const auto& segment : snapshot->report->segments) {
      if (segment.launchesKernel) kernelSegment = segment.id;
    }
    QVERIFY(kernelSegment >= 0);
    const QModelIndex row = window.reportModel()->indexOfSegment(kernelSegment);
    window.inspector()->setCurrentIndex(row);
    QCOMPARE(window.selectedSegment(), kernelSegment);
    QVERIFY(window.codeView()->toPlainText().contains("__global__"));
    QVERIFY(window.codeView()->toPlainText().contains(
        QString::fromStdString(snapshot->codeFor(kernelSegment)->kernelName)));
    // Selecting from code (the menu's next-segment) moves the inspector too.
    window.selectSegment(0);
    QCOMPARE(window.reportModel()->segmentOf(window.inspector()->currentIndex()), 0);
  }

  // Issue 46 item 6: after Ctrl+] (Next segment) the inspector still showed
  // the previous segment's params: the old segment stayed expanded at the
  // top and the new one was expanded below the bottom edge of the view.
  void nextSegmentShowsItsParamsInTheInspector() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot->ok());
    const auto& segments = snapshot->report->segments;
    QVERIFY(segments.size() > 1);
    QAction* next = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->shortcut() == QKeySequence("Ctrl+]")) next = action;
    }
    QVERIFY(next != nullptr);
    QTreeView* tree = window.inspector();
    ReportModel* model = window.reportModel();
    // The segments whose details (rows under a segment's row) the
    // inspector's viewport shows, and whether `id`'s "params" row is one.
    const auto shown = [&](int id, bool* paramsShown) {
      QSet<int> ids;
      *paramsShown = false;
      for (int y = 0; y < tree->viewport()->height(); y += 2) {
        const QModelIndex at = tree->indexAt(QPoint(20, y));
        if (!at.isValid() || !at.parent().isValid()) continue;
        ids.insert(model->segmentOf(at));
        if (model->segmentOf(at) == id && at.data().toString() == "params") *paramsShown = true;
      }
      return ids;
    };
    size_t position = 0;
    while (segments[position].id != window.selectedSegment()) ++position;
    for (size_t step = 1; step <= segments.size(); ++step) {
      next->trigger();
      QApplication::processEvents();
      const auto& segment = segments[(position + step) % segments.size()];
      QCOMPARE(window.selectedSegment(), segment.id);
      const QModelIndex current = tree->currentIndex();
      QCOMPARE(model->segmentOf(current), segment.id);
      QVERIFY(tree->isExpanded(current));
      bool paramsShown = false;
      const QSet<int> ids = shown(segment.id, &paramsShown);
      QVERIFY2(ids == QSet<int>{segment.id},
               qPrintable(QString("segment %1 selected, the inspector shows details of %2 segments")
                              .arg(segment.id)
                              .arg(ids.size())));
      QCOMPARE(paramsShown, !segment.params.isNull());
    }
  }

  // Issue 46 item 5: edits were lost without warning; no modified marker,
  // no Save. The title marks edits, Save writes the file and clears the mark.
  void editsAreMarkedAndSaveWritesThem() {
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.py");
    const QString original = readText(kExamples + "sum_reduction.py");
    QVERIFY(!original.isEmpty() && writeText(path, original));
    MainWindow window;
    ScriptedPrompts prompts;
    prompts.install(window);
    window.show();
    QVERIFY(window.openFile(path));
    QCOMPARE(shownTitle(window), QString("mine.py - FuserLab"));
    QVERIFY(!window.isScriptModified());
    QCOMPARE(window.savePath(), QFileInfo(path).absoluteFilePath());

    typeAtEnd(window, "# x");
    QVERIFY(window.isScriptModified());
    QCOMPARE(shownTitle(window), QString("mine.py* - FuserLab"));
    // Deleting the typing brings back the saved text: no mark.
    for (int i = 0; i < 3; ++i) QTest::keyClick(window.editor(), Qt::Key_Backspace);
    QVERIFY(!window.isScriptModified());
    QCOMPARE(shownTitle(window), QString("mine.py - FuserLab"));

    typeAtEnd(window, "# saved\n");
    QVERIFY(window.isScriptModified());
    QAction* save = actionNamed(window, "&Save");
    QVERIFY(save != nullptr);
    QCOMPARE(save->shortcut(), QKeySequence(QKeySequence::Save));
    QVERIFY(actionNamed(window, "Save &As...") != nullptr);
    QCOMPARE(actionNamed(window, "Save &As...")->shortcut(), QKeySequence("Ctrl+Shift+S"));
    save->trigger();
    QCOMPARE(prompts.suggested.size(), 0);  // its own file: no dialog
    QCOMPARE(prompts.failures.size(), 0);
    QCOMPARE(readText(path), original + "# saved\n");
    QVERIFY(!window.isScriptModified());
    QCOMPARE(shownTitle(window), QString("mine.py - FuserLab"));
    QCOMPARE(prompts.asked, 0);
    QVERIFY(waitForIdle(window));
  }

  // Save on an example asks for a path (never overwrites the example); a
  // failed write says so and keeps the edits and the mark.
  void saveOnAnExampleAsksAndAFailedWriteKeepsTheEdits() {
    const QString example = kExamples + "sum_reduction.py";
    const QString original = readText(example);
    MainWindow window;
    ScriptedPrompts prompts;
    prompts.install(window);
    window.show();
    QVERIFY(window.openFile(example));
    QCOMPARE(window.savePath(), QString());
    typeAtEnd(window, "# edited\n");
    const QString edited = window.editor()->toPlainText();

    QTemporaryDir dir;
    prompts.path = dir.filePath("no_such_folder/copy.py");
    QVERIFY(!window.save());
    QCOMPARE(prompts.suggested.size(), 1);
    QCOMPARE(QFileInfo(prompts.suggested.first()).fileName(), QString("sum_reduction.py"));
    QVERIFY(QFileInfo(prompts.suggested.first()).absolutePath() !=
            QFileInfo(example).absolutePath());
    QCOMPARE(prompts.failures.size(), 1);
    QVERIFY2(prompts.failures.first().contains(prompts.path), qPrintable(prompts.failures.first()));
    QVERIFY(window.isScriptModified());
    QVERIFY(shownTitle(window).contains("sum_reduction.py*"));
    QCOMPARE(window.editor()->toPlainText(), edited);
    // A directory in the way fails too, and leaves it a directory.
    prompts.path = dir.path();
    QVERIFY(!window.saveAs());
    QCOMPARE(prompts.failures.size(), 2);
    QVERIFY(QFileInfo(dir.path()).isDir());
    QVERIFY(window.isScriptModified());
    // A cancelled dialog writes nothing.
    prompts.path.clear();
    QVERIFY(!window.save());
    QCOMPARE(prompts.failures.size(), 2);
    QVERIFY(window.isScriptModified());

    prompts.path = dir.filePath("copy.py");
    QVERIFY(window.save());
    QCOMPARE(readText(prompts.path), edited);
    QCOMPARE(window.savePath(), QFileInfo(prompts.path).absoluteFilePath());
    QVERIFY(!window.isScriptModified());
    QCOMPARE(shownTitle(window), QString("copy.py - FuserLab"));
    QCOMPARE(readText(example), original);
    // From now on Save writes the copy without asking.
    typeAtEnd(window, "# again\n");
    QVERIFY(window.save());
    QCOMPARE(prompts.suggested.size(), 4);
    QCOMPARE(readText(prompts.path), edited + "# again\n");
    QVERIFY(waitForIdle(window));
  }

  // Opening another file, an example or a recent file, or closing the window,
  // asks first when there are unsaved edits: Cancel keeps them, Save writes
  // them, Discard drops them.
  void unsavedEditsAreAskedAboutBeforeTheyAreReplaced() {
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.py");
    const QString other = dir.filePath("other.py");
    const QString original = readText(kExamples + "sum_reduction.py");
    QVERIFY(writeText(path, original));
    QVERIFY(writeText(other, readText(kExamples + "seed000_forwarding_miss.py")));
    MainWindow window;
    ScriptedPrompts prompts;
    prompts.install(window);
    window.show();
    QVERIFY(window.openFile(other));  // now a recent file
    QVERIFY(window.openFile(path));
    QCOMPARE(prompts.asked, 0);  // nothing to lose so far
    typeAtEnd(window, "# mine\n");
    const QString edited = window.editor()->toPlainText();

    prompts.answer = QMessageBox::Cancel;
    QVERIFY(!window.openFile(other));
    QCOMPARE(prompts.asked, 1);
    QAction* example = actionNamed(window, "seed000_forwarding_miss.py");
    QVERIFY(example != nullptr);
    example->trigger();
    QCOMPARE(prompts.asked, 2);
    QAction* recent = actionNamed(window, QFileInfo(other).absoluteFilePath());
    QVERIFY(recent != nullptr);
    recent->trigger();
    QCOMPARE(prompts.asked, 3);
    QVERIFY(!window.close());
    QCOMPARE(prompts.asked, 4);
    QVERIFY(window.isVisible());
    QCOMPARE(window.editor()->toPlainText(), edited);
    QCOMPARE(window.currentFile(), QFileInfo(path).absoluteFilePath());
    QVERIFY(window.isScriptModified());
    QCOMPARE(readText(path), original);

    // Save: written, then the other file opens.
    prompts.answer = QMessageBox::Save;
    recent->trigger();
    QCOMPARE(prompts.asked, 5);
    QCOMPARE(readText(path), edited);
    QCOMPARE(window.currentFile(), QFileInfo(other).absoluteFilePath());
    QVERIFY(!window.isScriptModified());

    // Discard: dropped, and the example opens.
    typeAtEnd(window, "# dropped\n");
    prompts.answer = QMessageBox::Discard;
    actionNamed(window, "seed000_forwarding_miss.py")->trigger();
    QCOMPARE(prompts.asked, 6);
    QCOMPARE(window.editor()->toPlainText(), readText(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(!readText(other).contains("# dropped"));

    // A file that cannot be read costs nothing and asks nothing.
    typeAtEnd(window, "# kept\n");
    QVERIFY(!window.openFile(dir.filePath("missing.py")));
    QCOMPARE(prompts.asked, 6);
    QVERIFY(window.editor()->toPlainText().endsWith("# kept\n"));

    QVERIFY(waitForIdle(window));
    QVERIFY(window.close());  // Discard
    QCOMPARE(prompts.asked, 7);
  }

  void compareShowsSeed000Difference() {
    MainWindow window;
    window.show();
    QSignalSpy compared(window.compare(), &CompareView::compared);
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.compare()->snapshotA() && window.compare()->snapshotB() && compared.count() > 0,
        60000);
    QTRY_VERIFY_WITH_TIMEOUT(window.compare()->differences() > 0, 60000);
    const auto a = window.compare()->snapshotA();
    const auto b = window.compare()->snapshotB();
    QVERIFY(a->ok() && b->ok());
    QVERIFY(a->report->segments.size() != b->report->segments.size());
    // The segments row is highlighted on both sides.
    QTableWidget* table = window.compare()->table();
    bool highlighted = false;
    for (int row = 0; row < table->rowCount(); ++row) {
      if (table->item(row, 0)->text() == "segments") {
        highlighted = table->item(row, 1)->background().color() != QColor() &&
                      table->item(row, 1)->background().style() != Qt::NoBrush;
      }
    }
    QVERIFY(highlighted);
  }

  void runPanelRunsOnTheCpu() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "sum_reduction.py"));
    QVERIFY(waitForSnapshot(window));
    window.runPanel()->backendBox()->setCurrentIndex(0);
    QSignalSpy done(window.runPanel(), &RunPanel::runFinished);
    QTest::mouseClick(window.runPanel()->runButton(), Qt::LeftButton);
    QVERIFY(done.wait(120000));
    QCOMPARE(done.first().first().toBool(), true);
    const QString text = window.runPanel()->output()->toPlainText();
    QVERIFY2(text.contains("cpu reference run") && text.contains("min "), qPrintable(text));
    // Timing the kernels is a cuda option: off for the reference backend.
    QCheckBox* timeKernels = window.runPanel()->timeKernelsBox();
    // QFAIL, not QVERIFY: the analyzer sees its return (qVerify's it does not).
    if (timeKernels == nullptr) QFAIL("the run panel has no kernel-timing box");
    QVERIFY(!timeKernels->isEnabled());
    window.runPanel()->backendBox()->setCurrentIndex(1);
    QVERIFY(timeKernels->isEnabled());
  }

  void databaseBrowserListsThisFusionsEntries() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed001_nanogpt_layer_norm.py"));
    QVERIFY(waitForSnapshot(window));
    const auto snapshot = window.service()->latest();
    QVERIFY(!snapshot->segmentHashes.empty());

    QTemporaryDir dir;
    const QString path = dir.filePath("heuristics.db");
    {
      using namespace fuserlab::db;
      HeuristicsDatabase database(path.toStdString(), HeuristicsDatabase::Access::Write);
      for (const std::string& hash :
           {snapshot->segmentHashes.front(), std::string("0123456789abcdef")}) {
        Entry entry;
        entry.segment = {hash, "inner_persistent", "16x128x1600", "16x128x1664", "fusion"};
        entry.device = DeviceRecord::fromSpec(fuserlab::scheduler::defaultDevice());
        entry.paramsSchema = 1;
        entry.minCompilerVersion = std::string(compilerVersion());
        entry.params = fuserlab::report::Json::object();
        entry.paramsHash = hash;
        entry.origin = "manual";
        entry.run = RunRecord::now("test_gui_window");
        entry.createdAt = entry.run.createdAt;
        database.store(entry);
      }
    }
    window.database()->openDatabase(path);
    QTableWidget* table = window.database()->table();
    QCOMPARE(table->rowCount(), 1);  // only this fusion's segment
    QCOMPARE(table->item(0, 1)->text(), QString("inner_persistent"));
    table->selectRow(0);
    window.database()->exportSelected(dir.filePath("out.jsonl"));
    QFile exported(dir.filePath("out.jsonl"));
    QVERIFY(exported.open(QIODevice::ReadOnly));
    QCOMPARE(exported.readAll().count('\n'), 1);
    // Delete asks first (issue 46 item 7); Cancel keeps the entry.
    QStringList asked;
    bool answer = false;
    window.database()->setDeleteConfirmation([&](const QString& question) {
      asked << question;
      return answer;
    });
    QTest::mouseClick(window.database()->deleteButton(), Qt::LeftButton);
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked.first().contains("Delete 1 entry"), qPrintable(asked.first()));
    QCOMPARE(table->rowCount(), 1);
    table->selectRow(0);
    answer = true;
    QTest::mouseClick(window.database()->deleteButton(), Qt::LeftButton);
    QCOMPARE(asked.size(), 2);
    QCOMPARE(table->rowCount(), 0);
    fuserlab::db::HeuristicsDatabase check(path.toStdString(),
                                           fuserlab::db::HeuristicsDatabase::Access::Read);
    QCOMPARE(check.entries().size(), size_t(1));  // the other fusion's entry stays
  }

  void exportsReportJson() {
    MainWindow window;
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    QTemporaryDir dir;
    const QString path = dir.filePath("report.json");
    QVERIFY(window.exportReportJson(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto json = fuserlab::report::Json::parse(file.readAll().toStdString());
    QCOMPARE(static_cast<int>(json.get("segment_count")->asInt()), segmentCount(window));
  }

  void missingFileIsAProblemNotACrash() {
    MainWindow window;
    QVERIFY(!window.openFile("/nonexistent/fusion.py"));
    QCOMPARE(window.problems()->count(), 1);
  }

  // Issue 43 item 7: the reader takes only a regular file of at most
  // kMaxScriptBytes. A larger one, a named pipe (would block the GUI thread)
  // and /dev/zero (would fill the memory) are problems shown at once.
  void specialAndHugeFilesAreProblemsNotHangs() {
    QTemporaryDir dir;
    const QString huge = dir.filePath("huge.py");
    {
      QFile file(huge);
      QVERIFY(file.open(QIODevice::WriteOnly));
      QVERIFY(file.resize(qint64{33} << 20));  // sparse: nothing written
    }
    const QString pipe = dir.filePath("pipe.py");
    QCOMPARE(::mkfifo(QFile::encodeName(pipe).constData(), 0600), 0);
    const struct {
      QString path;
      const char* problem;
    } cases[] = {{huge, "more than the 32 MiB"},
                 {pipe, "it is a named pipe"},
                 {"/dev/zero", "it is a character device"},
                 {dir.path(), "it is a directory"}};
    for (const auto& c : cases) {
      MainWindow window;
      QVERIFY2(!window.openFile(c.path), qPrintable(c.path));
      QCOMPARE(window.problems()->count(), 1);
      const QString shown = window.problems()->item(0)->text();
      QVERIFY2(shown.contains(c.problem), qPrintable(shown));
      QVERIFY2(shown.contains(c.path), qPrintable(shown));
    }
  }

  // Issue 46: a slow layout (a chain where every other op reads one shared
  // tensor lays out in seconds) ran behind a global-pool thread blocked in
  // future.get(); the raster engine paints with that pool, so on 2 cores
  // the window deadlocked. No global-pool thread waits for a layout now,
  // and the window keeps painting and answering while it runs.
  void aSlowLayoutKeepsTheWindowPainting() {
    QTemporaryDir dir;
    const QString path = dir.filePath("shared_input_chain.py");
    {
      QFile file(path);
      QVERIFY(file.open(QIODevice::WriteOnly));
      QString text =
          "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n"
          "inputs = [torch.randn((64, 64), device='cuda'), torch.randn((64, 64), device='cuda')]\n"
          "with FusionDefinition() as fd:\n"
          "    T0 = fd.from_pytorch(inputs[0])\n"
          "    S = fd.from_pytorch(inputs[1])\n";
      const int ops = 150;
      for (int i = 0; i < ops; ++i) {
        text += i % 2 == 0 ? QString("    T%1 = fd.ops.add(T%2, S)\n").arg(i + 1).arg(i)
                           : QString("    T%1 = fd.ops.mul(T%2, 1.001)\n").arg(i + 1).arg(i);
      }
      text += QString("    fd.add_output(T%1)\nfd.execute(inputs)\n").arg(ops);
      file.write(text.toUtf8());
    }
    // One global-pool thread, as a busy 2-core machine leaves the painter:
    // a task on it must still run while the layout does.
    QThreadPool* global = QThreadPool::globalInstance();
    const int threads = global->maxThreadCount();
    global->setMaxThreadCount(1);
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(path));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QElapsedTimer running;
    running.start();
    int turns = 0;
    while (graph->pending() && running.elapsed() < 3000) {
      QElapsedTimer turn;
      turn.start();
      QFuture<int> task = QtConcurrent::run(global, [] { return 7; });
      while (!task.isFinished() && turn.elapsed() < 250) QTest::qWait(5);
      QVERIFY2(task.isFinished(), "a global-pool task waited behind the layout");
      (void)window.grab();  // a full paint of the window
      QVERIFY2(turn.elapsed() < 500,
               qPrintable(QString("one turn took %1 ms").arg(turn.elapsed())));
      ++turns;
    }
    global->setMaxThreadCount(threads);
    qInfo("%d event-loop turns with a paint while the layout ran (%s)", turns,
          graph->pending() ? "still running" : "done");
    // Another file replaces the slow layout's snapshot; its graph shows.
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->clusterCount() > 0);
  }
};

QTEST_MAIN(GuiWindowTest)
#include "test_gui_window.moc"
