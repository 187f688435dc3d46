// The pass pipeline: the documented order, one record per pass (rewrites and
// the fusion after it), disabled passes skipped but recorded, the input
// fusion left untouched, outputs kept in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/ir/printer.h"
#include "core/passes/pipeline.h"
#include "tests/passes/pass_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::passes::test {
namespace {

using ir::ExprType;

class PipelineTest : public PassFixture {
 protected:
  std::unique_ptr<ir::Fusion> runAll(const PassOptions& options = {}) {
    records_.clear();
    return runPasses(*fusion_, options, &records_, /*printAfterEachPass=*/true);
  }

  const PassRecord& record(std::string_view name) const {
    for (const PassRecord& r : records_) {
      if (r.name == name) return r;
    }
    throw std::logic_error("no record for " + std::string(name));
  }

  std::vector<PassRecord> records_;
};

// Every pass but the softmax-statistics pair (test_online_logsumexp.cpp) has
// something to do here: an empty output, a cast round trip, an upcast read
// by a reshape, a reshape to an output after the compute, a channels-last
// input.
constexpr std::string_view kEveryPass = R"(
T0 = fd.define_tensor(shape=[0, 4], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
T2 = fd.ops.relu(T0)
T3 = fd.ops.cast(T1, dtype=DataType.Double)
T4 = fd.ops.cast(T3, dtype=DataType.Float)
T5 = fd.ops.exp(T4)
T6 = fd.ops.tanh(T5)
T7 = fd.ops.reshape(T5, new_shape=[-1])
T8 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T9 = fd.ops.cast(T8, dtype=DataType.Float)
T10 = fd.ops.reshape(T9, new_shape=[-1])
T11 = fd.ops.sum(T10, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
fd.add_output(T6)
fd.add_output(T7)
fd.add_output(T11)
)";

TEST_F(PipelineTest, PassesRunInTheDocumentedOrder) {
  std::vector<std::string_view> names;
  for (const auto& pass : allPasses()) {
    names.push_back(pass->name());
    EXPECT_FALSE(pass->description().empty()) << pass->name();
    EXPECT_TRUE(isPassName(pass->name()));
  }
  EXPECT_EQ(names,
            (std::vector<std::string_view>{
                "remove_empty", "consecutive_cast", "upcast_after_reshape", "online_logsumexp",
                "gather_through_pointwise", "propagate_shardings", "decompose_reshardings",
                "reorder_sharded_axis", "finalize_multidevice_domains", "mark_aliases_prepare",
                "allocation_order_propagation"}));
  EXPECT_FALSE(isPassName("remove_empties"));
}

TEST_F(PipelineTest, OneRecordPerPassWithTheFusionAfterIt) {
  read(kEveryPass);
  const std::string original = ir();
  auto result = runAll();

  ASSERT_EQ(records_.size(), allPasses().size());
  for (size_t i = 0; i < records_.size(); ++i) {
    SCOPED_TRACE(records_[i].name);
    EXPECT_EQ(records_[i].name, allPasses()[i]->name());
    EXPECT_TRUE(records_[i].enabled);
    // The multi-device passes leave a fusion without meshes as it is.
    const std::string_view name = records_[i].name;
    const bool multidevice = name == "propagate_shardings" || name == "decompose_reshardings" ||
                             name == "reorder_sharded_axis" ||
                             name == "finalize_multidevice_domains";
    const bool idle =
        multidevice || name == "online_logsumexp" || name == "gather_through_pointwise";
    EXPECT_EQ(records_[i].rewrites.size(), idle ? 0u : 1u);
    if (i > 0 && !idle) {
      EXPECT_NE(records_[i].fusionAfter, records_[i - 1].fusionAfter);
    }
  }
  EXPECT_EQ(records_.back().fusionAfter, ir::printFusionIr(*result));
  EXPECT_EQ(ir(), original) << "the input fusion must not change";

  // The cast pair is gone before bookending, which cuts after the exp.
  EXPECT_EQ(record("mark_aliases_prepare").rewrites[0],
            "inserted segment_set T15 = segment_set(T5) before the output "
            "meta ops reshape(T5) (bookend outputs)");
  EXPECT_EQ(record("allocation_order_propagation").rewrites[0],
            "set the stride order of output T6 to [3, 0, 2, 1], the layout of "
            "input T1 (stride order [3, 0, 2, 1]) it is computed from");
  // The fusion after the whole pipeline, as the fusion_ir_preseg dump shows
  // it.
  fusion_ = std::move(result);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{0}, iS1{4}], contiguity [True, True]
  T1_g_float[iS2{i0}, iS3{i1}, iS4{i2}, iS5{i3}], allocation [iS2{i0}, iS4{i2}, iS5{i3}, iS3{i1}], contiguity [True, True, True, True]
  T8_g___bfloat[iS29{i7}, iS30{i8}], contiguity [True, True]
Outputs:
  T12_g_float[iS37{0}, iS38{4}]
  T6_g_float[iS20{i0}, iS21{i1}, iS22{i2}, iS23{i3}], allocation [iS20{i0}, iS22{i2}, iS23{i3}, iS21{i1}]
  T7_g_float[iS28{i6}]
  T11_g_float[rS36{i9}]

%kernel {
T5_l_float[iS16{i0}, iS17{i1}, iS18{i2}, iS19{i3}]
   = exp(T1)
T6_g_float[iS20{i0}, iS21{i1}, iS22{i2}, iS23{i3}]
   = tanh(T5)
T12_g_float[iS37{0}, iS38{4}]
   = full(0, 4, 0.0, dtype=Float)
T13_l___bfloat[iS41{i10}]
   = reshape(T8, -1)
T14_l_float[iS42{i10}]
   = cast(T13, dtype=Float)
T11_g_float[rS36{i9}]
   = sum(T14, dims=[0])
T15_l_float[iS43{i0}, iS44{i1}, iS45{i2}, iS46{i3}]
   = segment_set(T5)
T7_g_float[iS28{i6}]
   = reshape(T15, -1)
}

Domains:
  T1_g_float[iS2{i0}, iS3{i1}, iS4{i2}, iS5{i3}]
    logical: [iS2{i0}, iS3{i1}, iS4{i2}, iS5{i3}]
    allocation: [iS2{i0}, iS4{i2}, iS5{i3}, iS3{i1}]
    contiguity: [True, True, True, True]
  T6_g_float[iS20{i0}, iS21{i1}, iS22{i2}, iS23{i3}]
    logical: [iS20{i0}, iS21{i1}, iS22{i2}, iS23{i3}]
    allocation: [iS20{i0}, iS22{i2}, iS23{i3}, iS21{i1}]
    contiguity: [True, True, True, True]
  T7_g_float[iS28{i6}]
    root: [iS24{i0}, iS25{i1}, iS26{i2}, iS27{i3}]
    logical: [iS28{i6}]
    contiguity: [True]
  T10_l_float[iS35{i9}]
    root: [iS33{i7}, iS34{i8}]
    logical: [iS35{i9}]
    contiguity: [True]
  T13_l___bfloat[iS41{i10}]
    root: [iS39{i7}, iS40{i8}]
    logical: [iS41{i10}]
    contiguity: [True]
)IR");
}

TEST_F(PipelineTest, DisabledPassIsRecordedAndSkipped) {
  read(kEveryPass);
  PassOptions options;
  options.disablePass("consecutive_cast");
  const auto result = runAll(options);
  ASSERT_EQ(records_.size(), allPasses().size());
  const PassRecord& skipped = record("consecutive_cast");
  EXPECT_FALSE(skipped.enabled);
  EXPECT_TRUE(skipped.rewrites.empty());
  EXPECT_TRUE(skipped.fusionAfter.empty());
  int casts = 0;
  for (const ir::Expr* expr : result->exprsForOutputs()) {
    casts += expr->type() == ExprType::Cast;
  }
  // The pair, and the upcast moved after its reshape.
  EXPECT_EQ(casts, 3) << "the cast pair stays when its pass is off";
  EXPECT_TRUE(record("remove_empty").enabled);
}

TEST_F(PipelineTest, OutputsKeepTheirOrder) {
  read(kEveryPass);
  const auto result = runAll();
  ASSERT_EQ(result->outputs().size(), 4u);
  // T2 (empty) became a full; T6 and T7 keep their tensors, and so does the
  // sum T11 whose input's upcast moved after the reshape.
  EXPECT_EQ(result->outputs()[0].val->definition()->type(), ExprType::Full);
  EXPECT_EQ(result->outputs()[1].val->name(), fusion_->outputs()[1].val->name());
  EXPECT_EQ(result->outputs()[2].val->name(), fusion_->outputs()[2].val->name());
  EXPECT_EQ(result->outputs()[3].val->name(), fusion_->outputs()[3].val->name());
}

// Seed 001's reproducer: nothing to do by default; bookending the inputs
// cuts the two weight/bias chains.
TEST_F(PipelineTest, Seed001Reproducer) {
  readFile("resources/examples/seed001_nanogpt_layer_norm.py");
  const auto unchanged = runAll();
  for (const PassRecord& r : records_) {
    EXPECT_TRUE(r.rewrites.empty()) << r.name << ": " << r.rewrites.front();
  }
  EXPECT_EQ(ir::printFusionIr(*unchanged), ir());

  PassOptions options;
  options.bookend = BookendMode::InputsAndOutputs;
  runAll(options);
  EXPECT_EQ(record("mark_aliases_prepare").rewrites.size(), 2u);
}

// Every bundled example goes through the pipeline in every bookend mode,
// keeps its outputs, and is a fixed point: a second run rewrites nothing.
TEST_F(PipelineTest, EveryBundledExampleInEveryMode) {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(fuserlab::test::sourceDir() + "/resources/examples")) {
    if (entry.path().extension() == ".py") {
      files.push_back("resources/examples/" + entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 25u);
  for (const std::string& file : files) {
    for (const auto& [name, mode] : kBookendModeNames) {
      SCOPED_TRACE(file + " bookend=" + std::string(name));
      readFile(file);
      PassOptions options;
      options.bookend = mode;
      auto once = runAll(options);
      ASSERT_EQ(once->outputs().size(), fusion_->outputs().size());
      fusion_ = std::move(once);
      const std::string after = ir();
      auto twice = runAll(options);
      for (const PassRecord& r : records_) {
        EXPECT_TRUE(r.rewrites.empty()) << r.name << ": " << r.rewrites.front();
      }
      EXPECT_EQ(ir::printFusionIr(*twice), after);
    }
  }
}

}  // namespace
}  // namespace fuserlab::passes::test
