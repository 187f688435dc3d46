// `fuserlab FILE --screenshot OUT.png` as docs and CI use it: it exits 0,
// and the image is the whole window with content (many distinct colours,
// not a blank or single-colour frame). Runs on whatever platform the
// environment names: ctest runs it offscreen and under Xvfb.
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/source_dir.h"

namespace {

const QString kExamples =
    QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/");

int runFuserlab(const QStringList& args, QString* output = nullptr) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(FUSERLAB_GUI_BINARY, args);
  if (!process.waitForFinished(180000)) return -1;
  if (output) *output = QString::fromUtf8(process.readAll());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
}

int distinctColors(const QImage& image) {
  QSet<QRgb> colors;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colors.insert(image.pixel(x, y));
  }
  return colors.size();
}

}  // namespace

class GuiScreenshotTest : public QObject {
  Q_OBJECT
 private slots:
  void screenshotOfSeed001IsNotBlank() {
    QTemporaryDir dir;
    const QString png = dir.filePath("seed001.png");
    QString output;
    const int code =
        runFuserlab({kExamples + "seed001_nanogpt_layer_norm.py", "--screenshot", png}, &output);
    QVERIFY2(code == 0, qPrintable(output));
    QVERIFY2(output.contains("segments"), qPrintable(output));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 500);
    const int colors = distinctColors(image);
    qInfo("%dx%d, %d distinct colours", image.width(), image.height(), colors);
    QVERIFY2(colors >= 64, qPrintable(QString("only %1 distinct colours").arg(colors)));
  }

  void screenshotTakesOptionsAndDevice() {
    QTemporaryDir dir;
    const QString png = dir.filePath("seed000.png");
    QString output;
    const int code = runFuserlab({kExamples + "seed000_forwarding_miss.py", "--set",
                                  "upcast=forward", "--device", "a100", "--screenshot", png},
                                 &output);
    QVERIFY2(code == 0, qPrintable(output));
    QVERIFY(!QImage(png).isNull());
  }

  void badOptionExitsTwo() {
    QTemporaryDir dir;
    QString output;
    const int code = runFuserlab({kExamples + "seed000_forwarding_miss.py", "--set",
                                  "upcast=sideways", "--screenshot", dir.filePath("x.png")},
                                 &output);
    QCOMPARE(code, 2);
    QVERIFY2(output.contains("privatize"), qPrintable(output));  // lists the values
  }

  // The options that open a view for a screenshot: a tab, a window size,
  // a dark palette; a wrong one is exit 2 with no image.
  void screenshotOpensATabAtASize() {
    QTemporaryDir dir;
    const QString png = dir.filePath("compare.png");
    QString output;
    QCOMPARE(runFuserlab({kExamples + "silu_mul.py", "--tab", "compare", "--size", "900x700",
                          "--dark", "--screenshot", png},
                         &output),
             0);
    const QImage image(png);
    QCOMPARE(image.width(), 900);
    QCOMPARE(image.height(), 700);
    for (const QStringList& wrong : {QStringList{"--tab", "nowhere"}, QStringList{"--size", "9"},
                                     QStringList{"--colour-by", "beauty"}}) {
      const QString none = dir.filePath("none.png");
      QCOMPARE(runFuserlab(QStringList{kExamples + "silu_mul.py"} + wrong +
                               QStringList{"--screenshot", none},
                           &output),
               2);
      QVERIFY2(output.contains(wrong.first()), qPrintable(output));
      QVERIFY(!QFile::exists(none));
    }
  }

  void brokenScriptStillRendersAndExitsTwo() {
    QTemporaryDir dir;
    const QString script = dir.filePath("broken.py");
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("def f(fd):\n    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float\n");
    file.close();
    const QString png = dir.filePath("broken.png");
    QString output;
    QCOMPARE(runFuserlab({script, "--screenshot", png}, &output), 2);
    QVERIFY(!QImage(png).isNull());
  }
};

QTEST_MAIN(GuiScreenshotTest)
#include "test_gui_screenshot.moc"
