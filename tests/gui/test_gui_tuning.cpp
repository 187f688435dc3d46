// The tuning panel on the offscreen platform: the dry run fills the variants
// table from a persistent segment's space (no GPU needed); without a GPU
// Start is disabled with a message; with a fake runner (no GPU either) a
// sweep plots every variant, highlights the winner, stores it in the
// database and refreshes the browser, Cancel sets the tuner's flag and stops
// the sweep early, and errors are shown in the panel.
#include <sys/stat.h>
#include <QComboBox>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtCharts/QScatterSeries>
#include <QtTest>
#include <set>
#include <thread>

#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/metrics_legend.h"
#include "app/gui/tune_job.h"
#include "app/gui/tune_worker.h"
#include "app/gui/tuning_panel.h"
#include "app/gui/tuning_plot.h"

#include <QtCharts/QValueAxis>
#include "core/cuda/cuda_device.h"
#include "db/heuristics_database.h"
#include "tests/source_dir.h"
#include "tuner/statistics.h"
#include "tuner/worker_command.h"

using namespace fuserlab::gui;
using fuserlab::tuner::Variant;
using fuserlab::tuner::VariantOutcome;

namespace {

const QString kExamples =
    QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/");

// Variant `fast` takes 400 ns, every other 1000 + 10 * id; each run sleeps
// `delayMs` so a test can cancel mid-sweep.
class FakeRunner : public fuserlab::tuner::VariantRunner {
 public:
  FakeRunner(size_t fast, int delayMs) : fast_(fast), delayMs_(delayMs) {}
  VariantOutcome run(const fuserlab::tuner::TuningTarget&, const Variant& v) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs_));
    VariantOutcome o;
    o.variant = v.id;
    const double base = v.id == fast_ ? 400 : 1000 + 10 * double(v.id);
    o.stats = fuserlab::tuner::summarize({base, base + 1, base - 1, base + 2, base - 2});
    return o;
  }

 private:
  size_t fast_;
  int delayMs_;
};

RunnerFactory fakeFactory(size_t fast, int delayMs) {
  RunnerFactory factory;
  factory.build = false;
  factory.make = [fast, delayMs](const TuneRequest&, const std::string&) {
    return std::make_unique<FakeRunner>(fast, delayMs);
  };
  return factory;
}

bool waitForCompile(MainWindow& window) {
  QSignalSpy shown(&window, &MainWindow::snapshotShown);
  if (!shown.wait(60000)) return false;
  QElapsedTimer timer;
  timer.start();
  while (window.service()->busy() && timer.elapsed() < 60000) QTest::qWait(20);
  return window.service()->latest() && window.service()->latest()->ok();
}

// Opens layer_norm.py and selects its inner persistent segment.
bool openLayerNorm(MainWindow& window) {
  if (!window.openFile(kExamples + "layer_norm.py") || !waitForCompile(window)) return false;
  QComboBox* box = window.tuning()->segmentBox();
  for (int i = 0; i < box->count(); ++i) {
    if (box->itemText(i).contains("inner_persistent")) {
      box->setCurrentIndex(i);
      return true;
    }
  }
  return false;
}

int columnOf(QTableWidget* table, const QString& header) {
  for (int c = 0; c < table->columnCount(); ++c) {
    if (table->horizontalHeaderItem(c)->text() == header) return c;
  }
  return -1;
}

}  // namespace

class GuiTuningTest : public QObject {
  Q_OBJECT
 private slots:
  // Issue 46 item 7: the empty plot's x axis read "0 0 0 1 1" (five
  // ticks over [0, 1] printed as integers); ticks are whole numbers now.
  void plotAxisTicksAreWholeNumbers() {
    TuningPlot plot;
    QCOMPARE(plot.xScale()->tickType(), QValueAxis::TicksDynamic);
    QCOMPARE(plot.xScale()->tickInterval(), 1.0);
    SpaceTable table;
    for (size_t id = 0; id < 100; ++id) table.rows.push_back({id, id == 0, true, {}, ""});
    plot.reset(table);
    for (size_t id = 0; id < 100; ++id) plot.addPoint(id, 1000.0 + static_cast<double>(id));
    QCOMPARE(plot.xScale()->tickInterval(), 20.0);
    QCOMPARE(plot.pointCount(), 100);
  }

  void initTestCase() {
    QCoreApplication::setOrganizationName("FuserLabTests");
    QSettings().clear();
  }

  void tuningTabReplacesThePlaceholder() {
    MainWindow window;
    QVERIFY(window.findChild<QWidget*>("tuningUnavailable") == nullptr);
    QVERIFY(window.tabs()->indexOf(window.tuning()) >= 0);
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(window.tuning())), QString("Tuning"));
  }

  void dryRunListsThePersistentSpace() {
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    TuningPanel* panel = window.tuning();
    QVERIFY(panel->dryRunButton()->isEnabled());
    QSignalSpy done(panel, &TuningPanel::dryRunFinished);
    QTest::mouseClick(panel->dryRunButton(), Qt::LeftButton);
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().first().toBool(), true);
    QTableWidget* table = panel->table();
    QVERIFY2(table->rowCount() > 8, qPrintable(panel->status()->text()));
    QVERIFY(table->item(0, 0)->text().contains("default"));
    const int vec = columnOf(table, "vectorization_factor");
    QVERIFY(vec >= 0);
    std::set<int> factors;
    for (int r = 0; r < table->rowCount(); ++r) factors.insert(table->item(r, vec)->text().toInt());
    QCOMPARE(factors, (std::set<int>{1, 2, 4, 8}));
    QVERIFY(columnOf(table, "persistent_storage") >= 0);
    QVERIFY(panel->status()->text().contains("inner_persistent"));
    // Exhaustive plans every variant.
    const int planned = columnOf(table, "planned");
    for (int r = 0; r < table->rowCount(); ++r)
      QCOMPARE(table->item(r, planned)->text(), QString("yes"));

    // A budget of 3 with the random strategy plans 3.
    panel->strategyBox()->setCurrentText("random");
    panel->budgetBox()->setValue(3);
    QTest::mouseClick(panel->dryRunButton(), Qt::LeftButton);
    QVERIFY(done.wait(60000));
    int yes = 0;
    for (int r = 0; r < table->rowCount(); ++r) yes += table->item(r, planned)->text() == "yes";
    QCOMPARE(yes, 3);
  }

  void withoutAGpuStartIsDisabled() {
    if (fuserlab::runtime::cudaDeviceCount() > 0) QSKIP("this machine has a GPU");
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    TuningPanel* panel = window.tuning();
    QVERIFY(panel->dryRunButton()->isEnabled());
    QVERIFY(!panel->startButton()->isEnabled());
    QCOMPARE(panel->gpuBox()->count(), 0);
    QVERIFY(panel->note()->text().contains("no GPU"));
    QVERIFY(panel->note()->text().contains("dry run"));
    panel->startSweep();  // ignored, not a crash
    QVERIFY(!panel->busy());
  }

  void sweepPlotsStoresAndHighlightsTheWinner() {
    QTemporaryDir dir;
    const QString db = dir.filePath("tuned.db");
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    window.database()->openDatabase(db);
    TuningPanel* panel = window.tuning();
    panel->setRunnerFactory(fakeFactory(3, 5), {"h100"});
    QVERIFY(panel->startButton()->isEnabled());
    panel->budgetBox()->setValue(6);
    QSignalSpy finished(panel, &TuningPanel::sweepFinished);
    QSignalSpy updated(panel, &TuningPanel::databaseUpdated);
    QTest::mouseClick(panel->startButton(), Qt::LeftButton);
    QVERIFY(panel->busy());
    QVERIFY(!panel->startButton()->isEnabled());
    QVERIFY(panel->cancelButton()->isEnabled());
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(panel->status()->text()));
    QCOMPARE(updated.count(), 1);
    QCOMPARE(panel->plot()->pointCount(), 6);
    QCOMPARE(panel->progress()->value(), 6);
    QCOMPARE(panel->plot()->winnerSeries()->count(), 1);
    QCOMPARE(panel->plot()->winnerSeries()->at(0).x(), 3.0);
    QVERIFY(panel->table()->item(3, 0)->font().bold());
    QVERIFY(panel->status()->text().contains("Stored as entry"));
    // Against vectorization, the winner sits at its variant's factor.
    const int vec = columnOf(panel->table(), "vectorization_factor");
    panel->plot()->setXAxis("vectorization_factor");
    QCOMPARE(panel->plot()->winnerSeries()->at(0).x(),
             panel->table()->item(3, vec)->text().toDouble());
    {
      fuserlab::db::HeuristicsDatabase check(db.toStdString(),
                                             fuserlab::db::HeuristicsDatabase::Access::Read);
      const auto entries = check.entries(true);
      QCOMPARE(entries.size(), size_t(1));
      QCOMPARE(entries[0].origin, std::string("tuner"));
      QCOMPARE(entries[0].variants.size(), size_t(6));
    }
    QVERIFY(window.database()->table()->rowCount() >= 1);
    QVERIFY(panel->startButton()->isEnabled());
  }

  void cancelSetsTheFlagAndStopsEarly() {
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    window.database()->openDatabase(dir.filePath("cancel.db"));
    TuningPanel* panel = window.tuning();
    panel->setRunnerFactory(fakeFactory(1, 150), {"h100"});
    QSignalSpy finished(panel, &TuningPanel::sweepFinished);
    panel->startSweep();
    QVERIFY(panel->cancelFlag() != nullptr);
    QVERIFY(!panel->cancelFlag()->load());
    QTRY_VERIFY_WITH_TIMEOUT(panel->plot()->pointCount() >= 1, 60000);
    QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
    QVERIFY(panel->cancelFlag() && panel->cancelFlag()->load());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(panel->status()->text().contains("Cancelled"));
    QVERIFY(panel->plot()->pointCount() < panel->table()->rowCount());
    QVERIFY(!panel->busy());
    QVERIFY(panel->cancelFlag() == nullptr);
  }

  // The window's executable serves the worker protocol: without a GPU (or
  // with a bad option) it answers one fatal line saying why, and exits 2.
  void workerModeAnswersTheProtocol() {
    QProcess worker;
    worker.start(FUSERLAB_GUI_BINARY, {"--tune-worker", kExamples + "layer_norm.py", "--segment",
                                       "0", "--device", "cuda:0", "--bogus", "1"});
    QVERIFY(worker.waitForStarted(10000));
    worker.closeWriteChannel();
    QVERIFY(worker.waitForFinished(60000));
    QCOMPARE(worker.exitCode(), 2);
    const QByteArray line = worker.readAllStandardOutput().trimmed();
    QVERIFY2(line.startsWith("{\"fatal\":"), line.constData());
    QVERIFY2(line.contains("unknown option --bogus"), line.constData());
  }

  // Issue 44: the workbench's worker argv forwarded only upcast and bookend,
  // so a sweep with the launch switches off measured with them on. Every
  // setting, the disabled passes, the definition, sizes and GPU now reach the
  // worker's parsed command.
  void workerArgvCarriesEveryCompileOption() {
    TuneRequest request;
    request.workerCommand = {"/bin/fuserlab", kTuneWorkerFlag};
    request.compile.fusionName = "second";
    request.compile.settings.inputs = "8x16:bf16";
    request.compile.settings.options.setFromAssignment("dependent_launch=off");
    request.compile.settings.options.setFromAssignment("graph_launch=off");
    request.compile.settings.options.setFromAssignment("upcast=forward");
    request.compile.settings.options.disablePass("consecutive_cast");
    request.segment = 2;
    request.gpu = "cuda:1";
    const std::vector<std::string> argv = workerArgv(request, "/tmp/script.py");
    QVERIFY(argv.size() > 2);
    QCOMPARE(argv[0], std::string("/bin/fuserlab"));
    QCOMPARE(argv[1], std::string(kTuneWorkerFlag));
    const fuserlab::tuner::WorkerCommand parsed =
        fuserlab::tuner::parseWorkerArguments({argv.begin() + 2, argv.end()});
    QVERIFY(!parsed.options.dependentLaunch);
    QVERIFY(!parsed.options.graphLaunch);
    QVERIFY(parsed.options.upcast == fuserlab::segmenter::UpcastStrategy::Forward);
    QVERIFY(!parsed.options.passEnabled("consecutive_cast"));
    QCOMPARE(parsed.options.toJson().dump(-1), request.compile.settings.options.toJson().dump(-1));
    QCOMPARE(parsed.script, std::string("/tmp/script.py"));
    QCOMPARE(parsed.fusion, std::string("second"));
    QCOMPARE(parsed.inputs, std::string("8x16:bf16"));
    QCOMPARE(parsed.segment, 2);
    QCOMPARE(parsed.device, 1);
  }

  // Issue 43: the worker reads its script as the CLI does (a regular file of
  // bounded size; a named pipe blocked it) and range-checks its numbers.
  void workerRefusesAPipeAndANumberPastItsRange() {
    QTemporaryDir dir;
    const QString pipe = dir.filePath("pipe.py");
    QCOMPARE(::mkfifo(QFile::encodeName(pipe).constData(), 0600), 0);
    const struct {
      QStringList args;
      const char* message;
    } cases[] = {
        {{"--tune-worker", pipe}, "it is a named pipe"},
        {{"--tune-worker", kExamples + "layer_norm.py", "--segment", "99999999999999999999"},
         "--segment expects an integer from 0 to 2147483647"},
    };
    for (const auto& c : cases) {
      QProcess worker;
      worker.start(FUSERLAB_GUI_BINARY, c.args);
      QVERIFY(worker.waitForStarted(10000));
      worker.closeWriteChannel();
      QVERIFY2(worker.waitForFinished(30000), c.message);
      QCOMPARE(worker.exitCode(), 2);
      const QByteArray line = worker.readAllStandardOutput().trimmed();
      QVERIFY2(line.startsWith("{\"fatal\":"), line.constData());
      QVERIFY2(line.contains(c.message), line.constData());
    }
  }

  // On a GPU machine: a real sweep through the worker process.
  void realSweepOnTheGpu() {
    if (fuserlab::runtime::cudaDeviceCount() == 0) QSKIP("no GPU on this machine");
    QTemporaryDir dir;
    const QString db = dir.filePath("gpu.db");
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    window.database()->openDatabase(db);
    TuningPanel* panel = window.tuning();
    panel->setWorkerExecutable(FUSERLAB_GUI_BINARY);
    QVERIFY(panel->startButton()->isEnabled());
    QCOMPARE(panel->gpuBox()->currentText(), QString("cuda:0"));
    panel->budgetBox()->setValue(4);
    QSignalSpy finished(panel, &TuningPanel::sweepFinished);
    panel->startSweep();
    QVERIFY(finished.wait(600000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(panel->status()->text()));
    QCOMPARE(panel->plot()->pointCount(), 4);
    QCOMPARE(panel->plot()->winnerSeries()->count(), 1);
    fuserlab::db::HeuristicsDatabase check(db.toStdString(),
                                           fuserlab::db::HeuristicsDatabase::Access::Read);
    QCOMPARE(check.entries().size(), size_t(1));
  }

  void errorsAreShownInThePanel() {
    MainWindow window;
    window.show();
    QVERIFY(openLayerNorm(window));
    TuningPanel* panel = window.tuning();
    window.database()->openDatabase("");
    panel->setRunnerFactory(fakeFactory(0, 0), {"h100"});
    QSignalSpy finished(panel, &TuningPanel::sweepFinished);
    panel->startSweep();  // no database chosen
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(panel->status()->text().contains("no database"));
  }

  // Metrics on the graph after a sweep: the tuned segment's winner time and
  // its speedup over the heuristic's params (default 1000 ns, winner 400 ns);
  // later, compiling with the database gives the same speedup from the
  // entry's measurements, with no sweep in this window.
  void sweepAndDatabaseShowTheTunedSpeedupOnTheGraph() {
    QTemporaryDir dir;
    const QString db = dir.filePath("tuned.db");
    int segment = -1;
    {
      MainWindow window;
      window.show();
      QVERIFY(openLayerNorm(window));
      segment = window.tuning()->segmentBox()->currentData().toInt();
      window.database()->openDatabase(db);
      TuningPanel* panel = window.tuning();
      panel->setRunnerFactory(fakeFactory(3, 1), {"h100"});
      panel->budgetBox()->setValue(6);
      QSignalSpy finished(panel, &TuningPanel::sweepFinished);
      panel->startSweep();
      QVERIFY(finished.wait(60000));
      GraphView* graph = window.graph();
      QTRY_VERIFY_WITH_TIMEOUT(graph->metricsShown() && !graph->pending(), 20000);
      const QString label = graph->metricLabelOf(segment);
      QVERIFY2(label.contains("0.4 us") && label.contains("2.50x tuned"), qPrintable(label));
    }
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "layer_norm.py") && waitForCompile(window));
    QVERIFY(!window.graph()->metricsShown());
    window.database()->openDatabase(db);
    window.database()->setUseForCompiling(true);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.service()->latest() && !window.service()->latest()->tunedSpeedups.empty(), 20000);
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot->tunedSpeedups.count(segment));
    QCOMPARE(qRound(snapshot->tunedSpeedups.at(segment) * 100), 250);
    GraphView* graph = window.graph();
    QTRY_VERIFY_WITH_TIMEOUT(graph->metricsShown() && !graph->pending(), 20000);
    QVERIFY2(graph->metricLabelOf(segment).contains("2.50x tuned"),
             qPrintable(graph->metricLabelOf(segment)));
    graph->setColourMetric(Metric::TunedSpeedup);
    QTRY_VERIFY_WITH_TIMEOUT(!graph->pending(), 20000);
    QCOMPARE(graph->segmentFillOf(segment), attentionColour(1));  // 2x and more: red
  }
};

QTEST_MAIN(GuiTuningTest)
#include "test_gui_tuning.moc"
