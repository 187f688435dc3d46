// fuserlab: the FuserLab workbench.
//   fuserlab [FILE] [--set K=V]... [--disable-pass P]... [--device NAME]
//            [--inputs SPEC] [--db FILE] [--screenshot OUT.png]
//            [--metrics BENCH.json] [--colour-by METRIC] [--tab NAME]
//            [--baseline FILE] [--size WxH] [--dark] [--segments-only]
// --metrics and --baseline load their files once FILE has compiled, --tab and
// --size open the window so, --dark gives it a dark palette.
// With --screenshot it opens FILE, compiles it, renders the main window into
// OUT.png and exits (no display needed: it falls back to the offscreen
// platform): exit 0, or 2 when the script or an option is wrong (the
// screenshot then shows the error), 1 when the image cannot be written.
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QPixmap>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "app/gui/background_jobs.h"
#include "app/gui/compare_view.h"
#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/metrics_collector.h"
#include "app/gui/options_panel.h"
#include "app/gui/tune_worker.h"
#include "core/cuda/cuda_device.h"
#include "core/ir/error.h"

namespace {

bool wantsScreenshot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--screenshot" || arg.rfind("--screenshot=", 0) == 0) return true;
  }
  return false;
}

// Waits until the window shows the snapshot of its latest request.
void waitForCompile(fuserlab::gui::MainWindow& window, int timeoutMs) {
  if (!window.service()->busy() && window.service()->latest()) return;
  QEventLoop loop;
  QObject::connect(&window, &fuserlab::gui::MainWindow::snapshotShown, &loop, [&] {
    if (!window.service()->busy()) loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
}

// Waits until the graph shows the layout of the latest snapshot.
void waitForGraph(fuserlab::gui::GraphView& graph, int timeoutMs) {
  if (!graph.pending()) return;
  QEventLoop loop;
  QObject::connect(&graph, &fuserlab::gui::GraphView::laidOut, &loop, [&] {
    if (!graph.pending()) loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
}

// Fusion with a dark palette: how the workbench looks on a dark desktop.
void useDarkPalette(QApplication& app) {
  app.setStyle(QStyleFactory::create("Fusion"));
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(45, 45, 48));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::AlternateBase, QColor(40, 40, 42));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
  dark.setColor(QPalette::Button, QColor(50, 50, 54));
  dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
  dark.setColor(QPalette::Highlight, QColor(40, 90, 160));
  dark.setColor(QPalette::HighlightedText, Qt::white);
  app.setPalette(dark);
}

}  // namespace

int main(int argc, char** argv) {
  // The tuning panel's worker process: no window, the protocol on stdio.
  if (argc > 1 && std::string(argv[1]) == fuserlab::gui::kTuneWorkerFlag) {
    return fuserlab::gui::tuneWorkerMain(std::vector<std::string>(argv + 2, argv + argc));
  }
  const bool screenshot = wantsScreenshot(argc, argv);
  if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
      qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("FuserLab");
  QCoreApplication::setApplicationName("fuserlab");

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "FuserLab: see how a fusion is segmented, scheduled and "
      "generated, and what changes when you flip a switch.");
  parser.addHelpOption();
  parser.addPositionalArgument("FILE", "a FusionDefinition script (nvFuser's Python dialect)");
  const QCommandLineOption screenshotOption("screenshot", "render the window into OUT.png and exit",
                                            "OUT.png");
  const QCommandLineOption setOption("set", "a compile option, e.g. upcast=forward", "K=V");
  const QCommandLineOption disableOption("disable-pass", "switch a pass off", "PASS");
  const QCommandLineOption deviceOption("device", "a built-in device (h100, a100, ...) or cuda:N",
                                        "NAME");
  const QCommandLineOption inputsOption("inputs", "input sizes, e.g. 128x1024:bf16", "SPEC");
  const QCommandLineOption dbOption("db", "take params from this heuristics database", "FILE");
  const QCommandLineOption metricsOption(
      "metrics", "show the kernel times of a fuserlab-cli bench --json file on the graph", "FILE");
  const QCommandLineOption colourOption(
      "colour-by", "the metric that colours the graph's segments (kernel time, registers, ...)",
      "METRIC");
  const QCommandLineOption tabOption("tab", "open this tab (CUDA, Passes, Compare, Run, ...)",
                                     "NAME");
  const QCommandLineOption baselineOption("baseline", "compare with a saved baseline file", "FILE");
  const QCommandLineOption sizeOption("size", "the window's size, e.g. 900x700", "WxH");
  const QCommandLineOption darkOption("dark", "a dark palette");
  const QCommandLineOption segmentsOnlyOption("segments-only", "one graph node per segment");
  parser.addOptions({screenshotOption, setOption, disableOption, deviceOption, inputsOption,
                     dbOption, metricsOption, colourOption, tabOption, baselineOption, sizeOption,
                     darkOption, segmentsOnlyOption});
  parser.process(app);
  if (parser.isSet(darkOption)) useDarkPalette(app);

  fuserlab::gui::MainWindow window;
  fuserlab::gui::CompileSettings settings;
  if (!screenshot) settings = window.options()->settings();  // remembered ones
  try {
    if (parser.isSet(deviceOption)) {
      const std::string device = parser.value(deviceOption).toStdString();
      fuserlab::runtime::resolveDevice(device);  // a UserError names the known ones
      settings.device = device;
    }
    for (const QString& assignment : parser.values(setOption)) {
      settings.options.setFromAssignment(assignment.toStdString());
    }
    for (const QString& pass : parser.values(disableOption)) {
      settings.options.disablePass(pass.toStdString());
    }
    if (parser.isSet(inputsOption)) settings.inputs = parser.value(inputsOption).toStdString();
  } catch (const fuserlab::UserError& error) {
    std::fprintf(stderr, "fuserlab: %s\n", error.what());
    return 2;
  }
  window.options()->setSettings(settings);
  if (parser.isSet(dbOption)) {
    window.database()->openDatabase(parser.value(dbOption));
    window.database()->setUseForCompiling(true);
  }

  // Every option is checked before a script is opened: a wrong one is exit 2
  // with no window and no image.
  if (parser.isSet(sizeOption)) {
    const QStringList size = parser.value(sizeOption).split('x');
    const int width = size.value(0).toInt();
    const int height = size.value(1).toInt();
    if (size.size() != 2 || width < 200 || height < 200 || width > 10000 || height > 10000) {
      std::fprintf(stderr, "fuserlab: --size expects WIDTHxHEIGHT (200 to 10000), found %s\n",
                   qPrintable(parser.value(sizeOption)));
      return 2;
    }
    window.resize(width, height);
  }
  if (parser.isSet(tabOption)) {
    const QString name = parser.value(tabOption);
    QStringList names;
    int found = -1;
    for (int i = 0; i < window.tabs()->count(); ++i) {
      names << window.tabs()->tabText(i);
      if (window.tabs()->tabText(i).compare(name, Qt::CaseInsensitive) == 0) found = i;
    }
    if (found < 0) {
      std::fprintf(stderr, "fuserlab: --tab %s: no such tab; the tabs are %s\n", qPrintable(name),
                   qPrintable(names.join(", ")));
      return 2;
    }
    window.tabs()->setCurrentIndex(found);
  }
  QComboBox* colourBy = window.graph()->findChild<QComboBox*>("graphColourBy");
  const int colourIndex = colourBy->findText(parser.value(colourOption), Qt::MatchFixedString);
  if (parser.isSet(colourOption) && colourIndex < 0) {
    QStringList metrics;
    for (int i = 0; i < colourBy->count(); ++i) metrics << colourBy->itemText(i);
    std::fprintf(stderr, "fuserlab: --colour-by %s: not a metric; the metrics are %s\n",
                 qPrintable(parser.value(colourOption)), qPrintable(metrics.join(", ")));
    return 2;
  }
  const QStringList files = parser.positionalArguments();
  bool opened = true;
  if (!files.isEmpty()) opened = window.openFile(files.first());
  window.show();
  if (!screenshot) {
    // A metrics or baseline file goes on the first compile; a file that
    // cannot be read says why in the status bar.
    if (parser.isSet(metricsOption) || parser.isSet(baselineOption)) {
      auto once = std::make_shared<QMetaObject::Connection>();
      *once =
          QObject::connect(&window, &fuserlab::gui::MainWindow::snapshotShown, &window, [&, once] {
            QObject::disconnect(*once);
            QString error;
            if (parser.isSet(metricsOption) &&
                !window.loadMetrics(parser.value(metricsOption), &error)) {
              window.statusBar()->showMessage("No metrics loaded: " + error, 15000);
            }
            if (parser.isSet(colourOption)) colourBy->setCurrentIndex(colourIndex);
            if (parser.isSet(baselineOption) &&
                !window.compare()->loadBaseline(parser.value(baselineOption), &error)) {
              window.statusBar()->showMessage("No baseline loaded: " + error, 15000);
            }
          });
    }
    const int status = app.exec();
    // A compile or layout still running on the pool finishes before the
    // process's statics go (they are what it reads).
    QThreadPool::globalInstance()->waitForDone();
    return status;
  }

  if (files.isEmpty()) {
    std::fprintf(stderr, "fuserlab: --screenshot needs a FILE to open\n");
    return 2;
  }
  waitForCompile(window, 120000);
  waitForGraph(*window.graph(), 120000);
  if (parser.isSet(segmentsOnlyOption)) {
    window.graph()->setCollapsed(true);
    waitForGraph(*window.graph(), 120000);
  }
  if (parser.isSet(metricsOption)) {
    QString error;
    if (!window.loadMetrics(parser.value(metricsOption), &error)) {
      std::fprintf(stderr, "fuserlab: %s\n", qPrintable(error));
      fuserlab::gui::backgroundJobs()->waitForDone();
      return 2;
    }
    if (parser.isSet(colourOption)) colourBy->setCurrentIndex(colourIndex);
    // Registers and spills: NVRTC runs off the GUI thread.
    for (int waited = 0; window.metricsCollector()->busy() && waited < 120000; waited += 20) {
      QEventLoop loop;
      QTimer::singleShot(20, &loop, &QEventLoop::quit);
      loop.exec();
    }
    QApplication::processEvents();
    waitForGraph(*window.graph(), 120000);
  }
  if (parser.isSet(baselineOption)) {
    QString error;
    if (!window.compare()->loadBaseline(parser.value(baselineOption), &error)) {
      std::fprintf(stderr, "fuserlab: %s\n", qPrintable(error));
      fuserlab::gui::backgroundJobs()->waitForDone();
      return 2;
    }
    QEventLoop loop;
    QObject::connect(window.compare(), &fuserlab::gui::CompareView::compared, &loop,
                     &QEventLoop::quit);
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    loop.exec();
    waitForGraph(*window.compare()->graphA(), 120000);
    waitForGraph(*window.compare()->graphB(), 120000);
  }
  QApplication::processEvents();
  const QString out = parser.value(screenshotOption);
  if (!window.grab().save(out)) {
    std::fprintf(stderr, "fuserlab: cannot write the screenshot %s\n", qPrintable(out));
    return 1;
  }
  const auto snapshot = window.service()->latest();
  if (!opened || !snapshot || !snapshot->ok()) {
    std::fprintf(
        stderr, "fuserlab: %s\n",
        snapshot && snapshot->error ? snapshot->error->c_str() : "the script could not be opened");
    return 2;
  }
  std::printf("wrote %s: %s, %zu segments\n", qPrintable(out), snapshot->fusionName.c_str(),
              snapshot->report->segments.size());
  return 0;
}
