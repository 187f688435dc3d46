// fuserlab: the FuserLab workbench.
//   fuserlab [FILE] [--set K=V]... [--disable-pass P]... [--device NAME]
//            [--inputs SPEC] [--db FILE] [--screenshot OUT.png]
// With --screenshot it opens FILE, compiles it, renders the main window into
// OUT.png and exits (no display needed: it falls back to the offscreen
// platform): exit 0, or 2 when the script or an option is wrong (the
// screenshot then shows the error), 1 when the image cannot be written.
#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QPixmap>
#include <QThreadPool>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

#include "app/gui/database_panel.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
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
  parser.addOptions(
      {screenshotOption, setOption, disableOption, deviceOption, inputsOption, dbOption});
  parser.process(app);

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

  const QStringList files = parser.positionalArguments();
  bool opened = true;
  if (!files.isEmpty()) opened = window.openFile(files.first());
  window.show();
  if (!screenshot) {
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
