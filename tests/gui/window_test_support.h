// Waiting on the main window in Qt Tests: its newest compile shown, its graph
// laid out, the editor's debounce passed; shared by the window's suites.
#pragma once

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QString>
#include <QtTest>

#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "tests/source_dir.h"

namespace fuserlab::gui::testing {

inline QString examplesDir() {
  return QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/");
}

// Waits for the window to show the snapshot of its newest request.
inline bool waitForSnapshot(MainWindow& window, int timeoutMs = 60000) {
  QSignalSpy shown(&window, &MainWindow::snapshotShown);
  if (!shown.wait(timeoutMs)) return false;
  QElapsedTimer timer;
  timer.start();
  while (window.service()->busy() && timer.elapsed() < timeoutMs) {
    QTest::qWait(20);
  }
  return !window.service()->busy();
}

inline bool waitForGraph(GraphView& graph, int timeoutMs = 60000) {
  QElapsedTimer timer;
  timer.start();
  while (graph.pending() && timer.elapsed() < timeoutMs) QTest::qWait(20);
  return !graph.pending();
}

inline bool waitForIdle(MainWindow& window, int timeoutMs = 60000) {
  QElapsedTimer timer;
  timer.start();
  QTest::qWait(450);  // past the editor's debounce
  while (window.service()->busy() && timer.elapsed() < timeoutMs) QTest::qWait(20);
  return !window.service()->busy();
}

inline int segmentCount(const MainWindow& window) {
  const auto snapshot = window.service()->latest();
  return snapshot && snapshot->report ? static_cast<int>(snapshot->report->segments.size()) : -1;
}

}  // namespace fuserlab::gui::testing
