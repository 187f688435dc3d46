#include "core/tensor/result_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/frontend/script.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

Tensor filled(DataType dtype, std::vector<int64_t> sizes, double start) {
  Tensor t = Tensor::empty(dtype, std::move(sizes));
  const int64_t cols = t.sizes().back();
  for (int64_t i = 0; i < t.numel(); ++i) {
    t.set({i / cols, i % cols}, start + 0.25 * double(i));
  }
  return t;
}

TEST(ResultCheckTest, EqualTensorsPass) {
  const Tensor e = filled(DataType::Float, {3, 5}, 1.0);
  const TensorCheck check = checkTensor(e.clone(), e, "T2");
  EXPECT_TRUE(check.passed) << check.message;
  EXPECT_EQ(check.elements, 15);
  EXPECT_EQ(check.mismatches, 0);
  EXPECT_NE(check.message.find("T2: 15 elements match"), std::string::npos);
}

TEST(ResultCheckTest, WorstElementIsReportedWithIndexAndBothValues) {
  const Tensor e = filled(DataType::Float, {3, 5}, 1.0);
  Tensor a = e.clone();
  a.set({1, 2}, a.item({1, 2}) + 0.5);
  a.set({2, 4}, a.item({2, 4}) + 4.0);
  const TensorCheck check = checkTensor(a, e, "T7");
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_EQ(check.worstIndex, (std::vector<int64_t>{2, 4}));
  EXPECT_DOUBLE_EQ(check.worstExpected, e.item({2, 4}));
  EXPECT_DOUBLE_EQ(check.worstActual, e.item({2, 4}) + 4.0);
  EXPECT_NE(check.message.find("2 of 15 elements differ"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("at [2, 4]"), std::string::npos) << check.message;
}

TEST(ResultCheckTest, StridesDoNotMatterOnlyLogicalElements) {
  const Tensor e = filled(DataType::Float, {4, 6}, -3.0);
  const Tensor transposed = e.permute({1, 0}).contiguous().permute({1, 0});
  ASSERT_FALSE(transposed.isContiguous());
  EXPECT_TRUE(checkTensor(transposed, e, "T0").passed);
}

TEST(ResultCheckTest, FloatToleranceIsRelativeWithAnAbsoluteFloor) {
  Tensor e = Tensor::empty(DataType::Float, {3});
  e.set({0}, 1000.0);
  e.set({1}, 0.0);
  e.set({2}, 1.0);
  Tensor a = e.clone();
  a.set({0}, 1000.0 * (1 + 5e-6));  // inside rtol 1e-5
  a.set({1}, 1e-5);                 // inside atol 1e-5 + 1e-6 * 1000
  EXPECT_TRUE(checkTensor(a, e, "T1").passed);
  a.set({2}, 1.0 + 1e-2);
  EXPECT_FALSE(checkTensor(a, e, "T1").passed);
}

TEST(ResultCheckTest, ReducedPrecisionTolerancesByDtype) {
  EXPECT_DOUBLE_EQ(toleranceFor(DataType::BFloat16).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(toleranceFor(DataType::Half).rtol, 1e-3);
  EXPECT_LT(toleranceFor(DataType::Double).rtol, toleranceFor(DataType::Float).rtol);
  Tensor e = Tensor::empty(DataType::BFloat16, {2});
  e.set({0}, 1.0);
  e.set({1}, 2.0);
  Tensor a = e.clone();
  a.set({0}, 1.0078125);  // one bf16 ulp above 1
  EXPECT_TRUE(checkTensor(a, e, "T3").passed);
  a.set({1}, 2.0625);
  EXPECT_FALSE(checkTensor(a, e, "T3").passed);
}

TEST(ResultCheckTest, IntegersAndBoolsAreExact) {
  Tensor e = Tensor::empty(DataType::Int, {2});
  e.set({0}, 5);
  e.set({1}, -7);
  Tensor a = e.clone();
  EXPECT_TRUE(checkTensor(a, e, "T4").passed);
  a.set({1}, -6);
  const TensorCheck check = checkTensor(a, e, "T4");
  EXPECT_FALSE(check.passed);
  EXPECT_NE(check.message.find("(exact)"), std::string::npos);

  // Beyond 2^53, where doubles would call these equal.
  Tensor big = Tensor::empty(DataType::Int, {1});
  big.dataAs<int64_t>()[0] = (int64_t{1} << 60) + 1;
  Tensor big2 = Tensor::empty(DataType::Int, {1});
  big2.dataAs<int64_t>()[0] = int64_t{1} << 60;
  EXPECT_FALSE(checkTensor(big, big2, "T5").passed);

  Tensor b = Tensor::empty(DataType::Bool, {2});
  b.set({0}, 1);
  b.set({1}, 0);
  Tensor b2 = b.clone();
  EXPECT_TRUE(checkTensor(b2, b, "T6").passed);
  b2.set({1}, 1);
  EXPECT_FALSE(checkTensor(b2, b, "T6").passed);
}

TEST(ResultCheckTest, NanWhereAndOnlyWhereTheReferenceHasNan) {
  Tensor e = Tensor::empty(DataType::Float, {3});
  e.set({0}, NAN);
  e.set({1}, 1.0);
  e.set({2}, INFINITY);
  Tensor a = e.clone();
  EXPECT_TRUE(checkTensor(a, e, "T8").passed);
  a.set({0}, 0.0);  // reference NaN, result not
  EXPECT_FALSE(checkTensor(a, e, "T8").passed);
  a = e.clone();
  a.set({1}, NAN);  // an unwritten (poisoned) element
  const TensorCheck check = checkTensor(a, e, "T8");
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.worstIndex, (std::vector<int64_t>{1}));
  a = e.clone();
  a.set({2}, 1e30);  // infinities must match exactly
  EXPECT_FALSE(checkTensor(a, e, "T8").passed);
  a.set({2}, -INFINITY);
  EXPECT_FALSE(checkTensor(a, e, "T8").passed);
}

TEST(ResultCheckTest, ShapeOrDtypeMismatchFails) {
  const Tensor e = filled(DataType::Float, {2, 3}, 0.0);
  EXPECT_FALSE(checkTensor(filled(DataType::Float, {3, 2}, 0.0), e, "T9").passed);
  EXPECT_FALSE(checkTensor(e.to(DataType::Double), e, "T9").passed);
}

TEST(ResultCheckTest, LargeTensorsAreComparedInChunksWithGlobalIndices) {
  // More elements than one comparison chunk (2^22): the worst element in a
  // later chunk keeps its own index.
  Tensor e = Tensor::empty(DataType::Float, {3, (int64_t{1} << 21) + 1});
  e.fill(1.0);
  Tensor a = e.clone();
  a.set({2, 12345}, 7.0);
  a.set({0, 5}, 1.5);
  const TensorCheck check = checkTensor(a, e, "T11");
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.mismatches, 2);
  EXPECT_EQ(check.worstIndex, (std::vector<int64_t>{2, 12345}));
  EXPECT_DOUBLE_EQ(check.worstActual, 7.0);

  Tensor flat = Tensor::empty(DataType::Bool, {(int64_t{1} << 23) + 3});
  flat.fill(1.0);
  Tensor flat2 = flat.clone();
  flat2.set({(int64_t{1} << 23) + 1}, 0.0);
  const TensorCheck flatCheck = checkTensor(flat2, flat, "T12");
  EXPECT_FALSE(flatCheck.passed);
  EXPECT_EQ(flatCheck.worstIndex, (std::vector<int64_t>{(int64_t{1} << 23) + 1}));
}

TEST(ResultCheckTest, EmptyTensorsPass) {
  const Tensor e = Tensor::empty(DataType::Float, {0, 4});
  const TensorCheck check = checkTensor(e, e, "T10");
  EXPECT_TRUE(check.passed);
  EXPECT_EQ(check.elements, 0);
}

// A Double output computed from Float math (the differential tester's seed
// 1176: sqrt in Float, then cast to Double) is only as exact as Float: one
// Float ulp is no wrong result. A Double chain keeps Double's tolerance.
TEST(ResultCheckTest, AnOutputIsAsExactAsTheLeastPreciseValueOnItsWay) {
  const frontend::Script script = frontend::readScript(R"(
from nvfuser import FusionDefinition, DataType
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    t1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double)
    t2 = fd.ops.cast(fd.ops.sqrt(fd.ops.abs(t0)), dtype=DataType.Double)
    fd.add_output(t2)
    fd.add_output(fd.ops.exp(t1))
    fd.add_output(fd.ops.cast(fd.ops.gt(t1, 0.0), dtype=DataType.Int))
    fd.add_output(fd.ops.cast(fd.ops.cast(t1, dtype=DataType.BFloat16), dtype=DataType.Float))
)",
                                                       "tolerance.py");
  const ir::Fusion& fusion = script.fusion();
  EXPECT_EQ(toleranceForOutput(fusion, 0).rtol, toleranceFor(DataType::Float).rtol);
  EXPECT_EQ(toleranceForOutput(fusion, 1).rtol, toleranceFor(DataType::Double).rtol);
  EXPECT_EQ(toleranceForOutput(fusion, 2).rtol, 0.0);
  EXPECT_EQ(toleranceForOutput(fusion, 3).rtol, toleranceFor(DataType::BFloat16).rtol);
  Tensor expected = Tensor::empty(DataType::Double, {1});
  expected.set({0}, 0.51445663);
  Tensor actual = Tensor::empty(DataType::Double, {1});
  actual.set({0}, 0.51445657);
  EXPECT_FALSE(checkTensor(actual, expected, "t2").passed);
  EXPECT_TRUE(checkTensor(actual, expected, "t2", toleranceForOutput(fusion, 0)).passed);
}

// A value rounded to Half and then computed on is rounded twice: the tuner
// found GroupNorm + SiLU's fp16 output 2 ulps off the reference (4.4648 vs
// 4.4727 at [6, 192, 20, 26]) in 3 of 10 million elements for every variant,
// its default included, so nothing could be tuned. Such outputs get twice
// the narrow dtype's tolerance; one rounding (a cast to bf16 and back, or
// a final cast) keeps it.
TEST(ResultCheckTest, AnOutputComputedFromARoundedValueGetsTwoUlps) {
  const frontend::Script script = frontend::readScript(R"(
from nvfuser import FusionDefinition, DataType
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    t1 = fd.ops.cast(t0, dtype=DataType.Half)
    t2 = fd.ops.silu(fd.ops.cast(t1, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(t2, dtype=DataType.Half))
    fd.add_output(fd.ops.cast(fd.ops.silu(t0), dtype=DataType.Half))
    fd.add_output(fd.ops.cast(t1, dtype=DataType.Float))
)",
                                                       "double_rounding.py");
  const ir::Fusion& fusion = script.fusion();
  const double half = toleranceFor(DataType::Half).rtol;
  EXPECT_EQ(toleranceForOutput(fusion, 0).rtol, 2 * half);
  EXPECT_EQ(toleranceForOutput(fusion, 1).rtol, half);
  EXPECT_EQ(toleranceForOutput(fusion, 2).rtol, half);
  Tensor expected = Tensor::empty(DataType::Half, {1});
  expected.set({0}, 4.47265625);
  Tensor actual = Tensor::empty(DataType::Half, {1});
  actual.set({0}, 4.46484375);
  EXPECT_FALSE(checkTensor(actual, expected, "T29", toleranceForOutput(fusion, 1)).passed);
  EXPECT_TRUE(checkTensor(actual, expected, "T29", toleranceForOutput(fusion, 0)).passed);
}

// An input updated in place (alias_input=) is as exact as the output written
// into it: the differential tester's seed 321536 wrote a Double computed
// through Half and Float math (0.5 * x + log(1 + |half(x)|), which cancels
// near x = -2.5) into its Double input, and one Float ulp of logf was
// reported as a wrong result against Double's tolerance.
TEST(ResultCheckTest, AnInputUpdatedInPlaceIsAsExactAsTheOutputWrittenIntoIt) {
  const frontend::Script script = frontend::readScript(R"(
from nvfuser import FusionDefinition, DataType
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double)
    t1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double)
    t2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double)
    t3 = fd.ops.cast(fd.ops.log(fd.ops.cast(t0, dtype=DataType.Float)), dtype=DataType.Double)
    fd.add_output(fd.ops.add(fd.ops.mul(t0, 0.5), t3), alias_input=t0)
    fd.add_output(fd.ops.exp(t1), alias_input=t1)
)",
                                                       "inplace_tolerance.py");
  const ir::Fusion& fusion = script.fusion();
  EXPECT_EQ(toleranceForInputAfterRun(fusion, 0).rtol, toleranceFor(DataType::Float).rtol);
  EXPECT_EQ(toleranceForInputAfterRun(fusion, 1).rtol, toleranceFor(DataType::Double).rtol);
  EXPECT_EQ(toleranceForInputAfterRun(fusion, 2).rtol, toleranceFor(DataType::Double).rtol);
  Tensor expected = Tensor::empty(DataType::Double, {1});
  expected.set({0}, 3.00256626e-06);
  Tensor actual = Tensor::empty(DataType::Double, {1});
  actual.set({0}, 3.12177555e-06);
  EXPECT_FALSE(checkTensor(actual, expected, "input 0").passed);
  EXPECT_TRUE(
      checkTensor(actual, expected, "input 0", toleranceForInputAfterRun(fusion, 0)).passed);
}

}  // namespace
}  // namespace fuserlab::runtime
