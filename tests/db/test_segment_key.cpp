// The key: the structural hash sees ops, attributes, dtypes and layouts but
// not names or the order independent exprs were written in; sizes, buckets
// and device fingerprints are exact text.
#include <gtest/gtest.h>

#include "db/segment_key.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using ir::DataType;
using testing_support::BoundFusion;
using testing_support::shape;

const char* kTwoBranches = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T2 = fd.ops.exp(T0)
T3 = fd.ops.neg(T1)
T4 = fd.ops.add(T2, T3)
fd.add_output(T4)
)";

runtime::Arguments twoFloat(int64_t rows, int64_t cols) {
  return {shape(DataType::Float, {rows, cols}), shape(DataType::Float, {rows, cols})};
}

std::string hashOf(const char* script, const runtime::Arguments& inputs) {
  return BoundFusion(script, inputs).hash();
}

TEST(SegmentKeyTest, StructuralHashIgnoresNamesAndExprOrder) {
  const char* renamedAndReordered = R"(
a = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
b = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
nb = fd.ops.neg(b)
ea = fd.ops.exp(a)
out = fd.ops.add(ea, nb)
fd.add_output(out)
)";
  EXPECT_EQ(hashOf(kTwoBranches, twoFloat(8, 64)), hashOf(renamedAndReordered, twoFloat(8, 64)));
  // Sizes are not structure.
  EXPECT_EQ(hashOf(kTwoBranches, twoFloat(8, 64)), hashOf(kTwoBranches, twoFloat(1024, 4096)));
}

TEST(SegmentKeyTest, StructuralHashSeesOpsOperandOrderDtypesAndLayout) {
  const std::string base = hashOf(kTwoBranches, twoFloat(8, 64));
  auto variant = [&](const std::string& from, const std::string& to) {
    std::string script = kTwoBranches;
    script.replace(script.find(from), from.size(), to);
    return hashOf(script.c_str(), twoFloat(8, 64));
  };
  EXPECT_NE(base, variant("fd.ops.add(T2, T3)", "fd.ops.mul(T2, T3)"));
  EXPECT_NE(base, variant("fd.ops.add(T2, T3)", "fd.ops.sub(T2, T3)"));
  EXPECT_NE(hashOf(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T2 = fd.ops.sub(T0, T1)
fd.add_output(T2)
)",
                   twoFloat(8, 64)),
            hashOf(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T2 = fd.ops.sub(T1, T0)
fd.add_output(T2)
)",
                   twoFloat(8, 64)));
  // Contiguity and stride order as declared.
  EXPECT_NE(base, variant("contiguity=[True, True], dtype=DataType.Float)\nT1",
                          "contiguity=[False, True], dtype=DataType.Float)\nT1"));
  // A dtype: the same op on half inputs.
  std::string half = kTwoBranches;
  for (size_t at; (at = half.find("DataType.Float")) != std::string::npos;) {
    half.replace(at, 14, "DataType.Half");
  }
  EXPECT_NE(base,
            hashOf(half.c_str(), {shape(DataType::Half, {8, 64}), shape(DataType::Half, {8, 64})}));
}

TEST(SegmentKeyTest, StructuralHashSeesReductionAxesAndAlignmentClass) {
  auto sum = [](int axis) {
    return std::string(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.sum(T0, dims=[)") +
           std::to_string(axis) + R"(], keepdim=False)
fd.add_output(T1)
)";
  };
  const runtime::Arguments square = {shape(DataType::Float, {64, 64})};
  EXPECT_NE(hashOf(sum(0).c_str(), square), hashOf(sum(1).c_str(), square));
  // An input 4 bytes off a 16-byte boundary cannot be read 16 bytes at a
  // time: another alignment class. 16 and 256 are the same class.
  const std::string aligned = hashOf(sum(1).c_str(), square);
  EXPECT_NE(aligned, hashOf(sum(1).c_str(), {shape(DataType::Float, {64, 64}, /*offset=*/1)}));
  EXPECT_EQ(aligned, hashOf(sum(1).c_str(), {shape(DataType::Float, {64, 64}, /*offset=*/4)}));
}

TEST(SegmentKeyTest, SizesAndBucketsAreText) {
  BoundFusion bound(kTwoBranches, twoFloat(16, 1600));
  EXPECT_EQ(sizesText(bound.info), "16x1600,16x1600");
  EXPECT_EQ(sizeBucketText(bound.info), "16x1664,16x1664");
  const SegmentKey key = segmentKey(*bound.fusion, scheduler::SchedulerType::Pointwise, bound.info);
  EXPECT_EQ(key.scheduler, "pointwise");
  EXPECT_EQ(key.paramsSchema, scheduler::PointwiseParams::kSchemaVersion);
  EXPECT_EQ(key.structureHash.size(), 16u);
  EXPECT_EQ(key.deviceFingerprint, "sm_90-132sm-80gb-51200kib-1980mhz");
}

TEST(SegmentKeyTest, BucketRoundsUpToFourSignificantBits) {
  EXPECT_EQ(sizeBucket(1), 1);
  EXPECT_EQ(sizeBucket(16), 16);
  EXPECT_EQ(sizeBucket(17), 18);
  EXPECT_EQ(sizeBucket(1024), 1024);
  EXPECT_EQ(sizeBucket(1025), 1152);
  EXPECT_EQ(sizeBucket(1536), 1536);
  EXPECT_EQ(sizeBucket(1537), 1664);
  EXPECT_EQ(sizeBucket(1600), 1664);
  EXPECT_EQ(sizeBucket(1664), 1664);
  EXPECT_EQ(sizeBucket(1665), 1792);
  EXPECT_EQ(sizeBucket(int64_t{3} << 40), int64_t{3} << 40);
}

TEST(SegmentKeyTest, DeviceFingerprintsTellDevicesApart) {
  std::vector<std::string> seen;
  for (const auto& device : scheduler::builtinDevices()) {
    const std::string fingerprint = deviceFingerprint(device);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), fingerprint), 0) << fingerprint;
    seen.push_back(fingerprint);
  }
}

}  // namespace
}  // namespace fuserlab::db
