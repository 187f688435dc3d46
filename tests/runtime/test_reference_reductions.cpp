// The reference executor's reductions: sum/prod/max/min over inner, outer
// and several axes, keepdim, NaN propagation, summation accuracy, Welford
// and var_mean against a direct two-pass computation, and a layer norm
// against a hand-written float computation (timed at 10M elements).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/normalization.h"
#include "core/tensor/float16.h"
#include "core/tensor/random_fill.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;
using ir::ReductionOpType;
using ir::UnaryOpType;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

TEST_F(ReferenceExecutorTest, SumsInnerOuterAndAllAxes) {
  TensorView* x = input({2, 3});
  fusion_.addOutput(ops::sum(x, {1}));
  fusion_.addOutput(ops::sum(x, {0}));
  fusion_.addOutput(ops::sum(x, {0, 1}));
  fusion_.addOutput(ops::sum(x, {-1}, /*keepDim=*/true));
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, 12}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(out[2].dim(), 0);
  EXPECT_EQ(values(out[2]), (std::vector<double>{15}));
  EXPECT_EQ(out[3].sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{3, 12}));
}

TEST_F(ReferenceExecutorTest, ReducesNonAdjacentAxes) {
  TensorView* x = input({2, 3, 4});
  fusion_.addOutput(ops::sum(x, {0, 2}));
  fusion_.addOutput(ops::reduction(ReductionOpType::Max, x, {1}));
  std::vector<double> in(24);
  for (int i = 0; i < 24; ++i) in[i] = i;
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 3, 4}, in)});
  // Axis 1 index j keeps {0..3} + 4j and {12..15} + 4j: 6 + 16j + 54 + 16j.
  EXPECT_EQ(values(out[0]), (std::vector<double>{60, 92, 124}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{8, 9, 10, 11, 20, 21, 22, 23}));
}

TEST_F(ReferenceExecutorTest, MaxAndMinReductionsPropagateNaN) {
  TensorView* x = input({2, 3});
  fusion_.addOutput(ops::reduction(ReductionOpType::Max, x, {1}));
  fusion_.addOutput(ops::reduction(ReductionOpType::Min, x, {1}));
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 3}, {1, kNan, 3, -1, -5, 2})});
  EXPECT_TRUE(std::isnan(values(out[0])[0]));
  EXPECT_TRUE(std::isnan(values(out[1])[0]));
  EXPECT_EQ(values(out[0])[1], 2);
  EXPECT_EQ(values(out[1])[1], -5);
}

TEST_F(ReferenceExecutorTest, IntegerProdAndBoolSum) {
  TensorView* x = input({2, 3}, DataType::Int32);
  TensorView* p = input({4}, DataType::Bool);
  TensorView* product = ops::reduction(ReductionOpType::Prod, x, {1});
  TensorView* count = ops::sum(p, {0});
  EXPECT_EQ(product->dtype(), DataType::Int);
  fusion_.addOutput(product);
  fusion_.addOutput(count);
  const std::vector<Tensor> out = run({make(DataType::Int32, {2, 3}, {2, -3, 4, 100000, 100000, 3}),
                                       make(DataType::Bool, {4}, {1, 0, 1, 1})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{-24, 3e10}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3}));
}

TEST_F(ReferenceExecutorTest, MaxOfAnEmptyAxisIsAUserError) {
  TensorView* x = input({2, 0});
  fusion_.addOutput(ops::reduction(ReductionOpType::Max, x, {1}));
  expectUserError([&] { run({Tensor::empty(DataType::Float, {2, 0})}); }, {"max", "empty"});
}

TEST_F(ReferenceExecutorTest, FloatSumIsPairwise) {
  // A sequential float sum of a million 0.1f drifts by about 1%; pairwise
  // summation stays within a few ulps.
  constexpr int64_t kCount = 1 << 20;
  TensorView* x = input({kCount});
  fusion_.addOutput(ops::sum(x, {0}));
  Tensor in = Tensor::empty(DataType::Float, {kCount});
  in.fill(0.1);
  const double exact = static_cast<double>(0.1f) * kCount;
  const double result = values(run({in}).at(0))[0];
  EXPECT_NEAR(result, exact, exact * 1e-6);
}

TEST_F(ReferenceExecutorTest, Bf16SumAccumulatesInFloatAndRoundsOnce) {
  // 300 ones: a float accumulator reaches 300 (a bf16 value); a bf16 one
  // would stick at 256, where adding 1 is a tie that rounds back to 256.
  TensorView* x = input({300}, DataType::BFloat16);
  fusion_.addOutput(ops::sum(x, {0}));
  Tensor in = Tensor::empty(DataType::BFloat16, {300});
  in.fill(1.0);
  const std::vector<Tensor> out = run({in});
  EXPECT_EQ(out[0].dtype(), DataType::BFloat16);
  EXPECT_EQ(values(out[0])[0], 300);
}

TEST_F(ReferenceExecutorTest, OuterReductionDoesNotDependOnLayout) {
  TensorView* x = input({300, 70});
  fusion_.addOutput(ops::sum(x, {0}));
  Tensor in = Tensor::empty(DataType::Float, {300, 70});
  fillNormal(in, 3);
  const Tensor transposed = in.permute({1, 0}).contiguous().permute({1, 0});
  const Tensor a = run({in}).at(0);
  const Tensor b = run({transposed}).at(0);
  EXPECT_EQ(values(a), values(b));
  double expected = 0;
  for (int64_t i = 0; i < 300; ++i) expected += in.item({i, 5});
  EXPECT_NEAR(values(a)[5], expected, 1e-4);
}

TEST_F(ReferenceExecutorTest, WelfordMatchesTwoPass) {
  TensorView* x = input({16, 1000});
  ops::WelfordResult w = ops::welford(x, {1});
  fusion_.addOutput(w.avg);
  fusion_.addOutput(w.varSum);
  fusion_.addOutput(w.count);
  Tensor in = Tensor::empty(DataType::Float, {16, 1000});
  fillNormal(in, 11, /*mean=*/1000.0, /*std=*/0.5);  // a large mean tests cancellation
  const std::vector<Tensor> out = run({in});
  ASSERT_EQ(out[2].dtype(), DataType::Int);
  for (int64_t r = 0; r < 16; ++r) {
    double mean = 0;
    for (int64_t i = 0; i < 1000; ++i) mean += in.item({r, i});
    mean /= 1000;
    double m2 = 0;
    for (int64_t i = 0; i < 1000; ++i) m2 += (in.item({r, i}) - mean) * (in.item({r, i}) - mean);
    EXPECT_NEAR(out[0].item({r}), mean, 1e-4);
    EXPECT_NEAR(out[1].item({r}), m2, m2 * 1e-3);
    EXPECT_EQ(out[2].item({r}), 1000);
  }
}

TEST_F(ReferenceExecutorTest, VarMeanWithKeepDimAndCorrection) {
  TensorView* x = input({2, 4});
  ops::VarMeanResult vm = ops::varMean(x, {1}, /*correction=*/1.0, /*keepDim=*/true);
  fusion_.addOutput(vm.var);
  fusion_.addOutput(vm.mean);
  const std::vector<Tensor> out = run({make(DataType::Float, {2, 4}, {1, 2, 3, 4, 2, 2, 2, 10})});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 1}));
  // Row 0: mean 2.5, M2 5, var 5/3. Row 1: mean 4, M2 48, var 16.
  EXPECT_FLOAT_EQ(values(out[0])[0], 5.0 / 3.0);
  EXPECT_EQ(values(out[0])[1], 16);
  EXPECT_EQ(values(out[1]), (std::vector<double>{2.5, 4}));
}

//! A layer norm as nvFuser's frontend writes it: upcast, var_mean, normalize,
//! scale and shift, downcast.
void buildLayerNorm(ReferenceExecutorTest& test, ir::Fusion& fusion, TensorView* x,
                    TensorView* weight, TensorView* bias) {
  Val* xf = ops::cast(x, DataType::Float);
  ops::VarMeanResult vm = ops::varMean(xf->as<TensorView>(), {1}, 0.0, true);
  Val* invStd = ops::unaryOp(UnaryOpType::Rsqrt,
                             ops::binaryOp(BinaryOpType::Add, vm.var, fusion.constDouble(1e-5)));
  Val* y = ops::binaryOp(BinaryOpType::Mul, ops::binaryOp(BinaryOpType::Sub, xf, vm.mean), invStd);
  y = ops::binaryOp(
      BinaryOpType::Mul, y,
      ops::broadcast(ops::cast(weight, DataType::Float)->as<TensorView>(), {true, false}));
  y = ops::binaryOp(
      BinaryOpType::Add, y,
      ops::broadcast(ops::cast(bias, DataType::Float)->as<TensorView>(), {true, false}));
  fusion.addOutput(ops::cast(y, DataType::BFloat16));
  fusion.addOutput(vm.mean);
  fusion.addOutput(invStd);
  (void)test;
}

TEST_F(ReferenceExecutorTest, LayerNormMatchesHandWrittenFloat) {
  constexpr int64_t kRows = 8;
  constexpr int64_t kCols = 512;
  TensorView* x = input({kRows, kCols}, DataType::BFloat16);
  TensorView* weight = input({kCols}, DataType::BFloat16);
  TensorView* bias = input({kCols}, DataType::BFloat16);
  buildLayerNorm(*this, fusion_, x, weight, bias);
  Tensor xs = Tensor::empty(DataType::BFloat16, {kRows, kCols});
  Tensor ws = Tensor::empty(DataType::BFloat16, {kCols});
  Tensor bs = Tensor::empty(DataType::BFloat16, {kCols});
  fillNormal(xs, 21, 3.0, 2.0);
  fillNormal(ws, 22);
  fillNormal(bs, 23);
  const std::vector<Tensor> out = run({xs, ws, bs});
  int mismatches = 0;
  for (int64_t r = 0; r < kRows; ++r) {
    float sum = 0;
    for (int64_t i = 0; i < kCols; ++i) sum += static_cast<float>(xs.item({r, i}));
    const float mean = sum / kCols;
    float m2 = 0;
    for (int64_t i = 0; i < kCols; ++i) {
      const float dx = static_cast<float>(xs.item({r, i})) - mean;
      m2 += dx * dx;
    }
    const float invStd = 1.0f / std::sqrt(m2 / kCols + 1e-5f);
    EXPECT_NEAR(out[1].item({r, 0}), mean, 1e-5);
    EXPECT_NEAR(out[2].item({r, 0}), invStd, 1e-5 * invStd);
    for (int64_t i = 0; i < kCols; ++i) {
      const float y =
          (static_cast<float>(xs.item({r, i})) - mean) * invStd * static_cast<float>(ws.item({i})) +
          static_cast<float>(bs.item({i}));
      const double expected = BFloat16::fromFloat(y).toFloat();
      const double got = out[0].item({r, i});
      // The summation orders differ, so an element may land one bf16 ulp away.
      if (got != expected) {
        ++mismatches;
        EXPECT_NEAR(got, expected, std::abs(expected) * std::ldexp(1.0, -7) + 1e-6);
      }
    }
  }
  EXPECT_LT(mismatches, kRows * kCols / 50);
}

TEST_F(ReferenceExecutorTest, TimesA10MElementLayerNorm) {
  constexpr int64_t kRows = 10000;
  constexpr int64_t kCols = 1000;
  TensorView* x = input({kRows, kCols}, DataType::BFloat16);
  TensorView* weight = input({kCols}, DataType::BFloat16);
  TensorView* bias = input({kCols}, DataType::BFloat16);
  buildLayerNorm(*this, fusion_, x, weight, bias);
  Tensor xs = Tensor::empty(DataType::BFloat16, {kRows, kCols});
  Tensor ws = Tensor::empty(DataType::BFloat16, {kCols});
  Tensor bs = Tensor::empty(DataType::BFloat16, {kCols});
  fillNormal(xs, 31);
  fillNormal(ws, 32);
  fillNormal(bs, 33);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Tensor> out = run({xs, ws, bs});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ reference ] bf16 layer norm on %lld elements: %.3f s\n",
              static_cast<long long>(kRows * kCols), seconds);
  EXPECT_EQ(out[0].numel(), kRows * kCols);
}

}  // namespace
}  // namespace fuserlab::runtime::test
