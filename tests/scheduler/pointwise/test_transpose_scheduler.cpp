// The transpose scheduler: which segments are transposes (a permute, or
// stride orders that disagree), which are too small for tiles, the tile and
// vectorization heuristic, and rejectParams on tiles, threads and shared
// memory.
#include <gtest/gtest.h>

#include "core/scheduler/transpose/transpose_scheduler.h"
#include "tests/scheduler/pointwise/scheduler_fixture.h"

namespace fuserlab::scheduler::test {
namespace {

constexpr std::string_view kPermuteFloat = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.relu(T1)
fd.add_output(T2)
)";

constexpr std::string_view kPermuteBf16 = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.neg(T1)
fd.add_output(T2)
)";

TransposeParams paramsOf(const HeuristicParams& params) {
  EXPECT_TRUE(std::holds_alternative<TransposeParams>(params));
  return std::get<TransposeParams>(params);
}

TEST_F(TransposeTest, AcceptsLargePermute) {
  define(kPermuteFloat);
  TransposeScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  const auto& info = bind({contiguous(DataType::Float, {4096, 4096})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const auto params = scheduler.computeHeuristics(fusion(), info);
  const TransposeParams p = paramsOf(params);
  EXPECT_EQ(p.tileSize1, 32);
  EXPECT_EQ(p.tileSize2, 32);
  EXPECT_EQ(p.blockDim, 128);
  EXPECT_EQ(p.vectorizationFactor1, 4);
  EXPECT_EQ(p.vectorizationFactor2, 4);
  EXPECT_TRUE(p.useInt32Indexing);
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
  const std::string properties = scheduler.properties(fusion(), info).dump(-1);
  EXPECT_NE(properties.find("\"group1\":[\"" + irName("T0") + "\"]"), std::string::npos)
      << properties;
  EXPECT_NE(properties.find("\"group2\":[\"" + irName("T2") + "\"]"), std::string::npos)
      << properties;
}

TEST_F(TransposeTest, RefusesSmallPermute) {
  define(kPermuteFloat);
  const auto& info = bind({contiguous(DataType::Float, {4, 8})});
  const auto reason = TransposeScheduler().rejectRunTime(fusion(), info);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, "small transpose: the innermost axes of " + irName("T0") +
                         " (8 elements) and of " + irName("T2") +
                         " (4 elements) do not both fill a 32-wide tile; the "
                         "pointwise scheduler handles small transposes");
}

TEST_F(TransposeTest, RefusesWithoutTranspose) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.add(T0, T1)
fd.add_output(T2)
)");
  EXPECT_EQ(TransposeScheduler().rejectCompileTime(fusion()),
            "no transpose: every input and output has the same innermost axis");
}

TEST_F(TransposeTest, RefusesWhatPointwiseRefuses) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)");
  const auto reason = TransposeScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("has a reduction: ", 0), 0u) << *reason;
}

TEST_F(TransposeTest, StrideOrderInputIsATranspose) {
  // A column-major input written row-major: no permute op, the allocation
  // domains disagree.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.ops.relu(T0)
fd.add_output(T1)
)");
  TransposeScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  const auto& info = bind({strided(DataType::Float, {1024, 2048}, {1, 1024})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
  const TransposeParams p = paramsOf(scheduler.computeHeuristics(fusion(), info));
  EXPECT_EQ(p.vectorizationFactor1, 4);
  EXPECT_EQ(p.vectorizationFactor2, 4);
}

TEST_F(TransposeTest, StrideOrderOutputIsATranspose) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.relu(T0)
T2 = fd.ops.neg(T0)
fd.add_output(T1, stride_order=[0, 1])
fd.add_output(T2)
)");
  TransposeScheduler scheduler;
  EXPECT_EQ(scheduler.rejectCompileTime(fusion()), std::nullopt);
  const auto& info = bind({contiguous(DataType::Float, {1024, 2048})});
  EXPECT_EQ(scheduler.rejectRunTime(fusion(), info), std::nullopt);
}

TEST_F(TransposeTest, TwoByteDtypesTakeLargeTiles) {
  define(kPermuteBf16);
  const auto& info = bind({contiguous(DataType::BFloat16, {4096, 4096})});
  TransposeScheduler scheduler;
  const auto params = scheduler.computeHeuristics(fusion(), info);
  const TransposeParams p = paramsOf(params);
  EXPECT_EQ(p.tileSize1, 64);
  EXPECT_EQ(p.tileSize2, 64);
  EXPECT_EQ(p.blockDim, 256);
  EXPECT_EQ(p.vectorizationFactor1, 8);
  EXPECT_EQ(p.vectorizationFactor2, 8);
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, params), std::nullopt);
}

TEST_F(TransposeTest, OddInnerExtentLimitsItsGroup) {
  define(kPermuteFloat);
  const auto& info = bind({contiguous(DataType::Float, {4096, 4098})});
  TransposeScheduler scheduler;
  const auto params = scheduler.computeHeuristics(fusion(), info);
  EXPECT_EQ(paramsOf(params).vectorizationFactor1, 2);
  EXPECT_EQ(paramsOf(params).vectorizationFactor2, 4);
  TransposeParams p = paramsOf(params);
  p.vectorizationFactor1 = 4;
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, p),
            "vectorization_factor1 4 is more than the 2 group 1 (" + irName("T0") + ") allows (" +
                irName("T0") +
                ": innermost contiguous extent 4098 is divisible by 2 but "
                "not by 4)");
}

TEST_F(TransposeTest, RejectParamsChecksTilesThreadsAndSharedMemory) {
  define(kPermuteFloat);
  const auto& info = bind({contiguous(DataType::Float, {4096, 4096})});
  TransposeScheduler scheduler;
  auto reasonFor = [&](TransposeParams p) {
    return scheduler.rejectParams(fusion(), info, p).value_or("accepted");
  };
  TransposeParams p;
  EXPECT_EQ(reasonFor(p), "accepted");
  p.tileSize1 = 8;
  p.vectorizationFactor1 = 16;
  EXPECT_EQ(reasonFor(p), "vectorization_factor1 16 does not divide tile_size1 8");
  p = TransposeParams();
  p.tileSize1 = 48;
  EXPECT_EQ(reasonFor(p), "tile_size1 48 is not a power of two from 1 to 128");
  p = TransposeParams();
  p.blockDim = 1024;
  p.vectorizationFactor1 = 4;
  EXPECT_EQ(reasonFor(p),
            "a 32x32 tile over 1024 threads does not give every "
            "thread a whole vector of 4 elements");
  p = TransposeParams();
  p.tileSize1 = 128;
  p.tileSize2 = 128;
  EXPECT_EQ(reasonFor(p), "128x128 tiles of " + irName("T0") +
                              " need 65536 bytes of shared memory; the " + device_.name +
                              " gives " + std::to_string(device_.sharedMemoryPerBlockBytes) +
                              " per block");
  EXPECT_EQ(scheduler.rejectParams(fusion(), info, PointwiseParams()),
            "expected transpose params, got pointwise params");
}

}  // namespace
}  // namespace fuserlab::scheduler::test
