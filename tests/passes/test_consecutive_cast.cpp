// consecutive_cast: lossless round trips and widening middles fold, casts
// that round stay (IR in, IR out).
#include <gtest/gtest.h>

#include "core/passes/consecutive_cast.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using ir::DataType;

class ConsecutiveCastTest : public PassFixture {
 protected:
  PassRecord fold() { return run(ConsecutiveCastPass()); }

  void expectUnchanged() {
    const std::string before = ir();
    const PassRecord record = fold();
    EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
    EXPECT_EQ(ir(), before);
  }
};

TEST_F(ConsecutiveCastTest, RepresentsExactly) {
  EXPECT_TRUE(representsExactly(DataType::Float, DataType::BFloat16));
  EXPECT_TRUE(representsExactly(DataType::Float, DataType::Half));
  EXPECT_TRUE(representsExactly(DataType::Double, DataType::Float));
  EXPECT_TRUE(representsExactly(DataType::Int, DataType::Int32));
  EXPECT_TRUE(representsExactly(DataType::Double, DataType::Int32));
  EXPECT_TRUE(representsExactly(DataType::Half, DataType::Bool));
  EXPECT_TRUE(representsExactly(DataType::Float, DataType::Float));
  EXPECT_FALSE(representsExactly(DataType::BFloat16, DataType::Float));
  EXPECT_FALSE(representsExactly(DataType::Half, DataType::BFloat16));
  EXPECT_FALSE(representsExactly(DataType::BFloat16, DataType::Half));
  EXPECT_FALSE(representsExactly(DataType::Float, DataType::Int32));
  EXPECT_FALSE(representsExactly(DataType::Double, DataType::Int));
  EXPECT_FALSE(representsExactly(DataType::Int32, DataType::Float));
  EXPECT_FALSE(representsExactly(DataType::Bool, DataType::Int32));
}

// float -> double -> float gives back the same float: both casts go.
TEST_F(ConsecutiveCastTest, RemovesLosslessRoundTrip) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Double)
T2 = fd.ops.cast(T1, dtype=DataType.Float)
T3 = fd.ops.relu(T2)
fd.add_output(T3)
)");
  const PassRecord record = fold();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "removed cast pair T1 = cast(T0, Double) -> T2 = cast(T1, Float): "
            "Double holds every Float value exactly, so T2 equals T0");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}], contiguity [True, True]
Outputs:
  T3_g_float[iS6{i0}, iS7{i1}]

%kernel {
T3_g_float[iS6{i0}, iS7{i1}]
   = relu(T0)
}
)IR");
}

// An output keeps its own tensor: the round trip becomes a copy.
TEST_F(ConsecutiveCastTest, RoundTripIntoAnOutputBecomesASet) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.cast(T1, dtype=DataType.BFloat16)
fd.add_output(T2)
)");
  const PassRecord record = fold();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "removed cast pair T1 = cast(T0, Float) -> T2 = cast(T1, BFloat16): "
            "Float holds every BFloat16 value exactly, so T2 equals T0 (the "
            "output T2 = set(T0))");
  expectIr(R"IR(Inputs:
  T0_g___bfloat[iS0{i0}], contiguity [True]
Outputs:
  T2_g___bfloat[iS2{i0}]

%kernel {
T2_g___bfloat[iS2{i0}]
   = set(T0)
}
)IR");
}

// bf16 -> float -> half: the float holds the bf16 value exactly, so one
// rounding to half gives the same result.
TEST_F(ConsecutiveCastTest, MergesAWideningMiddle) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.cast(T1, dtype=DataType.Half)
fd.add_output(T2)
)");
  const PassRecord record = fold();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "merged casts T1 = cast(T0, Float) -> T2 = cast(T1, Half) into "
            "T2 = cast(T0, Half): Float holds every BFloat16 value exactly");
  expectIr(R"IR(Inputs:
  T0_g___bfloat[iS0{i0}], contiguity [True]
Outputs:
  T2_g___half[iS2{i0}]

%kernel {
T2_g___half[iS2{i0}]
   = cast(T0, dtype=Half)
}
)IR");
}

// float -> bf16 -> float rounds to bf16: the values change, both casts stay.
TEST_F(ConsecutiveCastTest, KeepsANarrowingRoundTrip) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.BFloat16)
T2 = fd.ops.cast(T1, dtype=DataType.Float)
fd.add_output(T2)
)");
  expectUnchanged();
}

// double -> float -> half rounds twice; double -> half once. Not the same.
TEST_F(ConsecutiveCastTest, KeepsDoubleRounding) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.cast(T1, dtype=DataType.Half)
fd.add_output(T2)
)");
  expectUnchanged();
}

// float -> int32 -> int64 truncates once either way, but int32 does not hold
// every float: kept.
TEST_F(ConsecutiveCastTest, KeepsATruncatingMiddle) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Int32)
T2 = fd.ops.cast(T1, dtype=DataType.Int)
fd.add_output(T2)
)");
  expectUnchanged();
}

// bf16 -> float -> bf16 -> float: the inner round trip goes first, then the
// chain is one cast.
TEST_F(ConsecutiveCastTest, FoldsALongChain) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.cast(T1, dtype=DataType.BFloat16)
T3 = fd.ops.cast(T2, dtype=DataType.Float)
T4 = fd.ops.exp(T3)
fd.add_output(T4)
)");
  const PassRecord record = fold();
  EXPECT_EQ(record.rewrites.size(), 1u);
  expectIr(R"IR(Inputs:
  T0_g___bfloat[iS0{i0}], contiguity [True]
Outputs:
  T4_g_float[iS4{i0}]

%kernel {
T3_l_float[iS3{i0}]
   = cast(T0, dtype=Float)
T4_g_float[iS4{i0}]
   = exp(T3)
}
)IR");
}

// The middle tensor is read elsewhere (or is an output): it must still be
// computed, so nothing is folded.
TEST_F(ConsecutiveCastTest, KeepsAMiddleWithOtherUses) {
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Double)
T2 = fd.ops.cast(T1, dtype=DataType.Float)
T3 = fd.ops.exp(T1)
fd.add_output(T2)
fd.add_output(T3)
)");
  expectUnchanged();
  read(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Double)
T2 = fd.ops.cast(T1, dtype=DataType.Float)
fd.add_output(T1)
fd.add_output(T2)
)");
  expectUnchanged();
}

}  // namespace
}  // namespace fuserlab::passes::test
