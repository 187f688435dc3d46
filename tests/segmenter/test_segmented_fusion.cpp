// SegmentedFusion: the `segmented_fusion` dump (nvFuser's format: groups by
// scheduler and expr numbers, edges with the tensor they carry) and the
// kernel count, on hand-built groups so the format is tested apart from the
// merge decisions.
#include <gtest/gtest.h>

#include "core/segmenter/segmented_fusion.h"
#include "tests/segmenter/segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using scheduler::SchedulerType;
using testing_support::readFusion;

constexpr std::string_view kNormalization = R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.relu(T0)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.broadcast(T2, is_broadcast_dim=[False, True])
    T4 = fd.ops.sub(T1, T3)
    fd.add_output(T4)
    T5 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.ops.segment_set(T5)
    fd.add_output(T6)
)";

class SegmentedFusionTest : public testing::Test {
 protected:
  void SetUp() override {
    segmented_ = std::make_unique<SegmentedFusion>(readFusion(kNormalization));
    exprs_ = segmented_->complete().exprsForOutputs();
    ASSERT_EQ(exprs_.size(), 5u);
  }

  void addGroup(SchedulerType type, std::vector<int> positions) {
    SegmentedGroup group;
    group.id = static_cast<int>(segmented_->groups().size());
    for (int p : positions) group.exprs.push_back(exprs_.at(p));
    group.choice.type = type;
    segmented_->groups().push_back(std::move(group));
  }

  std::unique_ptr<SegmentedFusion> segmented_;
  std::vector<ir::Expr*> exprs_;
};

TEST_F(SegmentedFusionTest, ToStringListsGroupsAndEdgesInNvFuserFormat) {
  addGroup(SchedulerType::Reduction, {0, 1, 2});
  addGroup(SchedulerType::Pointwise, {3});
  addGroup(SchedulerType::ExprEval, {4});
  segmented_->edges().push_back({0, 1, exprs_[0]->output(0)});
  segmented_->edges().push_back({0, 1, exprs_[2]->output(0)});
  EXPECT_EQ(segmented_->toString(),
            "Segmented_Fusion{\n"
            "groups:\n"
            "  reduction{0, 1, 2}\n"
            "  pointwise{3}\n"
            "  expr_eval{4}\n"
            "edges:\n"
            "  e{ reduction{0, 1, 2} -> pointwise{3}(T1_l_float[iS2{i0}, "
            "iS3{i1}]) }\n"
            "  e{ reduction{0, 1, 2} -> pointwise{3}(T3_l_float[iS6{i0}, "
            "bS7{1}]) }\n"
            "}\n");
}

TEST_F(SegmentedFusionTest, ExprNumbersArePositionsInTheCompleteFusion) {
  // Listed out of order: the dump numbers exprs by their topological
  // position in the complete fusion, in increasing order.
  addGroup(SchedulerType::InnerPersistent, {3, 0, 2, 1});
  EXPECT_NE(segmented_->toString().find("  inner_persistent{0, 1, 2, 3}\n"), std::string::npos);
}

TEST_F(SegmentedFusionTest, KernelCountSkipsKernelFreeSchedulers) {
  addGroup(SchedulerType::InnerPersistent, {0, 1, 2, 3});
  addGroup(SchedulerType::NoOp, {4});
  EXPECT_EQ(segmented_->kernelCount(), 1);
  segmented_->groups().back().choice.type = SchedulerType::Pointwise;
  EXPECT_EQ(segmented_->kernelCount(), 2);
  segmented_->groups().front().choice.type = SchedulerType::ExprEval;
  EXPECT_EQ(segmented_->kernelCount(), 1);
}

TEST_F(SegmentedFusionTest, EmptySegmentationPrintsNoGroups) {
  EXPECT_EQ(segmented_->toString(), "Segmented_Fusion{\ngroups:\nedges:\n}\n");
  EXPECT_EQ(segmented_->kernelCount(), 0);
}

}  // namespace
}  // namespace fuserlab::segmenter
