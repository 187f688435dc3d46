// The workbench's habits on the offscreen platform (issue 46 item 7): a
// window usable at 900 px wide, editor colours readable under a dark
// palette, input sizes remembered per file from one session to the next,
// and Compare against a baseline saved to a file.
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QSettings>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include "app/gui/compare_view.h"
#include "app/gui/graph_view.h"
#include "app/gui/main_window.h"
#include "app/gui/options_panel.h"
#include "app/gui/python_highlighter.h"
#include "app/gui/script_editor.h"
#include "core/report/report_reader.h"
#include "tests/gui/window_test_support.h"

using namespace fuserlab::gui;
using namespace fuserlab::gui::testing;

namespace {

const QString kExamples = examplesDir();

QPalette darkPalette() {
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(45, 45, 48));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::AlternateBase, QColor(40, 40, 40));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
  dark.setColor(QPalette::Button, QColor(45, 45, 48));
  dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
  return dark;
}

// The colours the highlighter gave the characters of the editor's text.
QList<QColor> drawnColours(const ScriptEditor& editor) {
  QList<QColor> colours;
  for (QTextBlock block = editor.document()->begin(); block.isValid(); block = block.next()) {
    for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
      if (range.format.hasProperty(QTextFormat::ForegroundBrush)) {
        colours << range.format.foreground().color();
      }
    }
  }
  return colours;
}

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

  // A dark palette left the syntax colours made for white: each highlight
  // format (and the error line's tint) now contrasts with the palette's base
  // by WCAG's 4.5 at least, and the characters are drawn in those colours.
  void editorColoursFollowADarkPalette() {
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "silu_mul.py"));
    ScriptEditor* editor = window.editor();
    const QColor lightBase = editor->palette().color(QPalette::Base);
    for (const QTextCharFormat& format : editor->highlighter()->formats()) {
      QVERIFY(contrastRatio(format.foreground().color(), lightBase) >= 4.5);
    }
    editor->setPalette(darkPalette());
    const QColor base = editor->palette().color(QPalette::Base);
    QCOMPARE(base, QColor(30, 30, 30));
    const auto formats = editor->highlighter()->formats();
    QVERIFY(formats.size() >= 7);
    for (const QTextCharFormat& format : formats) {
      const QColor colour = format.foreground().color();
      QVERIFY2(contrastRatio(colour, base) >= PythonHighlighter::kMinimumContrast,
               qPrintable(QString("%1 on %2: %3")
                              .arg(colour.name(), base.name())
                              .arg(contrastRatio(colour, base))));
    }
    const QList<QColor> drawn = drawnColours(*editor);
    QVERIFY(drawn.size() > 10);
    for (const QColor& colour : drawn) {
      QVERIFY2(contrastRatio(colour, base) >= PythonHighlighter::kMinimumContrast,
               qPrintable(colour.name()));
    }
    // The error line's tint under the palette's text.
    QVERIFY(contrastRatio(editor->errorLineBackground(), editor->palette().color(QPalette::Text)) >=
            PythonHighlighter::kMinimumContrast);
    // Also when the whole application turns dark.
    const QPalette before = qApp->palette();
    editor->setPalette(QPalette());
    qApp->setPalette(darkPalette());
    QTest::qWait(10);
    for (const QTextCharFormat& format : editor->highlighter()->formats()) {
      QVERIFY(contrastRatio(format.foreground().color(), QColor(30, 30, 30)) >= 4.5);
    }
    qApp->setPalette(before);
  }

  // The input sizes given for a file come back when it is opened again, in a
  // later session too; another file starts from its own inputs block.
  void inputsAreRememberedPerFile() {
    const QString silu = kExamples + "silu_mul.py";
    const QString sizes = "128x512:bf16,128x512:bf16";
    {
      MainWindow window;
      window.show();
      QVERIFY(window.openFile(silu));
      QVERIFY(waitForSnapshot(window));
      window.options()->inputsEdit()->setText(sizes);
      emit window.options()->inputsEdit()->editingFinished();
      QVERIFY(waitForSnapshot(window));
      const auto snapshot = window.service()->latest();
      QVERIFY(snapshot && snapshot->ok());
      QCOMPARE(snapshot->inputsOrigin, std::string("the inputs setting"));
      QVERIFY(window.openFile(kExamples + "rms_norm.py"));
      QVERIFY(window.options()->inputsEdit()->text().isEmpty());
      QVERIFY(waitForSnapshot(window));
      QCOMPARE(window.service()->latest()->inputsOrigin, std::string("the inputs block"));
    }
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(silu));
    QCOMPARE(window.options()->inputsEdit()->text(), sizes);
    QVERIFY(waitForSnapshot(window));
    const auto snapshot = window.service()->latest();
    QVERIFY(snapshot && snapshot->ok());
    bool resized = false;
    for (const auto& value : snapshot->report->values) {
      resized = resized || (value.isFusionInput && value.shape == std::vector<int64_t>{128, 512});
    }
    QVERIFY(resized);
    // Cleared, the file goes back to its inputs block next time.
    window.options()->inputsEdit()->clear();
    emit window.options()->inputsEdit()->editingFinished();
    QVERIFY(waitForSnapshot(window));
    QVERIFY(window.openFile(kExamples + "rms_norm.py"));
    QVERIFY(window.openFile(silu));
    QVERIFY(window.options()->inputsEdit()->text().isEmpty());
  }

  // Compare against a baseline file (Nsight Compute's habit): side A's
  // compile saved as JSON in one session, loaded in another as side A, and
  // B compiled now is compared with it, per param and graph.
  void compareAgainstABaselineSavedToAFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("privatize.json");
    {
      MainWindow window;
      window.show();
      QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
      QTRY_VERIFY_WITH_TIMEOUT(window.compare()->differences() > 0, 60000);
      QString error;
      QVERIFY2(window.compare()->saveBaseline(path, &error), qPrintable(error));
      // What is saved reads back as the same report.
      QFile file(path);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const auto root = fuserlab::report::Json::parse(file.readAll().toStdString());
      const auto& saved = *root.get("report");
      QCOMPARE(fuserlab::report::reportFromJson(saved).toJson().dump(), saved.dump());
      QCOMPARE(saved.dump(), window.compare()->snapshotA()->report->toJson().dump());
    }
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kExamples + "seed000_forwarding_miss.py"));
    QTRY_VERIFY_WITH_TIMEOUT(window.compare()->differences() > 0, 60000);
    CompareView* compare = window.compare();
    // This session's A is recompiled with upcast=forward, as B: only the
    // baseline file can make a difference.
    compare->sideA()->upcastBox()->setCurrentIndex(
        compare->sideA()->upcastBox()->findData("forward"));
    QTRY_COMPARE_WITH_TIMEOUT(compare->differences(), 0, 60000);
    QString error;
    QVERIFY2(compare->loadBaseline(path, &error), qPrintable(error));
    QVERIFY(compare->baselinePinned());
    QCOMPARE(compare->baselineFile(), QString("privatize.json"));
    QTRY_VERIFY_WITH_TIMEOUT(compare->differences() > 0, 60000);
    QTableWidget* table = compare->table();
    QVERIFY(table->rowCount() > 2);
    QCOMPARE(table->item(0, 0)->text(), QString("options"));
    QVERIFY2(table->item(0, 1)->text().startsWith("baseline privatize.json"),
             qPrintable(table->item(0, 1)->text()));
    QVERIFY(table->item(0, 1)->text().contains("upcast=privatize"));
    QVERIFY(table->item(0, 2)->text().contains("upcast=forward"));
    QVERIFY(waitForGraph(*compare->graphA()));
    QVERIFY(compare->graphA()->clusterCount() > 0);
    // Not a baseline: refused, the loaded one stays.
    const QString other = dir.filePath("other.json");
    QVERIFY(window.exportReportJson(other));
    QVERIFY(!compare->loadBaseline(other, &error));
    QVERIFY2(error.contains("not a Compare baseline"), qPrintable(error));
    QCOMPARE(compare->baselineFile(), QString("privatize.json"));
    // Unpinned, A compiles from the script again.
    compare->setBaselinePinned(false);
    QVERIFY(compare->baselineFile().isEmpty());
  }
};

QTEST_MAIN(GuiHabitsTest)
#include "test_gui_habits.moc"
