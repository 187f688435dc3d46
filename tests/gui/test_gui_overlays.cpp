// What the graph shows over a fusion's drawing (issue 46, "what the anchors
// have"), driven on the offscreen platform: the metrics overlay from a bench
// file (kernel time, % of copy bandwidth, registers and spills by colour and
// label, with a legend and a switch), jumping to a tensor's producer and
// consumers, and edge labels with dtype and shape.
#include <QAction>
#include <QCheckBox>
#include <QFile>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QMenu>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "app/gui/compile_job.h"
#include "app/gui/graph_view.h"
#include "app/gui/kernel_usage_job.h"
#include "app/gui/main_window.h"
#include "app/gui/metrics_collector.h"
#include "app/gui/metrics_legend.h"
#include "app/gui/run_panel.h"
#include "app/gui/script_editor.h"
#include "app/gui/segment_metrics.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/gui/window_test_support.h"
#include "tests/viz/layout_shapes.h"

using namespace fuserlab::gui;
using namespace fuserlab::gui::testing;

namespace {

const QString kExamples = examplesDir();

// What `fuserlab-cli bench cross_entropy_loss.py --json` writes
// (app/cli/command_bench.cpp), by hand: two kernels, 10 us and 40 us, and a
// copy bandwidth of 3 TB/s.
const char* kBenchJson = R"({
  "fusion": "nvfuser_fusion_id0",
  "file": "cross_entropy_loss.py",
  "device": {"key": "cuda:0", "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"},
  "inputs": ["bf16[128, 32003]", "i64[128]"],
  "samples": 50,
  "warmup": 5,
  "l2_flush_bytes": 104857600,
  "gpu_us": {"median": 52.5, "p20": 52.1, "p80": 53.0, "min": 51.9, "max": 54.2, "count": 50},
  "samples_us": [52.5, 52.4],
  "launches": [
    {"what": "inner_persistent_seg0", "us": {"median": 11.0, "p20": 10.9, "p80": 11.2, "min": 10.8, "max": 11.5, "count": 50}},
    {"what": "reduction_seg1", "us": {"median": 41.0, "p20": 40.8, "p80": 41.3, "min": 40.6, "max": 41.9, "count": 50}}
  ],
  "kernel_launches": 2,
  "dependent_launches": 1,
  "bytes_moved": 16785408,
  "effective_bandwidth_bytes_per_s": 319722057142.8,
  "copy": {"bytes": 1073741824, "us": {"median": 715.8, "p20": 715.1, "p80": 716.4, "min": 714.9, "max": 717.0, "count": 10}, "bandwidth_bytes_per_s": 3.0e12},
  "bandwidth_ratio": 0.1066,
  "cupti_kernels": {
    "span_us": {"median": 50.2, "p20": 50.0, "p80": 50.5, "min": 49.9, "max": 51.0, "count": 50},
    "busy_us": {"median": 50.0, "p20": 49.8, "p80": 50.3, "min": 49.7, "max": 50.8, "count": 50},
    "kernels": [
      {"name": "inner_persistent_seg0", "us": {"median": 10.0, "p20": 9.9, "p80": 10.1, "min": 9.8, "max": 10.4, "count": 50}},
      {"name": "reduction_seg1", "us": {"median": 40.0, "p20": 39.8, "p80": 40.2, "min": 39.7, "max": 40.6, "count": 50}}
    ],
    "bandwidth_bytes_per_s": 334370517928.2,
    "bandwidth_ratio": 0.1114
  },
  "host_us": {"median": 4.1, "p20": 4.0, "p80": 4.3, "min": 3.9, "max": 5.0, "count": 50},
  "host_us_per_launch": 2.05,
  "compile_us": 812.5,
  "params_sources": ["heuristic", "heuristic"],
  "heuristics_db": null
}
)";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  QString path = dir.filePath(name);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) return {};
  return path;
}

std::string readExample(const QString& name) {
  QFile file(kExamples + name);
  return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

bool nvrtcAvailable() {
  try {
    return !fuserlab::runtime::nvrtcSupportedArchitectures().empty();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

class GuiOverlaysTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("FuserLabOverlaysTests");
    QSettings().clear();
  }

  // A file bench wrote on an H200 (this session's device run, rms_norm.py):
  // its kernel's CUPTI time labels the one segment.
  void aBenchFileFromAnH200LabelsItsSegment() {
    const QString bench = QString::fromStdString(fuserlab::test::sourceDir() +
                                                 "/tests/gui/data/h200_bench_rms_norm.json");
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "rms_norm.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    QString error;
    QVERIFY2(window.loadMetrics(bench, &error), qPrintable(error));
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->metricsShown());
    const QString label = graph->metricLabelOf(0);
    QVERIFY2(label.contains("3.46 us"), qPrintable(label));
    QVERIFY2(graph->legend()->text().contains("h200_bench_rms_norm.json"),
             qPrintable(graph->legend()->text()));
  }

  // Metrics on the graph from a bench --json file: each segment labelled
  // with its kernel time and % of the copy bandwidth (and, from NVRTC,
  // registers and spills), coloured by kernel time with a legend; the
  // "metrics" switch takes the overlay off again.
  void benchMetricsColourAndLabelTheSegments() {
    QTemporaryDir dir;
    const QString bench = writeFile(dir, "bench.json", kBenchJson);
    QVERIFY(!bench.isEmpty());
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "cross_entropy_loss.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot && snapshot->report);
    QCOMPARE(snapshot->report->segments.size(), size_t(2));
    QVERIFY(!graph->metricsShown());
    const QColor schedulerFill = graph->segmentFillOf(0);
    QVERIFY(schedulerFill.isValid());

    QString error;
    QVERIFY2(window.loadMetrics(bench, &error), qPrintable(error));
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->metricsShown());
    const QString first = graph->metricLabelOf(0);
    const QString second = graph->metricLabelOf(1);
    QVERIFY2(first.contains("10 us"), qPrintable(first));
    QVERIFY2(second.contains("40 us"), qPrintable(second));
    // Segment 0's bytes (inputs read once, outputs written once) over 10 us,
    // against the copy's 3 TB/s.
    const double fraction = double(segmentBytes(*snapshot->report, 0)) / 10e-6 / 3.0e12;
    QVERIFY(fraction > 0);
    QVERIFY2(first.contains(QString("%1% copy BW").arg(fraction * 100, 0, 'f', 0)),
             qPrintable(first));
    // The label is drawn on the segment's box, under its title.
    bool drawn = false;
    for (QGraphicsItem* item : graph->scene()->items()) {
      if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item)) {
        drawn = drawn || (text->text().startsWith("segment 1") && text->text().contains("40 us"));
      }
    }
    QVERIFY(drawn);
    // Coloured by kernel time: the slower kernel red, the faster green.
    QCOMPARE(graph->colourMetric(), Metric::KernelTime);
    QCOMPARE(graph->segmentFillOf(0), attentionColour(0));
    QCOMPARE(graph->segmentFillOf(1), attentionColour(1));
    QVERIFY(graph->legend()->isVisible());
    qInfo("segment labels: '%s' / '%s'", qPrintable(first), qPrintable(second));
    QVERIFY2(graph->legend()->text().contains("kernel time (bench.json"),
             qPrintable(graph->legend()->text()));
    QVERIFY2(graph->legend()->text().contains("green 10 us ... red 40 us"),
             qPrintable(graph->legend()->text()));

    // Registers and spills: ptxas's report when NVRTC compiles the kernels.
    if (nvrtcAvailable()) {
      QTRY_VERIFY_WITH_TIMEOUT(graph->metricLabelOf(0).contains("regs"), 120000);
      QVERIFY(waitForGraph(*graph));
      QVERIFY2(graph->metricLabelOf(1).contains("regs"), qPrintable(graph->metricLabelOf(1)));
      qInfo("with ptxas: '%s'", qPrintable(graph->metricLabelOf(1)));
      QVERIFY2(graph->metricLabelOf(0).contains(QRegularExpression("no spills|B spilled")),
               qPrintable(graph->metricLabelOf(0)));
      graph->setColourMetric(Metric::Registers);
      QVERIFY(waitForGraph(*graph));
      const auto metrics = window.metricsCollector()->metrics();
      const MetricScale registers(Metric::Registers, metrics);
      QCOMPARE(graph->segmentFillOf(1), registers.colour(metrics.at(1).value(Metric::Registers)));
      QVERIFY(graph->legend()->text().startsWith("registers"));
      graph->setColourMetric(Metric::KernelTime);
      QVERIFY(waitForGraph(*graph));
    } else {
      qWarning("NVRTC is not available: registers and spills not checked");
    }

    // The switch: the scheduler's colours again, no metric lines, no legend.
    graph->setMetricsShown(false);
    QVERIFY(waitForGraph(*graph));
    QCOMPARE(graph->segmentFillOf(0), schedulerFill);
    QVERIFY(graph->metricLabelOf(0).isEmpty());
    QVERIFY(!graph->legend()->isVisible());
    // A recompile keeps the figures that still apply (and the switch off).
    window.recompile();
    QVERIFY(waitForSnapshot(window));
    QVERIFY(waitForGraph(*graph));
    QVERIFY(!graph->metricsShown());
    graph->setMetricsShown(true);
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->metricLabelOf(1).contains("40 us"));
    // Another script: the figures were measured on this one.
    QVERIFY(window.openFile(kExamples + "silu_mul.py"));
    QVERIFY(waitForSnapshot(window));
    QVERIFY(waitForGraph(*graph));
    QVERIFY(!graph->metricsShown());
    QVERIFY(graph->metricLabelOf(0).isEmpty());
  }

  // Registers and spills are NVRTC's, once per kernel source: kernels alike
  // but for their names, and the same kernels again, are not recompiled.
  void kernelUsageCompilesEachSourceOnce() {
    if (!nvrtcAvailable()) QSKIP("NVRTC is not available");
    const auto snapshot = std::make_shared<CompileSnapshot>(
        runCompileJob({readExample("silu_mul.py"), "silu_mul.py", "", {}}));
    QVERIFY(snapshot->ok());
    QCOMPARE(snapshot->kernels.size(), size_t(1));
    std::vector<SegmentCode> kernels(3, snapshot->kernels.front());
    for (int i = 1; i < 3; ++i) {
      // The same kernel under another name, as a loop of alike ops makes.
      const std::string name = "pointwise_seg" + std::to_string(10 + i);
      std::string& source = kernels[i].source;
      for (size_t at = source.find(kernels[0].kernelName); at != std::string::npos;
           at = source.find(kernels[0].kernelName, at + 1)) {
        source.replace(at, kernels[0].kernelName.size(), name);
      }
      kernels[i].kernelName = name;
      kernels[i].segment = 10 + i;
    }
    const int64_t before = kernelUsageNvrtcRuns();
    const KernelUsage usage = kernelUsageJob(kernels, 90);
    QVERIFY2(usage.error.empty(), usage.error.c_str());
    QCOMPARE(usage.bySegment.size(), size_t(3));
    QVERIFY(usage.bySegment.at(0).registers > 0);
    QCOMPARE(usage.bySegment.at(12).registers, usage.bySegment.at(0).registers);
    QVERIFY(kernelUsageNvrtcRuns() - before <= 1);
    const int64_t once = kernelUsageNvrtcRuns();
    QCOMPARE(kernelUsageJob(kernels, 90).bySegment.size(), size_t(3));
    QCOMPARE(kernelUsageNvrtcRuns(), once);
  }

  // A GPU run with "time the kernels" puts its kernel times on the graph
  // (the run is faked: this machine has no GPU; the panel's signal is what
  // the run job's figures arrive by).
  void aTimedGpuRunShowsItsKernelTimes() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "cross_entropy_loss.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    QVERIFY(waitForGraph(*graph));
    KernelFigures figures;
    figures.origin = "GPU run";
    figures.kernels = {{"reduction_seg1", 25.0}, {"pointwise_seg7", 3.0}, {"cutlass_gemm", 9.0}};
    emit window.runPanel()->kernelsTimed(figures);
    QVERIFY(graph->metricsShown());
    QVERIFY(waitForGraph(*graph));
    QVERIFY2(graph->metricLabelOf(1).startsWith("25 us"), qPrintable(graph->metricLabelOf(1)));
    QVERIFY(!graph->metricLabelOf(1).contains("copy BW"));  // no copy bandwidth measured
    // No kernel of segment 0 was timed (and no other name matches a segment).
    QVERIFY(!graph->metricLabelOf(0).contains(" us"));
    QCOMPARE(graph->segmentFillOf(0), unmeasuredColour());
    QVERIFY2(graph->legend()->text().contains("GPU run"), qPrintable(graph->legend()->text()));
  }

  // Kernel times read as people write them, never with an exponent.
  void kernelTimesHaveNoExponent() {
    QCOMPARE(microsecondsText(0.4123), std::string("0.412 us"));
    QCOMPARE(microsecondsText(40), std::string("40 us"));
    QCOMPARE(microsecondsText(1234.5), std::string("1234 us"));
    SegmentMetrics metrics;
    metrics.kernelMicroseconds = 2500;
    metrics.spillBytes = 48;
    QCOMPARE(metrics.label(), std::string("2500 us, 48 B spilled"));
  }

  // A file that is not bench's JSON is refused with what is missing.
  void aFileThatIsNotABenchResultIsRefused() {
    QTemporaryDir dir;
    const QString report = writeFile(dir, "report.json", R"({"segments": []})");
    const QString broken = writeFile(dir, "broken.json", "{\"cupti_kernels\": ");
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "silu_mul.py"));
    QVERIFY(waitForSnapshot(window));
    QString error;
    QVERIFY(!window.loadMetrics(report, &error));
    QVERIFY2(error.contains("cupti_kernels") && error.contains("bench --json"), qPrintable(error));
    QVERIFY(!window.loadMetrics(broken, &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!window.loadMetrics(dir.filePath("missing.json"), &error));
    QVERIFY(!window.graph()->metricsShown());
  }

  // Go to producer / consumer: from the context menu of a node and with
  // Alt+Up / Alt+Down, the other views following (editor line, segment).
  void jumpsToAProducerAndAConsumer() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "silu_mul.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    graph->setCollapsed(false);
    QVERIFY(waitForGraph(*graph));
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot && snapshot->report);
    // silu_mul.py: line 12 T3 = silu(T2), 13 T4 = cast(T1), 14 T5 = mul(T3, T4).
    QMap<QString, QString> ir;
    QMap<QString, int> line;
    for (const auto& v : snapshot->report->values) {
      if (v.scriptName.empty()) continue;
      ir[QString::fromStdString(v.scriptName)] = QString::fromStdString(v.name);
      line[QString::fromStdString(v.scriptName)] = v.scriptLine;
    }
    QVERIFY(ir.contains("T3") && ir.contains("T4") && ir.contains("T5"));
    QCOMPARE(graph->producersOf(ir["T5"]), QStringList({ir["T3"], ir["T4"]}));
    QCOMPARE(graph->consumersOf(ir["T4"]), QStringList({ir["T5"]}));

    QVERIFY(graph->jumpTo(ir["T5"]));
    QCOMPARE(graph->selectedValue(), ir["T5"]);
    QCOMPARE(window.editor()->textCursor().blockNumber() + 1, line["T5"]);
    // Alt+Up: the first operand; the editor goes to its line.
    graph->producerAction()->trigger();
    QCOMPARE(graph->selectedValue(), ir["T3"]);
    QCOMPARE(window.editor()->textCursor().blockNumber() + 1, line["T3"]);
    QCOMPARE(window.selectedSegment(), 0);
    // Alt+Down: back to what reads it.
    graph->consumerAction()->trigger();
    QCOMPARE(graph->selectedValue(), ir["T5"]);
    // The menu bar's View menu carries the shortcuts.
    QCOMPARE(graph->producerAction()->shortcut(), QKeySequence("Alt+Up"));
    QCOMPARE(graph->consumerAction()->shortcut(), QKeySequence("Alt+Down"));
    QVERIFY(!graph->producerAction()->associatedObjects().isEmpty());
    QVERIFY(!graph->consumerAction()->associatedObjects().isEmpty());

    // The node's context menu: each producer and consumer by script name.
    std::unique_ptr<QMenu> menu(graph->valueMenu(ir["T5"], graph));
    QStringList texts;
    QAction* toT4 = nullptr;
    for (QAction* action : menu->actions()) {
      texts << action->text();
      if (action->text() == "Go to producer T4") toT4 = action;
    }
    QVERIFY2(texts.contains("Go to producer T3") && toT4 != nullptr, qPrintable(texts.join("|")));
    QVERIFY2(texts.contains("No consumer") || texts.filter("Go to consumer").size() == 1,
             qPrintable(texts.join("|")));
    toT4->trigger();
    QCOMPARE(graph->selectedValue(), ir["T4"]);
    QCOMPARE(window.editor()->textCursor().blockNumber() + 1, line["T4"]);
    // A fusion input has no producer: the selection stays, the status says so.
    QVERIFY(graph->jumpTo(ir["T0"]));
    QCOMPARE(graph->jumpToProducer(), QString());
    QCOMPARE(graph->selectedValue(), ir["T0"]);
    QVERIFY2(graph->statusText().contains("no producer"), qPrintable(graph->statusText()));
  }

  // Edge labels: every edge's dtype and shape when asked (remembered), only
  // the edges between segments without, and none on a dense graph.
  void edgeLabelsGiveDtypeAndShapeUnlessTheGraphIsDense() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "silu_mul.py"));
    QVERIFY(waitForSnapshot(window));
    GraphView* graph = window.graph();
    graph->setCollapsed(false);
    graph->setEdgeLabels(true);
    QVERIFY(waitForGraph(*graph));
    QVERIFY(graph->edgeLabelsDrawn());
    QVERIFY(graph->edgeCount() > 4);
    QCOMPARE(graph->edgeLabelCount(), graph->edgeCount());
    int shapes = 0;
    for (QGraphicsItem* item : graph->scene()->items()) {
      auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
      if (text && text->text() == "BFloat16 [256, 11008]") ++shapes;
      if (text && text->text() == "Float [256, 11008]") ++shapes;
    }
    QVERIFY(shapes >= 4);
    graph->setEdgeLabels(false);
    QVERIFY(waitForGraph(*graph));
    QCOMPARE(graph->edgeLabelCount(), 0);  // one segment: no edge crosses
    QVERIFY(!GraphView().edgeLabels());    // remembered
    graph->setEdgeLabels(true);
    QVERIFY(GraphView().edgeLabels());

    // Dense: a 100-op chain reading a shared tensor has far more edges.
    QTemporaryDir dir;
    const QString chain =
        writeFile(dir, "chain.py",
                  QByteArray::fromStdString(fuserlab::viz::testing::sharedInputChainScript(100)));
    QVERIFY(window.openFile(chain));
    QVERIFY(waitForSnapshot(window));
    graph->setCollapsed(false);
    QVERIFY(waitForGraph(*graph, 30000));
    QVERIFY(graph->edgeCount() > GraphView::kEdgeLabelsMaxEdges);
    QVERIFY(!graph->edgeLabelsDrawn());
    QVERIFY2(graph->statusText().contains("edge labels off"), qPrintable(graph->statusText()));
    QVERIFY(graph->edgeLabelCount() < graph->edgeCount() / 4);
  }
};

QTEST_MAIN(GuiOverlaysTest)
#include "test_gui_overlays.moc"
