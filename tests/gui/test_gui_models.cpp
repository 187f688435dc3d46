// The inspector's and the passes' models over real compile snapshots, each
// under QAbstractItemModelTester; the compile job's snapshot itself, and how
// the compile, run and tuning jobs pick a definition.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QtTest>

#include "app/gui/compile_job.h"
#include "app/gui/passes_model.h"
#include "app/gui/report_model.h"
#include "app/gui/run_job.h"
#include "app/gui/tune_job.h"
#include "tests/source_dir.h"

using namespace fuserlab::gui;

namespace {

std::string readExample(const char* name) {
  QFile file(QString::fromStdString(fuserlab::test::sourceDir() + "/resources/examples/") + name);
  if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", name);
  return file.readAll().toStdString();
}

SnapshotPtr compile(const char* example, const char* upcast = "privatize") {
  CompileRequest request;
  request.source = readExample(example);
  request.fileName = example;
  request.settings.options.set("upcast", upcast);
  return std::make_shared<CompileSnapshot>(runCompileJob(request));
}

}  // namespace

class GuiModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void compileJobGivesReportAndKernels() {
    const SnapshotPtr snapshot = compile("seed001_nanogpt_layer_norm.py");
    QVERIFY2(snapshot->ok(), snapshot->error.value_or("").c_str());
    QVERIFY(!snapshot->report->segments.empty());
    QCOMPARE(snapshot->deviceName.empty(), false);
    int kernels = 0;
    for (const auto& segment : snapshot->report->segments) {
      if (!segment.launchesKernel) continue;
      ++kernels;
      const SegmentCode* code = snapshot->codeFor(segment.id);
      QVERIFY(code != nullptr);
      QVERIFY2(code->source.find("__global__") != std::string::npos, code->error.c_str());
    }
    QVERIFY(kernels > 0);
    QCOMPARE(snapshot->segmentHashes.empty(), false);
  }

  void compileJobLocatesSyntaxErrors() {
    CompileRequest request;
    request.source = readExample("seed000_forwarding_miss.py");
    const std::string::size_type at = request.source.find("T3 = fd.ops.sum(");
    QVERIFY(at != std::string::npos);
    request.source.insert(at + std::string("T3 = fd.ops.sum(").size(), ")(");
    request.fileName = "broken.py";
    const CompileSnapshot snapshot = runCompileJob(request);
    QVERIFY(!snapshot.ok());
    QVERIFY(snapshot.errorLocation.has_value());
    QCOMPARE(snapshot.errorLocation->line, 12);  // the T3 line of the example
    QVERIFY(snapshot.errorLocation->column > 0);
    QVERIFY(!snapshot.report.has_value());
  }

  // Issue 44: the jobs pick the definition through frontend::selectFusion.
  // The run and tuning jobs (script_loader) silently used the executed
  // definition for a name the script does not define; now each job refuses
  // it and lists the definitions, as the compile job and the CLI do.
  void jobsRefuseAnUnknownDefinition() {
    CompileRequest compile;
    compile.source = readExample("two_fusions.py");
    compile.fileName = "two_fusions.py";
    compile.fusionName = "nvfuser_fusion_id9";
    const std::string expected =
        "two_fusions.py has no fusion definition named 'nvfuser_fusion_id9'; it defines: "
        "nvfuser_fusion_id0, nvfuser_fusion_id1";
    const CompileSnapshot snapshot = runCompileJob(compile);
    QVERIFY(!snapshot.ok());
    QVERIFY2(snapshot.error->find(expected) != std::string::npos, snapshot.error->c_str());
    RunRequest run;
    run.compile = compile;
    const RunResult ran = runFusionJob(run);
    QVERIFY2(ran.error.has_value(), "ran another definition");
    QVERIFY2(ran.error->find(expected) != std::string::npos, ran.error->c_str());
    TuneRequest tune;
    tune.compile = compile;
    const DryRunResult dry = dryRunJob(tune);
    QVERIFY2(dry.error.has_value(), dry.table.heading.c_str());
    QVERIFY2(dry.error->find(expected) != std::string::npos, dry.error->c_str());
    // A known name still picks its own definition and inputs block.
    run.compile.fusionName = "nvfuser_fusion_id1";
    const RunResult known = runFusionJob(run);
    QVERIFY2(!known.error.has_value(), known.error.value_or("").c_str());
  }

  void reportModelUnderTester() {
    ReportModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const SnapshotPtr snapshot = compile("seed000_forwarding_miss.py");
    QVERIFY(snapshot->ok());
    model.setSnapshot(snapshot);
    const auto& segments = snapshot->report->segments;
    QCOMPARE(model.rowCount(), static_cast<int>(segments.size()));
    QCOMPARE(model.columnCount(), 2);
    for (const auto& segment : segments) {
      const QModelIndex row = model.indexOfSegment(segment.id);
      QVERIFY(row.isValid());
      QCOMPARE(model.segmentOf(row), segment.id);
      QCOMPARE(model.index(row.row(), 1).data().toString().section(' ', 0, 0),
               QString::fromStdString(segment.scheduler));
      // Every refusal appears under "refused by" with its reason.
      QModelIndex refused;
      QModelIndex params;
      for (int r = 0; r < model.rowCount(row); ++r) {
        const QModelIndex child = model.index(r, 0, row);
        if (child.data().toString() == "refused by") refused = child;
        if (child.data().toString() == "params") params = child;
        QCOMPARE(model.segmentOf(child), segment.id);
      }
      QVERIFY(refused.isValid());
      QCOMPARE(model.rowCount(refused), static_cast<int>(segment.rejected.size()));
      for (int r = 0; r < model.rowCount(refused); ++r) {
        QCOMPARE(model.index(r, 1, refused).data().toString(),
                 QString::fromStdString(segment.rejected[r].reason));
      }
      QCOMPARE(params.isValid(), !segment.params.isNull());
      if (params.isValid()) {
        QVERIFY(model.index(params.row(), 1, row)
                    .data()
                    .toString()
                    .contains(QString::fromStdString(segment.paramsSource)));
        QVERIFY(model.rowCount(params) > 0);
      }
    }
    // A rebuild with another snapshot, and an empty one, under the tester.
    model.setSnapshot(compile("seed000_forwarding_miss.py", "forward"));
    QVERIFY(model.rowCount() > 0);
    auto failed = std::make_shared<CompileSnapshot>();
    failed->error = "broken";
    model.setSnapshot(failed);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.indexOfSegment(0).isValid());
  }

  void passesModelUnderTester() {
    PassesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    CompileRequest request;
    request.source = readExample("seed001_nanogpt_layer_norm.py");
    request.settings.options.set("bookend", "inputs_and_outputs");
    request.settings.options.disablePass("consecutive_cast");
    const auto snapshot = std::make_shared<CompileSnapshot>(runCompileJob(request));
    QVERIFY(snapshot->ok());
    model.setSnapshot(snapshot);
    const auto& passes = snapshot->report->passes;
    QCOMPARE(model.rowCount(), static_cast<int>(passes.size()));
    int rewrites = 0;
    for (int p = 0; p < model.rowCount(); ++p) {
      const QModelIndex pass = model.index(p, 0);
      QCOMPARE(pass.data().toString(), QString::fromStdString(passes[p].name));
      QCOMPARE(model.rowCount(pass), static_cast<int>(passes[p].rewrites.size()));
      if (!passes[p].enabled) {
        QCOMPARE(model.index(p, 1).data().toString(), QString("disabled"));
      }
      rewrites += model.rowCount(pass);
      for (int r = 0; r < model.rowCount(pass); ++r) {
        QCOMPARE(model.parent(model.index(r, 1, pass)), pass);
      }
    }
    QVERIFY2(rewrites > 0, "bookend=inputs_and_outputs rewrites seed 001's meta ops");
    model.setHighlight({"T0"});
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void mentionedNamesFindsTensorNames() {
    QCOMPARE(mentionedNames("T12 = cast(T3) then S4, not XT5 or T"),
             (QStringList{"T12", "T3", "S4"}));
  }
};

QTEST_MAIN(GuiModelsTest)
#include "test_gui_models.moc"
