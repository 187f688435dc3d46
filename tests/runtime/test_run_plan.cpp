// Replays of a planned GPU run (core/runtime/run_plan.h), without a GPU: the
// replay key separates what a plan is specific to, and a traced plan's
// pointers follow new inputs. Device memory is never touched here: the
// "device" tensors borrow host memory, whose addresses are all a plan holds.
#include <gtest/gtest.h>

#include <vector>

#include "core/cuda/device_memory_pool.h"
#include "core/runtime/run_keys.h"
#include "core/runtime/run_plan.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

Tensor deviceView(std::vector<float>& storage, std::vector<int64_t> sizes, int64_t offset = 0) {
  auto strides = Tensor::contiguousStrides(sizes);
  return Tensor::borrow(storage.data(), DataType::Float, std::move(sizes), std::move(strides),
                        offset, DeviceKind::Cuda, 0);
}

TEST(ReplayKeyTest, SeparatesSizesStridesAlignmentAndScalars) {
  alignas(256) static float a[4096];
  auto view = [](float* data, std::vector<int64_t> sizes) {
    auto strides = Tensor::contiguousStrides(sizes);
    return Tensor::borrow(data, DataType::Float, std::move(sizes), std::move(strides), 0,
                          DeviceKind::Cuda, 0);
  };
  const auto base = replayKey({view(a, {8, 16})});
  EXPECT_FALSE(base.empty());
  EXPECT_EQ(base, replayKey({view(a, {8, 16})}));
  EXPECT_NE(base, replayKey({view(a, {16, 8})}));      // sizes
  EXPECT_NE(base, replayKey({view(a + 1, {8, 16})}));  // alignment
  EXPECT_EQ(replayKey({view(a, {8, 16}), ir::ScalarValue(2.0)}),
            replayKey({view(a, {8, 16}), ir::ScalarValue(2.0)}));
  EXPECT_NE(replayKey({view(a, {8, 16}), ir::ScalarValue(2.0)}),
            replayKey({view(a, {8, 16}), ir::ScalarValue(3.0)}));  // scalar value
  EXPECT_NE(replayKey({view(a, {8, 16}), ir::ScalarValue(int64_t{2})}),
            replayKey({view(a, {8, 16}), ir::ScalarValue(2.0)}));  // scalar kind
  Tensor strided = Tensor::borrow(a, DataType::Float, {8, 16}, {1, 8}, 0, DeviceKind::Cuda, 0);
  EXPECT_NE(base, replayKey({strided}));  // strides
  // A CPU tensor with elements is copied by every run: never replayed.
  EXPECT_TRUE(replayKey({Tensor::empty(DataType::Float, {4})}).empty());
}

TEST(ReplayPlanTest, PointersFollowNewInputs) {
  std::vector<float> first(64), second(64);
  Plan plan;
  PlannedLaunch launch;
  launch.what = "segment 0";
  const Tensor x = deviceView(first, {8, 8});
  launch.arguments.addTensor(x.data(), x.sizes(), x.strides());
  launch.arguments.addScalar(DataType::Float, ir::ScalarValue(1.5));
  launch.arguments.addTensor(first.data() + 10, {3}, {1});  // a view into x
  plan.launches.push_back(launch);
  plan.outputs.push_back(
      {Tensor::borrow(first.data() + 8, DataType::Float, {8}, {1}, 0, DeviceKind::Cuda, 0),
       nullptr});
  std::string why;
  auto replay = ReplayPlan::capture(plan, {x}, {}, &why);
  ASSERT_NE(replay, nullptr) << why;

  const Tensor y = deviceView(second, {8, 8});
  Plan& bound = replay->bind({y}, 0, true);
  ASSERT_EQ(bound.launches.size(), 1u);
  EXPECT_EQ(bound.launches[0].arguments.pointerAt(0), second.data());
  EXPECT_EQ(bound.launches[0].arguments.pointerAt(2), second.data() + 10);
  EXPECT_FALSE(bound.launches[0].arguments.holdsPointer(1));  // the scalar stays
  // The outputs' tensors are built after the launches, not before them.
  EXPECT_NE(bound.outputs.at(0).tensor.data(), second.data() + 8);
  replay->bindOutputs({y}, 0);
  EXPECT_EQ(bound.outputs.at(0).tensor.data(), second.data() + 8);
  EXPECT_EQ(bound.kernelsBuilt, 0);
  replay->release();
}

TEST(ReplayPlanTest, UntracedPointerOrOverlappingInputsRefuseCapture) {
  std::vector<float> storage(64), elsewhere(4);
  const Tensor x = deviceView(storage, {8, 8});
  Plan plan;
  PlannedLaunch launch;
  launch.what = "segment 3";
  launch.arguments.addTensor(elsewhere.data(), {4}, {1});
  plan.launches.push_back(launch);
  std::string why;
  EXPECT_EQ(ReplayPlan::capture(plan, {x}, {}, &why), nullptr);
  EXPECT_NE(why.find("segment 3"), std::string::npos) << why;

  const Tensor half = deviceView(storage, {4, 8}, 16);  // overlaps x
  EXPECT_EQ(ReplayPlan::capture(Plan{}, {x, half}, {}, &why), nullptr);
  EXPECT_NE(why.find("overlap"), std::string::npos) << why;
}

TEST(DevicePoolTest, SizesRoundToTheirClass) {
  EXPECT_EQ(poolRoundedBytes(1), 512);
  EXPECT_EQ(poolRoundedBytes(512), 512);
  EXPECT_EQ(poolRoundedBytes(513), 1024);
  EXPECT_EQ(poolRoundedBytes(int64_t{1} << 20), int64_t{1} << 20);
  EXPECT_EQ(poolRoundedBytes((int64_t{1} << 20) + 1), (int64_t{1} << 20) + (128 << 10));
}

}  // namespace
}  // namespace fuserlab::runtime
