// Comparing two compile reports (report_diff.h): segments paired by what
// they compute, each params and properties field on its own row (issue 46
// defect 4: rms_norm on H100 vs A100 said "1 rows differ" though block, grid
// and batch sizes differed, and segments were paired by index).
#include <gtest/gtest.h>

#include <string>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/report/report_diff.h"
#include "core/scheduler/device_spec.h"
#include "tests/source_dir.h"

namespace fuserlab::report {
namespace {

SegmentReport segment(int id, std::string scheduler, std::vector<std::string> writes) {
  SegmentReport s;
  s.id = id;
  s.scheduler = std::move(scheduler);
  s.launchesKernel = s.scheduler != "expr_eval";
  for (const std::string& name : writes) s.exprFlow.push_back({"add", {"T0"}, {name}});
  s.outputs = {writes.back()};
  s.params = Json::object();
  return s;
}

const FieldDiff* field(const SegmentPair& pair, const std::string& name) {
  for (const FieldDiff& f : pair.fields) {
    if (f.field == name) return &f;
  }
  return nullptr;
}

TEST(ReportDiffTest, PairsSegmentsByWhatTheyComputeAndComparesEachParam) {
  CompileReport a, b;
  a.segments = {segment(0, "expr_eval", {"T1"}), segment(1, "pointwise", {"T2", "T3"}),
                segment(2, "reduction", {"T4"})};
  a.segments[1].params.set("vectorization_factor", Json(int64_t{8}));
  a.segments[1].params.set("block_x", Json(int64_t{128}));
  // B: the view is gone, the pointwise segment now first, with other params,
  // and the reduction became inner_persistent.
  b.segments = {segment(0, "pointwise", {"T2", "T3"}), segment(1, "inner_persistent", {"T4"}),
                segment(2, "pointwise", {"T9"})};
  b.segments[0].params.set("vectorization_factor", Json(int64_t{4}));
  b.segments[0].params.set("block_x", Json(int64_t{128}));
  const ReportDiff diff = diffReports(a, b);
  ASSERT_EQ(diff.segments.size(), 4u);
  EXPECT_EQ(diff.segments[0].change, SegmentChange::Removed);
  EXPECT_EQ(diff.segments[0].a, 0);
  const SegmentPair& pointwise = diff.segments[1];
  EXPECT_EQ(pointwise.a, 1);
  EXPECT_EQ(pointwise.b, 0);
  EXPECT_EQ(pointwise.change, SegmentChange::Changed);
  ASSERT_NE(field(pointwise, "params.vectorization_factor"), nullptr);
  EXPECT_EQ(field(pointwise, "params.vectorization_factor")->a, "8");
  EXPECT_EQ(field(pointwise, "params.vectorization_factor")->b, "4");
  EXPECT_FALSE(field(pointwise, "params.block_x")->differs());
  EXPECT_EQ(pointwise.differingFields(), 1);
  EXPECT_EQ(diff.segments[2].change, SegmentChange::Rescheduled);
  EXPECT_EQ(diff.segments[3].change, SegmentChange::Added);
  EXPECT_EQ(diff.segments[3].b, 2);
}

TEST(ReportDiffTest, RmsNormOnTwoDevicesDiffersParamByParam) {
  const frontend::Script script =
      frontend::readScriptFile(fuserlab::test::sourceDir() + "/resources/examples/rms_norm.py");
  const auto compile = [&](const char* device) {
    return runtime::compileFusion(script.fusion(), compiler::CompileOptions{},
                                  *scheduler::findBuiltinDevice(device),
                                  frontend::makeInputShapes(*script.inputs))
        .report;
  };
  const ReportDiff diff = diffReports(compile("h100"), compile("a100-80gb"));
  int paired = 0, differing = 0;
  for (const SegmentPair& pair : diff.segments) {
    if (pair.a < 0 || pair.b < 0) continue;
    ++paired;
    for (const FieldDiff& f : pair.fields)
      differing += f.differs() && f.field.rfind("params.", 0) == 0;
  }
  EXPECT_GT(paired, 0);
  // More than one params field differs between the two devices (the old
  // view showed them as one row).
  EXPECT_GT(differing, 1);
}

}  // namespace
}  // namespace fuserlab::report
