// The workbench's habits on the offscreen platform (issue 46 item 7): a
// window usable at 900 px wide, editor colours readable under a dark
// palette, input sizes remembered per file from one session to the next,
// and Compare against a baseline saved to a file.
#include <QComboBox>
#include <QDockWidget>
#include <QSettings>
#include <QTabWidget>
#include <QtTest>

#include "app/gui/compare_view.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/script_editor.h"
#include "tests/gui/window_test_support.h"

using namespace fuserlab::gui;
using namespace fuserlab::gui::testing;

namespace {

const QString kExamples = examplesDir();

}  // namespace

class GuiHabitsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("FuserLabHabitsTests");
    QSettings().clear();
  }

  // The window was at least 1258 px wide with the editor ~210 px (issue 46):
  // at 900 px it fits, the editor and the graph keep usable widths, and
  // Compare's two graphs fit side by side.
  void windowIsUsableAt900PixelsWide() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "layer_norm.py"));
    QVERIFY(waitForSnapshot(window));
    QVERIFY2(window.minimumSizeHint().width() <= 900,
             qPrintable(QString::number(window.minimumSizeHint().width())));
    window.resize(900, 700);
    QTest::qWait(50);
    QCOMPARE(window.width(), 900);
    QVERIFY2(window.editor()->width() >= 260,
             qPrintable(QString::number(window.editor()->width())));
    QVERIFY2(window.graph()->width() >= 380, qPrintable(QString::number(window.graph()->width())));
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      QVERIFY2(dock->isVisible() && dock->width() >= 150 && dock->width() <= 250,
               qPrintable(dock->objectName() + " " + QString::number(dock->width())));
    }
    window.tabs()->setCurrentWidget(window.compare());
    QTest::qWait(50);
    QVERIFY(window.compare()->graphA()->width() >= 150);
    QVERIFY(window.compare()->graphB()->width() >= 150);
    // A wide window keeps the docks as the user left them.
    window.resize(1600, 900);
    QTest::qWait(50);
    QVERIFY(window.editor()->width() >= 400);
  }
};

QTEST_MAIN(GuiHabitsTest)
#include "test_gui_habits.moc"
