// remove_empty: tensors with a constant zero extent become `full`, and the
// work that fed only them goes (IR in, IR out), as nvFuser's RemoveEmptyPass.
#include <gtest/gtest.h>

#include <cmath>

#include "core/passes/remove_empty.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using ir::ExprType;
using ir::TensorView;

class RemoveEmptyTest : public PassFixture {
 protected:
  PassRecord remove() { return run(RemoveEmptyPass()); }

  // The fill value of the full that now defines output `index`.
  double fillOfOutput(size_t index) const {
    const ir::Expr* def = fusion_->outputs().at(index).val->definition();
    EXPECT_EQ(def->type(), ExprType::Full);
    return def->inputs().back()->as<ir::Scalar>()->constDouble().value_or(-1);
  }

  int liveExprCount() const { return static_cast<int>(fusion_->exprsForOutputs().size()); }
};

// The whole chain computing an empty output is replaced by one full.
TEST_F(RemoveEmptyTest, EmptyOutputBecomesFull) {
  read(R"(
T0 = fd.define_tensor(shape=[0, 4], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[0, 4], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.relu(T0)
T3 = fd.ops.mul(T2, T1)
fd.add_output(T3)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "replaced T3 = mul(T2, T1) by T4 = full([0, 4], 0.0): T3 [0, 4] "
            "has no elements (axis 0 has extent 0)");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{0}, iS1{4}], contiguity [True, True]
  T1_g_float[iS2{0}, iS3{4}], contiguity [True, True]
Outputs:
  T4_g_float[iS8{0}, iS9{4}]

%kernel {
T4_g_float[iS8{0}, iS9{4}]
   = full(0, 4, 0.0, dtype=Float)
}
)IR");
  // The relu fed only the empty mul: it is gone, and T0 has no use left.
  EXPECT_EQ(liveExprCount(), 1);
  EXPECT_TRUE(fusion_->inputs()[0]->uses().empty());
}

// A sum over an empty axis is its init value; prod 1, max -inf, min +inf.
TEST_F(RemoveEmptyTest, ReductionOverEmptyAxisIsItsInitValue) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, 0], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.exp(T1)
fd.add_output(T2)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "replaced T1 = sum(T0) by T3 = full([i0], 0.0): it reduces axis 1 "
            "of T0, which has extent 0");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{i0}, iS1{0}], contiguity [True, True]
Outputs:
  T2_g_float[iS4{i0}]

%kernel {
T3_l_float[iS5{i0}]
   = full(i0, 0.0, dtype=Float)
T2_g_float[iS4{i0}]
   = exp(T3)
}
)IR");

  read(R"(
T0 = fd.define_tensor(shape=[3, 0], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.prod(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.max(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T3 = fd.ops.min(T0, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3)
)");
  EXPECT_EQ(remove().rewrites.size(), 3u);
  EXPECT_EQ(fillOfOutput(0), 1.0);
  EXPECT_EQ(fillOfOutput(1), -INFINITY);
  EXPECT_EQ(fillOfOutput(2), INFINITY);
}

// var_mean over an empty axis: the welford's average is NaN (0/0), its
// var_sum and count 0; the division by N - correction stays.
TEST_F(RemoveEmptyTest, WelfordOverEmptyAxis) {
  read(R"(
T0 = fd.define_tensor(shape=[3, 0], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)
fd.add_output(T1)
fd.add_output(T2)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 1u);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{3}, iS1{0}], contiguity [True, True]
Outputs:
  T4_g_float[iS8{3}]
  T5_g_float[iS9{3}]

%kernel {
T5_g_float[iS9{3}]
   = full(3, nan, dtype=Float)
T6_l_float[iS10{3}]
   = full(3, 0.0, dtype=Float)
T4_g_float[iS8{3}]
   = div(T6, 0)
}
)IR");
  EXPECT_TRUE(std::isnan(fillOfOutput(1)));
}

// cat drops inputs empty along the concatenated axis; with one input left
// it is a copy.
TEST_F(RemoveEmptyTest, CatDropsEmptyInputs) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[0, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.define_tensor(shape=[4, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T3 = fd.ops.cat([T0, T1, T2], dim=0)
T4 = fd.ops.cat([T1, T2], dim=0)
fd.add_output(T3)
fd.add_output(T4)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(record.rewrites[0],
            "replaced T4 = cat(T1, T2) by T5 = set(T2): T1 has extent 0 along "
            "the concatenated axis 0");
  EXPECT_EQ(record.rewrites[1],
            "replaced T3 = cat(T0, T1, T2) by T6 = cat(T0, T2): T1 has extent "
            "0 along the concatenated axis 0");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], contiguity [True, True]
  T1_g_float[iS2{0}, iS3{3}], contiguity [True, True]
  T2_g_float[iS4{4}, iS5{3}], contiguity [True, True]
Outputs:
  T6_g_float[iS12{6}, iS13{3}]
  T5_g_float[iS10{4}, iS11{3}]

%kernel {
T5_g_float[iS10{4}, iS11{3}]
   = set(T2)
T6_g_float[iS12{6}, iS13{3}]
   = cat(T0, T2, dim=0)
}
)IR");
}

// Padding an empty tensor gives nothing but padding.
TEST_F(RemoveEmptyTest, PadOfEmptyIsFullOfThePadValue) {
  read(R"(
T0 = fd.define_tensor(shape=[0, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
S1 = fd.define_scalar(2.50000, dtype=DataType.Double)
T2 = fd.ops.pad(T0, [0, 0, 1, 1], S1)
fd.add_output(T2)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(fillOfOutput(0), 2.5);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{0}, iS1{3}], contiguity [True, True]
Outputs:
  T2_g_float[iS4{2}, iS5{3}]

%kernel {
T2_g_float[iS4{2}, iS5{3}]
   = full(2, 3, 2.5, dtype=Float)
}
)IR");
}

// An empty slice (x[:, 2:2]) is an empty tensor like any other.
TEST_F(RemoveEmptyTest, EmptySliceBecomesFull) {
  read(R"(
T0 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 2], end_indices=[4, 2], strides=[1, 1])
T2 = fd.ops.neg(T1)
fd.add_output(T2)
)");
  const PassRecord record = remove();
  ASSERT_EQ(record.rewrites.size(), 1u);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{4}, iS1{6}], contiguity [True, True]
Outputs:
  T3_g_float[iS6{4}, iS7{0}]

%kernel {
T3_g_float[iS6{4}, iS7{0}]
   = full(4, 0, 0.0, dtype=Float)
}
)IR");
}

// Symbolic extents may be zero at run time, but nothing is provably empty.
TEST_F(RemoveEmptyTest, NonEmptyFusionIsUnchanged) {
  readFile("resources/examples/layer_norm.py");
  const std::string before = ir();
  EXPECT_TRUE(remove().rewrites.empty());
  EXPECT_EQ(ir(), before);
}

}  // namespace
}  // namespace fuserlab::passes::test
