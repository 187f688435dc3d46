// The workbench's exports either arrive or say why not (issue 43): the
// database export wrote into a full disk (/dev/full) and said "exported 1
// entries", the report export (Ctrl+E) into it returned true and the window
// said "wrote", and each hung the GUI thread on a named pipe that nothing
// read. The graph export of .svg claimed success when the file merely
// existed. Each now goes through the checked writer (ir::writeUserFile).
#include <QFile>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "db/compiler_version.h"
#include "db/heuristics_database.h"
#include "tests/source_dir.h"

using namespace fuserlab::gui;

namespace {

const QString kExamples =
    QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/");
const char* const kNoSpace = "No space left on device";
const char* const kNoReader = "no reader on the named pipe";

bool waitForSnapshot(MainWindow& window, int timeoutMs = 60000) {
  QSignalSpy shown(&window, &MainWindow::snapshotShown);
  if (!shown.wait(timeoutMs)) return false;
  QElapsedTimer timer;
  timer.start();
  while (window.service()->busy() && timer.elapsed() < timeoutMs) QTest::qWait(20);
  return !window.service()->busy();
}

bool waitForGraph(GraphView& graph, int timeoutMs = 60000) {
  QElapsedTimer timer;
  timer.start();
  while (graph.pending() && timer.elapsed() < timeoutMs) QTest::qWait(20);
  return !graph.pending();
}

// `name` inside `dir` as a link to /dev/full, so its suffix picks a format.
QString fullDiskFile(const QTemporaryDir& dir, const QString& name) {
  const QString path = dir.filePath(name);
  return QFile::link("/dev/full", path) ? path : QString();
}

QString namedPipe(const QTemporaryDir& dir, const QString& name) {
  const QString path = dir.filePath(name);
  return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0 ? path : QString();
}

}  // namespace

class GuiExportsTest : public QObject {
  Q_OBJECT

 private slots:
  // Issue 47 item 2: File > Export segment as script writes the selected
  // segment as a standalone script that reads back with the segment's ops
  // and its own inputs block.
  void segmentExportWritesAScriptThatReadsBack() {
    MainWindow window;
    QVERIFY(window.openFile(kExamples + "meta_op_chain.py"));
    QVERIFY(waitForSnapshot(window));
    bool inMenu = false;
    for (const QAction* action : window.findChildren<QAction*>()) {
      inMenu = inMenu || action->text() == "Export &segment as script...";
    }
    QVERIFY(inMenu);
    const auto snapshot = window.service()->latest();
    QCOMPARE(snapshot->segmentScripts.size(), size_t(3));
    QTemporaryDir dir;
    for (int segment = 0; segment < 3; ++segment) {
      const QString path = dir.filePath(QString("segment_%1.py").arg(segment));
      QString error;
      QVERIFY2(window.exportSegmentScript(segment, path, &error), qPrintable(error));
      const auto script = fuserlab::frontend::readScriptFile(path.toStdString());
      QVERIFY(script.inputs.has_value());
      QCOMPARE(script.fusion().exprsForOutputs().size(),
               snapshot->report->segments[segment].exprs.size());
    }
    QString error;
    QVERIFY(!window.exportSegmentScript(3, dir.filePath("x.py"), &error));
    QVERIFY2(error.contains("segment 3 does not exist"), qPrintable(error));
    QVERIFY(!window.exportSegmentScript(0, "/dev/full", &error));
    QVERIFY2(error.contains(kNoSpace), qPrintable(error));
  }

  void reportExportIntoAFullDiskOrAPipeFails() {
    MainWindow window;
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    QTemporaryDir dir;
    QString error;
    QVERIFY(!window.exportReportJson("/dev/full", &error));
    QVERIFY2(error.contains("writing '/dev/full' failed") && error.contains(kNoSpace),
             qPrintable(error));
    const QString pipe = namedPipe(dir, "report.json");
    QVERIFY(!pipe.isEmpty());
    QVERIFY(!window.exportReportJson(pipe, &error));  // returns, does not wait
    QVERIFY2(error.contains(kNoReader), qPrintable(error));
    QVERIFY(window.exportReportJson(dir.filePath("written.json"), &error));
  }

  void graphExportIntoAFullDiskOrAPipeFails() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    QTemporaryDir dir;
    for (const char* name : {"g.svg", "g.png", "g.dot"}) {
      const QString path = fullDiskFile(dir, name);
      QVERIFY(!path.isEmpty());
      QString error;
      QVERIFY2(!graph->exportTo(path, &error), name);
      QVERIFY2(error.contains(kNoSpace), qPrintable(QString(name) + ": " + error));
    }
    const QString pipe = namedPipe(dir, "p.dot");
    QVERIFY(!pipe.isEmpty());
    QString error;
    QVERIFY(!graph->exportTo(pipe, &error));
    QVERIFY2(error.contains(kNoReader), qPrintable(error));
  }

  void databaseExportIntoAFullDiskOrAPipeFails() {
    MainWindow window;
    QVERIFY(window.openFile(kExamples + "seed001_nanogpt_layer_norm.py"));
    QVERIFY(waitForSnapshot(window));
    const auto snapshot = window.service()->latest();
    QVERIFY(!snapshot->segmentHashes.empty());
    QTemporaryDir dir;
    const QString path = dir.filePath("heuristics.db");
    {
      using namespace fuserlab::db;
      HeuristicsDatabase database(path.toStdString(), HeuristicsDatabase::Access::Write);
      Entry entry;
      entry.segment = {snapshot->segmentHashes.front(), "inner_persistent", "16x128x1600",
                       "16x128x1664", "fusion"};
      entry.device = DeviceRecord::fromSpec(fuserlab::scheduler::defaultDevice());
      entry.paramsSchema = 1;
      entry.minCompilerVersion = std::string(compilerVersion());
      entry.params = fuserlab::report::Json::object();
      entry.paramsHash = snapshot->segmentHashes.front();
      entry.origin = "manual";
      entry.run = RunRecord::now("test_gui_exports");
      entry.createdAt = entry.run.createdAt;
      database.store(entry);
    }
    DatabasePanel* panel = window.database();
    panel->openDatabase(path);
    QCOMPARE(panel->table()->rowCount(), 1);
    auto* status = panel->findChild<QLabel*>("databaseStatus");
    QVERIFY(status != nullptr);

    QVERIFY(!panel->exportSelected("/dev/full"));
    QVERIFY2(status->text().contains(kNoSpace), qPrintable(status->text()));
    QVERIFY2(!status->text().contains("exported"), qPrintable(status->text()));

    const QString pipe = namedPipe(dir, "entries.jsonl");
    QVERIFY(!pipe.isEmpty());
    QVERIFY(!panel->exportSelected(pipe));
    QVERIFY2(status->text().contains(kNoReader), qPrintable(status->text()));

    QVERIFY(panel->exportSelected(dir.filePath("out.jsonl")));
    QVERIFY2(status->text().startsWith("exported 1 entries"), qPrintable(status->text()));
  }
};

QTEST_MAIN(GuiExportsTest)
#include "test_gui_exports.moc"
