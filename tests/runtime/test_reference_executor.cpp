// The reference executor's driver and pointwise ops: hand-computed values,
// per-op rounding of reduced-precision dtypes, integer and NaN semantics,
// broadcasting, scalar operands and outputs, determinism, and a timing print
// for a 10M-element bf16 chain.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/tensor/float16.h"
#include "core/tensor/random_fill.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;
using ir::UnaryOpType;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_F(ReferenceExecutorTest, AddsFloatTensors) {
  TensorView* a = input({2, 3});
  TensorView* b = input({2, 3});
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, a, b));
  const auto out = runValues({make(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}),
                              make(DataType::Float, {2, 3}, {10, 20, 30, 40, 50, 60})});
  EXPECT_EQ(out, (std::vector<double>{11, 22, 33, 44, 55, 66}));
}

TEST_F(ReferenceExecutorTest, Bf16RoundsAtEveryOp) {
  // 1 + 2^-9 is below half a bfloat16 ulp at 1 (2^-8), so each add gives 1
  // again; adding 3 * 2^-9 in float first and rounding once would give
  // 1 + 2^-7.
  TensorView* a = input({2}, DataType::BFloat16);
  TensorView* b = input({2}, DataType::BFloat16);
  Val* sum = ops::binaryOp(BinaryOpType::Add, a, b);
  sum = ops::binaryOp(BinaryOpType::Add, sum, b);
  sum = ops::binaryOp(BinaryOpType::Add, sum, b);
  fusion_.addOutput(sum);
  const double tiny = std::ldexp(1.0, -9);
  const std::vector<Tensor> out = run(
      {make(DataType::BFloat16, {2}, {1.0, 256.0}), make(DataType::BFloat16, {2}, {tiny, 1.0})});
  ASSERT_EQ(out[0].dtype(), DataType::BFloat16);
  // 256 + 1 is a tie at 256's ulp of 2: to even (256) each time.
  EXPECT_EQ(values(out[0]), (std::vector<double>{1.0, 256.0}));
}

TEST_F(ReferenceExecutorTest, HalfAddRoundsToNearestEven) {
  TensorView* a = input({3}, DataType::Half);
  TensorView* b = input({3}, DataType::Half);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, a, b));
  // 2048 + 1 and 2050 + 1 are ties (ulp 2): 2048 and 2052 are even.
  const auto out = runValues(
      {make(DataType::Half, {3}, {2048, 2050, 65504}), make(DataType::Half, {3}, {1, 1, 65504})});
  EXPECT_EQ(out, (std::vector<double>{2048, 2052, kInf}));
}

TEST_F(ReferenceExecutorTest, IntegerDivisionTruncatesAndRemainderFollowsDivisor) {
  TensorView* a = input({4}, DataType::Int);
  TensorView* b = input({4}, DataType::Int);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Div, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Remainder, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Fmod, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::CeilDiv, a, b));
  const std::vector<Tensor> out =
      run({make(DataType::Int, {4}, {7, -7, 7, -7}), make(DataType::Int, {4}, {2, 2, -2, -2})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, -3, -3, 3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1, -1, -1}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, -1, 1, -1}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{4, -3, -3, 4}));
}

TEST_F(ReferenceExecutorTest, FloatRemainderFollowsDivisor) {
  TensorView* a = input({3});
  TensorView* b = input({3});
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Remainder, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Fmod, a, b));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {3}, {-7.5, 7.5, 6}), make(DataType::Float, {3}, {2, -2, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0.5, -0.5, 0}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-1.5, 1.5, 0}));
}

TEST_F(ReferenceExecutorTest, Int32ArithmeticWrapsAtTheOutput) {
  TensorView* a = input({2}, DataType::Int32);
  TensorView* b = input({2}, DataType::Int32);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, a, b));
  const auto out =
      runValues({make(DataType::Int32, {2}, {2147483647, -5}), make(DataType::Int32, {2}, {1, 3})});
  EXPECT_EQ(out, (std::vector<double>{-2147483648.0, -2}));
}

TEST_F(ReferenceExecutorTest, IntegerDivisionByZeroIsAUserError) {
  TensorView* a = input({3}, DataType::Int);
  TensorView* b = input({3}, DataType::Int);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Div, a, b));
  expectUserError(
      [&] {
        run({make(DataType::Int, {3}, {1, 2, 3}), make(DataType::Int, {3}, {1, 0, 1})});
      },
      {"div", "division by zero", "element 1"});
}

TEST_F(ReferenceExecutorTest, IntegerPowBySquaring) {
  TensorView* a = input({5}, DataType::Int);
  TensorView* b = input({5}, DataType::Int);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Pow, a, b));
  const auto out = runValues(
      {make(DataType::Int, {5}, {3, 2, -1, 1, -2}), make(DataType::Int, {5}, {4, -1, -3, -7, 61})});
  EXPECT_EQ(out, (std::vector<double>{81, 0, -1, 1, -2305843009213693952.0}));
}

TEST_F(ReferenceExecutorTest, MaximumAndMinimumPropagateNaN) {
  TensorView* a = input({3});
  TensorView* b = input({3});
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Maximum, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Minimum, a, b));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {3}, {kNan, 1, 5}), make(DataType::Float, {3}, {1, kNan, 2})});
  const auto maxValues = values(out[0]);
  const auto minValues = values(out[1]);
  EXPECT_TRUE(std::isnan(maxValues[0]) && std::isnan(maxValues[1]));
  EXPECT_TRUE(std::isnan(minValues[0]) && std::isnan(minValues[1]));
  EXPECT_EQ(maxValues[2], 5);
  EXPECT_EQ(minValues[2], 2);
}

TEST_F(ReferenceExecutorTest, ClampPropagatesNaNAndWherePicksExactly) {
  TensorView* x = input({4});
  TensorView* condition = input({4}, DataType::Bool);
  fusion_.addOutput(ops::clamp(x, d(-1.0), d(1.0)));
  fusion_.addOutput(ops::where(condition, x, d(0.1)));
  const std::vector<Tensor> out = run(
      {make(DataType::Float, {4}, {kNan, -3, 0.25, 3}), make(DataType::Bool, {4}, {1, 0, 1, 0})});
  const auto clamped = values(out[0]);
  EXPECT_TRUE(std::isnan(clamped[0]));
  EXPECT_EQ((std::vector<double>(clamped.begin() + 1, clamped.end())),
            (std::vector<double>{-1, 0.25, 1}));
  const auto picked = values(out[1]);
  EXPECT_TRUE(std::isnan(picked[0]));
  EXPECT_EQ(picked[1], static_cast<double>(0.1f));  // the scalar, rounded to float
  EXPECT_EQ(picked[2], 0.25);
  EXPECT_EQ(picked[3], static_cast<double>(0.1f));
}

TEST_F(ReferenceExecutorTest, CastsTruncateSaturateAndRoundToNearestEven) {
  TensorView* x = input({5});
  fusion_.addOutput(ops::cast(x, DataType::Int));
  fusion_.addOutput(ops::cast(x, DataType::BFloat16));
  fusion_.addOutput(ops::cast(x, DataType::Bool));
  const double tie = 1.0 + 3 * std::ldexp(1.0, -8);  // between 1+2^-7 and 1+2^-6
  const std::vector<Tensor> out = run({make(DataType::Float, {5}, {2.7, -2.7, kNan, 1e30, tie})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, -2, 0, 9223372036854775807.0, 1}));
  const auto rounded = values(out[1]);
  EXPECT_EQ(rounded[0], 2.703125);
  EXPECT_EQ(rounded[4], 1.0 + std::ldexp(1.0, -6));  // the tie goes to even
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 1, 1, 1, 1}));
}

TEST_F(ReferenceExecutorTest, IntToBoolIsNonZero) {
  TensorView* x = input({3}, DataType::Int);
  fusion_.addOutput(ops::cast(x, DataType::Bool));
  EXPECT_EQ(runValues({make(DataType::Int, {3}, {0, -4, 1})}), (std::vector<double>{0, 1, 1}));
}

TEST_F(ReferenceExecutorTest, UnaryMathAndPredicates) {
  TensorView* x = input({4});
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Relu, x));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Sigmoid, x));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::IsNan, x));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Round, x));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Rsqrt, x));
  const std::vector<Tensor> out = run({make(DataType::Float, {4}, {-2.5, 0, 2.5, kNan})});
  const auto relu = values(out[0]);
  EXPECT_EQ((std::vector<double>(relu.begin(), relu.begin() + 3)),
            (std::vector<double>{0, 0, 2.5}));
  EXPECT_TRUE(std::isnan(relu[3]));
  EXPECT_FLOAT_EQ(values(out[1])[0], 1.0 / (1.0 + std::exp(2.5)));
  EXPECT_EQ(values(out[1])[1], 0.5);
  EXPECT_EQ(values(out[2]), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(out[2].dtype(), DataType::Bool);
  const auto rounded = values(out[3]);
  EXPECT_EQ(rounded[0], -2);  // half to even
  EXPECT_EQ(rounded[2], 2);
  EXPECT_EQ(values(out[4])[1], kInf);
  EXPECT_FLOAT_EQ(values(out[4])[2], 1.0 / std::sqrt(2.5));
}

// signbit reads the sign bit itself: -0.0 and -inf have it, +nan not.
TEST_F(ReferenceExecutorTest, SignbitOfFloatsHalvesAndIntegers) {
  TensorView* x = input({6});
  TensorView* h = input({3}, DataType::Half);
  TensorView* i = input({3}, DataType::Int32);
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Signbit, x));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Signbit, h));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Signbit, i));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {6}, {-1.5, -0.0, 0.0, 2.0, -kInf, kNan}),
           make(DataType::Half, {3}, {-0.0, 0.5, -65504}), make(DataType::Int32, {3}, {-3, 0, 5})});
  EXPECT_EQ(out[0].dtype(), DataType::Bool);
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 0, 0}));
}

TEST_F(ReferenceExecutorTest, IntegerMathPromotesToFloat) {
  TensorView* x = input({2}, DataType::Int);
  Val* y = ops::unaryOp(UnaryOpType::Sqrt, x);
  ASSERT_EQ(y->dtype(), DataType::Float);
  fusion_.addOutput(y);
  EXPECT_EQ(runValues({make(DataType::Int, {2}, {4, 2})}),
            (std::vector<double>{2, static_cast<double>(std::sqrt(2.0f))}));
}

TEST_F(ReferenceExecutorTest, ComparisonsLogicalAndBitwiseOps) {
  TensorView* a = input({4}, DataType::Int);
  TensorView* b = input({4}, DataType::Int);
  TensorView* p = input({4}, DataType::Bool);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Lt, a, b));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::BitwiseXor, a, b));
  fusion_.addOutput(
      ops::binaryOp(BinaryOpType::LogicalAnd, p, ops::binaryOp(BinaryOpType::Ne, a, b)));
  fusion_.addOutput(ops::unaryOp(UnaryOpType::BitwiseNot, p));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::RightShift, a, c(1)));
  const std::vector<Tensor> out =
      run({make(DataType::Int, {4}, {1, 5, -3, 6}), make(DataType::Int, {4}, {2, 5, -4, 3}),
           make(DataType::Bool, {4}, {1, 1, 0, 1})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, 0, 1, 5}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{0, 0, 1, 0}));  // logical on Bool
  EXPECT_EQ(values(out[4]), (std::vector<double>{0, 2, -2, 3}));
}

TEST_F(ReferenceExecutorTest, LerpAndAddcmul) {
  TensorView* a = input({2});
  TensorView* b = input({2});
  TensorView* w = input({2});
  fusion_.addOutput(ops::lerp(a, b, w));
  fusion_.addOutput(ops::addcmul(a, b, w, d(2.0)));
  const std::vector<Tensor> out =
      run({make(DataType::Float, {2}, {1, 10}), make(DataType::Float, {2}, {3, 20}),
           make(DataType::Float, {2}, {0.25, 0.75})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1.5, 17.5}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{2.5, 40}));
}

TEST_F(ReferenceExecutorTest, BroadcastOperandReadsStrideZero) {
  TensorView* a = input({2, 3});
  TensorView* row = input({3});
  TensorView* column = input({2});
  Val* sum = ops::binaryOp(BinaryOpType::Add, a, ops::broadcast(row, {true, false}));
  sum = ops::binaryOp(BinaryOpType::Mul, sum, ops::broadcast(column, {false, true}));
  fusion_.addOutput(sum);
  const auto out =
      runValues({make(DataType::Float, {2, 3}, {0, 1, 2, 3, 4, 5}),
                 make(DataType::Float, {3}, {10, 20, 30}), make(DataType::Float, {2}, {1, -1})});
  EXPECT_EQ(out, (std::vector<double>{10, 21, 32, -13, -24, -35}));
}

TEST_F(ReferenceExecutorTest, ExpandedInputWithZeroStrides) {
  // An input whose first axis is an expanded broadcast: the tensor has size
  // 3 and stride 0 there.
  ir::IterDomain* expanded = fusion_.newIterDomain(c(1), IterType::Broadcast, c(3));
  ir::IterDomain* inner = fusion_.newIterDomain(c(2), IterType::Iteration);
  TensorView* x = fusion_.newTensorView({expanded, inner}, DataType::Float);
  fusion_.addInput(x);
  TensorView* y = input({3, 2});
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Sub, y, x));
  const Tensor row = make(DataType::Float, {2}, {1, 2});
  const Tensor xs = row.asStrided({3, 2}, {0, 1}, 0);
  const auto out = runValues({xs, make(DataType::Float, {3, 2}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(out, (std::vector<double>{0, 0, 2, 2, 4, 4}));
}

TEST_F(ReferenceExecutorTest, SymbolicScalarInputAndScalarOutput) {
  TensorView* x = input({-1}, DataType::BFloat16);
  Scalar* alpha = scalarInput(DataType::Double);
  Val* scaled = ops::binaryOp(BinaryOpType::Mul, x, alpha);
  ASSERT_EQ(scaled->dtype(), DataType::BFloat16);
  fusion_.addOutput(scaled);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, alpha, d(1.0)));
  const std::vector<Tensor> out =
      run({make(DataType::BFloat16, {3}, {1, 2, 3}), ir::ScalarValue(1.5)});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1.5, 3, 4.5}));
  ASSERT_EQ(out[1].dim(), 0);
  EXPECT_EQ(out[1].dtype(), DataType::Double);
  EXPECT_EQ(out[1].item({}), 2.5);
}

TEST_F(ReferenceExecutorTest, OutputsAreContiguousAndOwnTheirStorage) {
  TensorView* x = input({2, 3});
  fusion_.addOutput(x);
  fusion_.addOutput(ops::permute(x, {1, 0}));
  const Tensor in = make(DataType::Float, {2, 3}, {0, 1, 2, 3, 4, 5});
  const std::vector<Tensor> out = run({in});
  EXPECT_FALSE(out[0].sharesStorageWith(in));
  EXPECT_TRUE(out[1].isContiguous());
  EXPECT_EQ(values(out[1]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST_F(ReferenceExecutorTest, WrongInputDtypeIsAUserError) {
  TensorView* x = input({2});
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Neg, x));
  ir::ExpressionEvaluator evaluator;
  expectUserError(
      [&] {
        evaluateReference(fusion_, {make(DataType::Half, {2}, {1, 2})}, evaluator);
      },
      {"input 0", "Float", "Half"});
}

TEST_F(ReferenceExecutorTest, SizesMustMatchBoundExtents) {
  TensorView* x = input({-1});
  fusion_.addOutput(ops::unaryOp(UnaryOpType::Neg, x));
  ir::ExpressionEvaluator evaluator;
  evaluator.bind(x->logical()[0]->extent(), int64_t{4});
  expectUserError(
      [&] {
        evaluateReference(fusion_, {make(DataType::Float, {3}, {1, 2, 3})}, evaluator);
      },
      {"T0", "size 3", "evaluates to 4"});
}

TEST_F(ReferenceExecutorTest, ResultsDoNotDependOnInputStrides) {
  TensorView* x = input({64, 48}, DataType::BFloat16);
  Val* y = ops::unaryOp(UnaryOpType::Tanh, ops::cast(x, DataType::Float));
  fusion_.addOutput(ops::cast(ops::binaryOp(BinaryOpType::Mul, y, x), DataType::BFloat16));
  Tensor contiguous = Tensor::empty(DataType::BFloat16, {64, 48});
  fillNormal(contiguous, 7);
  // The same values, stored transposed.
  Tensor transposedStorage = contiguous.permute({1, 0}).contiguous();
  const Tensor strided = transposedStorage.permute({1, 0});
  const Tensor first = run({contiguous}).at(0);
  const Tensor second = run({strided}).at(0);
  const Tensor third = run({contiguous}).at(0);
  ASSERT_EQ(first.numel(), 64 * 48);
  EXPECT_EQ(std::memcmp(first.data(), second.data(), 64 * 48 * 2), 0);
  EXPECT_EQ(std::memcmp(first.data(), third.data(), 64 * 48 * 2), 0);
}

TEST_F(ReferenceExecutorTest, TimesA10MElementBf16Chain) {
  constexpr int64_t kRows = 10000;
  constexpr int64_t kCols = 1000;
  TensorView* x = input({kRows, kCols}, DataType::BFloat16);
  TensorView* bias = input({kCols}, DataType::BFloat16);
  Val* y = ops::binaryOp(BinaryOpType::Mul, x, d(2.0));
  y = ops::binaryOp(BinaryOpType::Add, y, ops::broadcast(bias, {true, false}));
  y = ops::unaryOp(UnaryOpType::Relu, y);
  y = ops::binaryOp(BinaryOpType::Sub, y, x);
  y = ops::unaryOp(UnaryOpType::Exp, y);
  fusion_.addOutput(y);
  Tensor xs = Tensor::empty(DataType::BFloat16, {kRows, kCols});
  Tensor bs = Tensor::empty(DataType::BFloat16, {kCols});
  fillNormal(xs, 1);
  fillNormal(bs, 2);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Tensor> out = run({xs, bs});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ reference ] bf16 chain of 5 ops on %lld elements: %.3f s\n",
              static_cast<long long>(kRows * kCols), seconds);
  ASSERT_EQ(out[0].numel(), kRows * kCols);
  // Spot-check one element against the op-by-op float computation.
  auto bf16 = [](double v) { return static_cast<double>(BFloat16::fromDouble(v).toFloat()); };
  const double xv = xs.item({123, 456});
  double expected = bf16(xv * 2.0);
  expected = bf16(expected + bs.item({456}));
  expected = bf16(std::max(expected, 0.0));
  expected = bf16(expected - xv);
  expected = bf16(std::exp(static_cast<float>(expected)));
  EXPECT_EQ(out[0].item({123, 456}), expected);
}

}  // namespace
}  // namespace fuserlab::runtime::test
