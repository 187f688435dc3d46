// Segment extraction: a group of the complete fusion as a Fusion of its own.
// Which values become inputs and outputs, in which order; how intermediates
// enter (no reduction axes, fresh extents); which scalars come along; and
// what the schedulers see of the segment's inputs at run time.
#include <gtest/gtest.h>

#include "core/ir/printer.h"
#include "core/segmenter/segment_extraction.h"
#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using ir::DataType;
using testing_support::readFusion;
using testing_support::shape;

// T1..T4: a normalization of the scaled input; T5, T6: a reshape of its
// result, sized by a scalar expr of the input's extents. Script names are
// the IR names (d2 is the Double scalar input, i3 the reshape size).
constexpr std::string_view kScript = R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    d2 = fd.define_scalar(None, dtype=DataType.Double)
    T1 = fd.ops.mul(T0, d2)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.broadcast(T2, is_broadcast_dim=[False, True])
    T4 = fd.ops.sub(T1, T3)
    fd.add_output(T4)
    i3 = fd.ops.mul(T0.size(0), T0.size(1))
    T5 = fd.ops.reshape(T4, new_shape=[i3])
    T6 = fd.ops.relu(T5)
    fd.add_output(T6)
)";

class SegmentExtractionTest : public testing::Test {
 protected:
  void SetUp() override {
    fusion_ = readFusion(kScript);
    index_ = std::make_unique<CompleteFusionIndex>(*fusion_);
    context_.device = &device_;
    context_.evaluator = &evaluator_;
    context_.inputs = runtime::describeInputs(
        *fusion_, {shape(DataType::Float, {128, 1024}), ir::ScalarValue(0.5)}, evaluator_);
  }

  ir::Val* val(std::string_view name) const {
    for (const auto& v : fusion_->vals()) {
      if (v->name() == name) return v.get();
    }
    ADD_FAILURE() << "no value named " << name;
    return nullptr;
  }

  // The exprs defining the named values, in topological order.
  std::vector<ir::Expr*> group(std::vector<std::string_view> outputs) const {
    std::vector<ir::Expr*> exprs;
    for (auto name : outputs) exprs.push_back(val(name)->definition());
    index_->sortTopologically(exprs);
    return exprs;
  }

  static std::vector<std::string> names(const std::vector<ir::Val*>& vals) {
    std::vector<std::string> out;
    for (const ir::Val* v : vals) out.push_back(v->name());
    return out;
  }

  std::unique_ptr<ir::Fusion> fusion_;
  std::unique_ptr<CompleteFusionIndex> index_;
  scheduler::DeviceSpec device_ = *scheduler::findBuiltinDevice("h100");
  ir::ExpressionEvaluator evaluator_;
  SegmenterContext context_;
};

TEST_F(SegmentExtractionTest, ScriptNamesAsExpected) {
  // The other tests name values by the IR names the reader gives them.
  EXPECT_EQ(val("T4")->definition()->opName(), "sub");
  EXPECT_EQ(val("T5")->definition()->opName(), "reshape");
  EXPECT_EQ(val("i3")->definition()->opName(), "mul");
  EXPECT_TRUE(fusion_->inputs().at(1)->isA<ir::Scalar>());
}

TEST_F(SegmentExtractionTest, IntermediateInputsLoseReductionAxes) {
  SegmentExtraction segment = extractSegment(*index_, group({"T3", "T4"}));
  EXPECT_EQ(names(segment.inputs), (std::vector<std::string>{"T1", "T2"}));
  // T4 is a fusion output and read by the reshape outside the group.
  EXPECT_EQ(names(segment.outputs), (std::vector<std::string>{"T4"}));
  ASSERT_EQ(segment.fusion->inputs().size(), 2u);
  const auto* sum = segment.fusion->inputs()[1]->as<ir::TensorView>();
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ(sum->logical().size(), 1u);
  EXPECT_FALSE(sum->logical()[0]->isReduction());
  EXPECT_EQ(segment.fusion->exprsForOutputs().size(), 2u);
  EXPECT_TRUE(segment.scalarExprs.empty());
}

TEST_F(SegmentExtractionTest, SegmentNamesTranslateToCompleteNames) {
  SegmentExtraction segment = extractSegment(*index_, group({"T3", "T4"}));
  const std::string in0 = segment.fusion->inputs()[0]->name();
  const std::string in1 = segment.fusion->inputs()[1]->name();
  EXPECT_EQ(segment.toCompleteNames("buffer " + in0 + " and " + in1 + "_l_float; T99 stays"),
            "buffer T1 and T2_l_float; T99 stays");
}

TEST_F(SegmentExtractionTest, OnlyWholeNamesOfTheSegmentAreTranslated) {
  SegmentExtraction segment = extractSegment(*index_, group({"T3", "T4"}));
  const std::string in0 = segment.fusion->inputs()[0]->name();  // T0 here
  ASSERT_EQ(in0, "T0");
  // A name inside a word, with a leading zero, or followed by a letter is
  // not a value name; one after punctuation or at either end is.
  EXPECT_EQ(segment.toCompleteNames("T0"), "T1");
  EXPECT_EQ(segment.toCompleteNames("xT0 T00 T0x T0_ (T0) T0"), "xT0 T00 T0x T1_ (T1) T1");
  // Letters that start no value of the segment, and a bare letter.
  EXPECT_EQ(segment.toCompleteNames("d0 b0 T i"), "d0 b0 T i");
}
TEST_F(SegmentExtractionTest, ScalarOperandInputFollowsTensorInputInFusionOrder) {
  SegmentExtraction segment = extractSegment(*index_, group({"T1"}));
  ASSERT_EQ(segment.inputs.size(), 2u);
  EXPECT_EQ(segment.inputs[0], fusion_->inputs()[0]);
  EXPECT_EQ(segment.inputs[1], fusion_->inputs()[1]);
  EXPECT_TRUE(segment.fusion->inputs()[1]->isA<ir::Scalar>());
  // Extents of T0 are bound through T0; only the Double operand is a scalar
  // input.
  SegmentRuntime runtime = makeSegmentRuntime(*fusion_, segment, context_);
  ASSERT_EQ(runtime.info.inputs.size(), 2u);
  EXPECT_EQ(runtime.info.inputs[0].sizes, (std::vector<int64_t>{128, 1024}));
  EXPECT_TRUE(runtime.info.inputs[1].sizes.empty());
  EXPECT_DOUBLE_EQ(
      runtime.evaluator->evaluateDouble(segment.fusion->inputs()[1]->as<ir::Scalar>(), "scale"),
      0.5);
}

TEST_F(SegmentExtractionTest, IntermediateInputIsContiguousAndAligned) {
  SegmentExtraction segment = extractSegment(*index_, group({"T3", "T4"}));
  SegmentRuntime runtime = makeSegmentRuntime(*fusion_, segment, context_);
  ASSERT_EQ(runtime.info.inputs.size(), 2u);
  EXPECT_EQ(runtime.info.inputs[0].sizes, (std::vector<int64_t>{128, 1024}));
  EXPECT_EQ(runtime.info.inputs[0].strides, (std::vector<int64_t>{1024, 1}));
  EXPECT_EQ(runtime.info.inputs[0].alignmentBytes, 256);
  EXPECT_EQ(runtime.info.inputs[1].sizes, (std::vector<int64_t>{128}));
  EXPECT_EQ(runtime.info.inputs[1].strides, (std::vector<int64_t>{1}));
  const auto* out = segment.fusion->outputs()[0].val->as<ir::TensorView>();
  EXPECT_EQ(runtime.evaluator->evaluateExtent(out->logical()[1]), 1024);
}

TEST_F(SegmentExtractionTest, ReshapeSizeExprComesAlongWithoutScalarInputs) {
  SegmentExtraction segment = extractSegment(*index_, group({"T5", "T6"}));
  EXPECT_EQ(names(segment.inputs), (std::vector<std::string>{"T4"}));
  EXPECT_EQ(names(segment.outputs), (std::vector<std::string>{"T6"}));
  // i3 = T0.size(0) * T0.size(1): T0's extents are T4's, bound through T4.
  ASSERT_EQ(segment.scalarExprs.size(), 1u);
  EXPECT_EQ(segment.scalarExprs[0]->opName(), "mul");
  SegmentRuntime runtime = makeSegmentRuntime(*fusion_, segment, context_);
  const auto* out = segment.fusion->outputs()[0].val->as<ir::TensorView>();
  EXPECT_EQ(runtime.evaluator->evaluateExtent(out->logical()[0]), 128 * 1024);
}

TEST_F(SegmentExtractionTest, ComputedExtentOfAnInputBecomesItsOwnScalar) {
  // T5's extent is the scalar expr i3; entering a segment, T5 is a tensor
  // like any other whose extent binding gives.
  SegmentExtraction segment = extractSegment(*index_, group({"T6"}));
  ASSERT_EQ(segment.fusion->inputs().size(), 1u);
  const auto* in = segment.fusion->inputs()[0]->as<ir::TensorView>();
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->logical()[0]->extent()->definition(), nullptr);
  EXPECT_FALSE(in->domain().hasRoot());
  EXPECT_TRUE(segment.scalarExprs.empty());
  SegmentRuntime runtime = makeSegmentRuntime(*fusion_, segment, context_);
  EXPECT_EQ(runtime.info.inputs[0].sizes, (std::vector<int64_t>{128 * 1024}));
}

TEST_F(SegmentExtractionTest, WholeFusionKeepsTheFusionInterface) {
  SegmentExtraction segment = extractWholeFusion(*index_);
  EXPECT_EQ(segment.inputs, fusion_->inputs());
  EXPECT_EQ(segment.outputs, fusion_->outputVals());
  EXPECT_EQ(segment.fusion->exprsForOutputs().size(), fusion_->exprsForOutputs().size());
  SegmentRuntime runtime = makeSegmentRuntime(*fusion_, segment, context_);
  EXPECT_EQ(runtime.info.inputs.size(), 2u);
  EXPECT_EQ(runtime.info.inputs[0].strides, context_.inputs[0].strides);
}

TEST_F(SegmentExtractionTest, SegmentHoldsOnlyTheGroupsValues) {
  SegmentExtraction segment = extractSegment(*index_, group({"T3", "T4"}));
  int tensors = 0;
  for (const auto& v : segment.fusion->vals()) {
    if (v->isA<ir::TensorView>()) ++tensors;
  }
  EXPECT_EQ(tensors, 4);  // T1, T2 in; T3, T4 computed
}

// The extractor keeps its lookup tables between extractions (the merger
// extracts hundreds of groups): an extraction must not see the copies,
// inputs or group membership of the one before it.
TEST_F(SegmentExtractionTest, ExtractionsDoNotSeeEachOther) {
  const SegmentExtraction first = extractSegment(*index_, group({"T3", "T4"}));
  const std::string firstIr = ir::printFusionIr(*first.fusion);
  // Another group sharing T4 and the T1 input, then the first one again.
  const SegmentExtraction other = extractSegment(*index_, group({"T2", "T3", "T4"}));
  EXPECT_EQ(names(other.inputs), (std::vector<std::string>{"T1"}));
  const SegmentExtraction again = extractSegment(*index_, group({"T3", "T4"}));
  EXPECT_EQ(ir::printFusionIr(*again.fusion), firstIr);
  EXPECT_EQ(names(again.inputs), (std::vector<std::string>{"T1", "T2"}));
  EXPECT_EQ(names(again.outputs), (std::vector<std::string>{"T4"}));
  // Every copy belongs to its own segment.
  for (const auto& [original, copy] : again.toSegment.vals) {
    EXPECT_EQ(copy->fusion(), again.fusion.get()) << original->name();
  }
}

TEST_F(SegmentExtractionTest, TrialExtractionWithoutCloneMapIsTheSameSegment) {
  const SegmentExtraction full = extractSegment(*index_, group({"T5", "T6"}));
  const SegmentExtraction trial =
      extractSegment(*index_, group({"T5", "T6"}), /*withCloneMap=*/false);
  EXPECT_FALSE(full.toSegment.vals.empty());
  EXPECT_TRUE(trial.toSegment.vals.empty());
  EXPECT_TRUE(trial.toSegment.iterDomains.empty());
  EXPECT_TRUE(trial.toSegment.exprs.empty());
  EXPECT_EQ(ir::printFusionIr(*trial.fusion), ir::printFusionIr(*full.fusion));
  EXPECT_EQ(trial.inputs, full.inputs);
  EXPECT_EQ(trial.outputs, full.outputs);
  EXPECT_EQ(trial.symbolicScalars.size(), full.symbolicScalars.size());
  EXPECT_EQ(trial.toCompleteNames("T0 T1 T2 i0"), full.toCompleteNames("T0 T1 T2 i0"));
}

}  // namespace
}  // namespace fuserlab::segmenter

namespace fuserlab::segmenter {
namespace {

// A segment input made by a view in another segment (here a strided slice:
// a [12, 40] tensor's columns 1, 4, 7, ... as a [12, 13] view with strides
// [40, 3]) is bound with the strides it has: every axis non-contiguous.
// An intermediate a kernel computes keeps its dense layout.
TEST(SegmentExtractionViewInputTest, AnInputMadeByAViewTakesItsStridesAtRunTime) {
  auto fusion = testing_support::readFusion(R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.slice(T0, start_indices=[0, 1], end_indices=[12, 40], strides=[1, 3])
    T2 = fd.ops.abs(T1)
    T3 = fd.ops.neg(T2)
    fd.add_output(T3)
)");
  CompleteFusionIndex index(*fusion);
  auto defined = [&](std::string_view name) {
    for (const auto& v : fusion->vals()) {
      if (v->name() == name) return v->definition();
    }
    ADD_FAILURE() << "no value named " << name;
    return static_cast<ir::Expr*>(nullptr);
  };
  SegmentExtraction afterView = extractSegment(index, {defined("T2")});
  const auto* view = afterView.fusion->inputs().at(0)->as<ir::TensorView>();
  ASSERT_EQ(view->contiguity().size(), 2u);
  EXPECT_EQ(view->contiguity()[0], std::optional<bool>(false));
  EXPECT_EQ(view->contiguity()[1], std::optional<bool>(false));
  SegmentExtraction afterKernel = extractSegment(index, {defined("T3")});
  const auto* dense = afterKernel.fusion->inputs().at(0)->as<ir::TensorView>();
  for (const auto& flag : dense->contiguity()) EXPECT_NE(flag, std::optional<bool>(false));
}

}  // namespace
}  // namespace fuserlab::segmenter
