#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"

namespace fuserlab::ir {
namespace {

class EvaluatorTest : public ::testing::Test {
 protected:
  Scalar* symbolic(DataType dtype = DataType::Int) { return fusion_.newScalar(dtype); }
  // Scalar Exprs built directly (no folding), with the result dtype given.
  Scalar* binary(BinaryOpType op, Scalar* a, Scalar* b, DataType dtype = DataType::Int) {
    ExprAttrs attrs;
    attrs.binaryOp = op;
    return define(ExprType::Binary, {a, b}, dtype, attrs);
  }
  Scalar* unary(UnaryOpType op, Scalar* x, DataType dtype) {
    ExprAttrs attrs;
    attrs.unaryOp = op;
    return define(ExprType::Unary, {x}, dtype, attrs);
  }
  Scalar* ternary(TernaryOpType op, std::vector<Val*> inputs, DataType dtype) {
    ExprAttrs attrs;
    attrs.ternaryOp = op;
    return define(ExprType::Ternary, std::move(inputs), dtype, attrs);
  }
  Scalar* cast(Scalar* x, DataType dtype) { return define(ExprType::Cast, {x}, dtype, {}); }
  Scalar* define(ExprType type, std::vector<Val*> inputs, DataType dtype, ExprAttrs attrs) {
    Scalar* out = fusion_.newScalar(dtype);
    fusion_.newExpr(type, std::move(inputs), {out}, std::move(attrs));
    return out;
  }
  // Evaluates `op` on two integers bound at run time.
  std::optional<ScalarValue> intOp(BinaryOpType op, int64_t a, int64_t b) {
    Scalar* x = symbolic();
    Scalar* y = symbolic();
    ee_.bind(x, a);
    ee_.bind(y, b);
    return ee_.evaluate(binary(op, x, y, isPredicate(op) ? DataType::Bool : DataType::Int));
  }
  std::optional<ScalarValue> doubleOp(BinaryOpType op, double a, double b) {
    Scalar* x = symbolic(DataType::Double);
    Scalar* y = symbolic(DataType::Double);
    ee_.bind(x, a);
    ee_.bind(y, b);
    return ee_.evaluate(binary(op, x, y, isPredicate(op) ? DataType::Bool : DataType::Double));
  }
  std::string userError(const std::function<void()>& f) {
    try {
      f();
    } catch (const UserError& e) {
      return e.message();
    }
    return "<no error>";
  }

  Fusion fusion_;
  ExpressionEvaluator ee_;
};

using SV = ScalarValue;

TEST_F(EvaluatorTest, ConstantsHaveTheirDtypesAlternative) {
  EXPECT_EQ(ee_.evaluate(fusion_.constInt(6)), SV(int64_t{6}));
  EXPECT_EQ(ee_.evaluate(fusion_.constDouble(0.5)), SV(0.5));
  EXPECT_EQ(ee_.evaluate(fusion_.constBool(true)), SV(true));
  EXPECT_EQ(ee_.evaluate(fusion_.newConstant(int64_t{2}, DataType::Float)), SV(2.0));
  EXPECT_EQ(ee_.evaluate(fusion_.newConstant(2.9, DataType::Int)), SV(int64_t{2}));
  EXPECT_FALSE(ee_.isBound(fusion_.constInt(6)));
}

TEST_F(EvaluatorTest, UnboundScalarIsUnknown) {
  Scalar* i0 = symbolic();
  EXPECT_EQ(ee_.evaluate(i0), std::nullopt);
  EXPECT_FALSE(ee_.isBound(i0));
  EXPECT_EQ(userError([&] { ee_.evaluateInt(i0, "the batch size"); }),
            "cannot evaluate the batch size: i0 is not bound");
}

TEST_F(EvaluatorTest, ErrorNamesTheUnboundScalarsBehindADerivedOne) {
  Scalar* i0 = symbolic();
  Scalar* i1 = symbolic();
  Scalar* i2 = symbolic();
  Scalar* sum = binary(BinaryOpType::Add, binary(BinaryOpType::Mul, i0, i1), i2);
  ee_.bind(i1, 3);
  EXPECT_EQ(ee_.evaluate(sum), std::nullopt);
  EXPECT_EQ(userError([&] { ee_.evaluateInt(sum, "size"); }),
            "cannot evaluate size: i4 depends on i0 and i2, which are not "
            "bound");
  ee_.bind(i0, 4);
  ee_.bind(i2, 5);
  EXPECT_EQ(ee_.evaluateInt(sum, "size"), 17);
}

TEST_F(EvaluatorTest, EvaluatesDerivedExtents) {
  Scalar* i0 = symbolic();
  Scalar* four = fusion_.constInt(4);
  Scalar* outer = fusion_.scalarBinary(BinaryOpType::CeilDiv, i0, four);
  Scalar* merged = fusion_.scalarBinary(BinaryOpType::Mul, outer, four);
  ee_.bind(i0, 10);
  EXPECT_TRUE(ee_.isBound(i0));
  EXPECT_FALSE(ee_.isBound(merged));
  EXPECT_EQ(ee_.evaluateInt(outer, "outer"), 3);
  EXPECT_EQ(ee_.evaluateInt(merged, "merged"), 12);
}

// Guards memoization: without it this DAG takes 2^62 steps.
TEST_F(EvaluatorTest, SharedSubexpressionsAreEvaluatedOnce) {
  Scalar* x = symbolic();
  Scalar* top = x;
  for (int i = 0; i < 62; ++i) top = binary(BinaryOpType::Add, top, top);
  ee_.bind(x, 1);
  EXPECT_EQ(ee_.evaluateInt(top, "top"), int64_t{1} << 62);
}

TEST_F(EvaluatorTest, IntegerDivisionTruncatesLikeC) {
  EXPECT_EQ(intOp(BinaryOpType::Div, 7, 2), SV(int64_t{3}));
  EXPECT_EQ(intOp(BinaryOpType::Div, -7, 2), SV(int64_t{-3}));
  EXPECT_EQ(intOp(BinaryOpType::Div, 7, -2), SV(int64_t{-3}));
  EXPECT_EQ(intOp(BinaryOpType::Fmod, -7, 2), SV(int64_t{-1}));
  EXPECT_EQ(intOp(BinaryOpType::Fmod, 7, -2), SV(int64_t{1}));
}

TEST_F(EvaluatorTest, IntegerRemainderFollowsPython) {
  EXPECT_EQ(intOp(BinaryOpType::Remainder, 7, 3), SV(int64_t{1}));
  EXPECT_EQ(intOp(BinaryOpType::Remainder, -7, 3), SV(int64_t{2}));
  EXPECT_EQ(intOp(BinaryOpType::Remainder, 7, -3), SV(int64_t{-2}));
  EXPECT_EQ(intOp(BinaryOpType::Remainder, -7, -3), SV(int64_t{-1}));
  EXPECT_EQ(intOp(BinaryOpType::Remainder, -6, 3), SV(int64_t{0}));
  EXPECT_EQ(doubleOp(BinaryOpType::Remainder, -7.5, 2), SV(0.5));
  EXPECT_EQ(doubleOp(BinaryOpType::Fmod, -7.5, 2), SV(-1.5));
}

TEST_F(EvaluatorTest, CeilDivRoundsUpWithoutFloatingPoint) {
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, 7, 2), SV(int64_t{4}));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, 8, 2), SV(int64_t{4}));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, 0, 4), SV(int64_t{0}));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, -7, 2), SV(int64_t{-3}));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, -8, 2), SV(int64_t{-4}));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, -7, -2), SV(int64_t{4}));
  // Exact beyond 2^53, where a double would round.
  const int64_t big = (int64_t{1} << 60) + 1;
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, big, 1), SV(big));
  EXPECT_EQ(intOp(BinaryOpType::CeilDiv, big, 2), SV((int64_t{1} << 59) + 1));
}

TEST_F(EvaluatorTest, IntegerDivisionByZeroIsAUserError) {
  Scalar* n = symbolic();
  Scalar* d = symbolic();
  Scalar* q = binary(BinaryOpType::Div, n, d);
  ee_.bind(n, 6);
  ee_.bind(d, 0);
  EXPECT_EQ(userError([&] { ee_.evaluate(q); }),
            "integer division by zero evaluating i2 = div(i0, i1) (i1 is 0)");
  for (BinaryOpType op : {BinaryOpType::CeilDiv, BinaryOpType::Remainder, BinaryOpType::Fmod}) {
    EXPECT_THROW(ee_.evaluate(binary(op, n, d)), UserError) << toString(op);
  }
  // Floating point is IEEE: no error.
  EXPECT_EQ(doubleOp(BinaryOpType::Div, 1.0, 0.0), SV(std::numeric_limits<double>::infinity()));
}

TEST_F(EvaluatorTest, IntegerOverflowIsAUserError) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_THROW(intOp(BinaryOpType::Add, max, 1), UserError);
  EXPECT_THROW(intOp(BinaryOpType::Mul, max / 2 + 1, 2), UserError);
  EXPECT_THROW(intOp(BinaryOpType::Div, std::numeric_limits<int64_t>::min(), -1), UserError);
  EXPECT_THROW(intOp(BinaryOpType::Pow, 2, 63), UserError);
  EXPECT_EQ(intOp(BinaryOpType::Pow, 2, 62), SV(int64_t{1} << 62));
  EXPECT_EQ(intOp(BinaryOpType::Pow, -3, 3), SV(int64_t{-27}));
  EXPECT_EQ(intOp(BinaryOpType::Pow, 5, 0), SV(int64_t{1}));
  EXPECT_THROW(intOp(BinaryOpType::Pow, 2, -1), UserError);
}

TEST_F(EvaluatorTest, OtherBinaryOps) {
  EXPECT_EQ(intOp(BinaryOpType::Sub, 3, 5), SV(int64_t{-2}));
  EXPECT_EQ(intOp(BinaryOpType::Minimum, 3, 5), SV(int64_t{3}));
  EXPECT_EQ(intOp(BinaryOpType::Maximum, 3, 5), SV(int64_t{5}));
  EXPECT_EQ(intOp(BinaryOpType::Lt, 3, 5), SV(true));
  EXPECT_EQ(intOp(BinaryOpType::Ge, 3, 5), SV(false));
  EXPECT_EQ(intOp(BinaryOpType::Eq, 5, 5), SV(true));
  EXPECT_EQ(intOp(BinaryOpType::LogicalAnd, 2, 0), SV(false));
  EXPECT_EQ(intOp(BinaryOpType::BitwiseAnd, 12, 10), SV(int64_t{8}));
  EXPECT_EQ(intOp(BinaryOpType::BitwiseXor, 12, 10), SV(int64_t{6}));
  EXPECT_EQ(intOp(BinaryOpType::LeftShift, 1, 40), SV(int64_t{1} << 40));
  EXPECT_EQ(intOp(BinaryOpType::RightShift, -8, 1), SV(int64_t{-4}));
  EXPECT_THROW(intOp(BinaryOpType::LeftShift, 1, 64), UserError);
  EXPECT_EQ(doubleOp(BinaryOpType::Pow, 2.0, 0.5), SV(std::sqrt(2.0)));
  EXPECT_EQ(doubleOp(BinaryOpType::Lt, 0.5, 0.25), SV(false));
  EXPECT_EQ(doubleOp(BinaryOpType::Atan2, 1.0, 1.0), SV(std::atan2(1.0, 1.0)));
  auto nanMax = doubleOp(BinaryOpType::Maximum, std::nan(""), 1.0);
  ASSERT_TRUE(nanMax.has_value());
  EXPECT_TRUE(std::isnan(std::get<double>(*nanMax)));
  EXPECT_THROW(doubleOp(BinaryOpType::BitwiseOr, 1.0, 2.0), UserError);
}

TEST_F(EvaluatorTest, DoublesStayDoubleEvenForFloatScalars) {
  Scalar* a = symbolic(DataType::Float);
  Scalar* b = symbolic(DataType::Float);
  ee_.bind(a, 0.1);
  ee_.bind(b, 0.2);
  Scalar* sum = binary(BinaryOpType::Add, a, b, DataType::Float);
  EXPECT_EQ(ee_.evaluateDouble(sum, "sum"), 0.1 + 0.2);
}

TEST_F(EvaluatorTest, IntegerOperandsWithAFloatResultDivideTrulyInDouble) {
  Scalar* a = symbolic();
  Scalar* b = symbolic();
  ee_.bind(a, 7);
  ee_.bind(b, 2);
  EXPECT_EQ(ee_.evaluate(binary(BinaryOpType::Div, a, b, DataType::Double)), SV(3.5));
  EXPECT_EQ(ee_.evaluate(binary(BinaryOpType::Div, a, b, DataType::Int)), SV(int64_t{3}));
}

TEST_F(EvaluatorTest, UnaryOps) {
  Scalar* i = symbolic();
  Scalar* d = symbolic(DataType::Double);
  ee_.bind(i, -4);
  ee_.bind(d, 2.5);
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Neg, i, DataType::Int)), SV(int64_t{4}));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Abs, i, DataType::Int)), SV(int64_t{4}));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Sqrt, d, DataType::Double)), SV(std::sqrt(2.5)));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Exp, i, DataType::Double)), SV(std::exp(-4.0)));
  // Round is half to even, as torch.round.
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Round, d, DataType::Double)), SV(2.0));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Floor, d, DataType::Double)), SV(2.0));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::BitwiseNot, i, DataType::Int)), SV(int64_t{3}));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::LogicalNot, i, DataType::Bool)), SV(false));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::IsFinite, d, DataType::Bool)), SV(true));
  EXPECT_EQ(ee_.evaluate(unary(UnaryOpType::Relu, i, DataType::Int)), SV(int64_t{0}));
  double x = ee_.evaluateDouble(
      unary(UnaryOpType::Erfinv, unary(UnaryOpType::Erf, d, DataType::Double), DataType::Double),
      "erfinv");
  EXPECT_NEAR(x, 2.5, 1e-9);
  EXPECT_THROW(ee_.evaluate(unary(UnaryOpType::BitwiseNot, d, DataType::Double)), UserError);
}

TEST_F(EvaluatorTest, WhereEvaluatesOnlyTheSelectedBranch) {
  Scalar* c = symbolic(DataType::Bool);
  Scalar* a = symbolic();
  Scalar* b = symbolic();
  Scalar* w = ternary(TernaryOpType::Where, {c, a, b}, DataType::Int);
  ee_.bind(a, 11);
  EXPECT_EQ(ee_.evaluate(w), std::nullopt);  // condition unknown
  ee_.bind(c, true);
  EXPECT_EQ(ee_.evaluate(w), SV(int64_t{11}));  // b is still unbound
  Scalar* w2 = ternary(TernaryOpType::Where, {fusion_.constBool(false), a, b}, DataType::Int);
  EXPECT_EQ(ee_.evaluate(w2), std::nullopt);
  ee_.bind(b, 22);
  EXPECT_EQ(ee_.evaluate(w2), SV(int64_t{22}));
}

TEST_F(EvaluatorTest, ClampLerpAndAddcmul) {
  Scalar* x = symbolic();
  ee_.bind(x, 17);
  EXPECT_EQ(ee_.evaluate(ternary(TernaryOpType::Clamp,
                                 {x, fusion_.constInt(0), fusion_.constInt(10)}, DataType::Int)),
            SV(int64_t{10}));
  EXPECT_EQ(ee_.evaluate(ternary(TernaryOpType::Clamp,
                                 {x, fusion_.constDouble(0.5), fusion_.constDouble(20.5)},
                                 DataType::Double)),
            SV(17.0));
  EXPECT_EQ(ee_.evaluate(
                ternary(TernaryOpType::Lerp,
                        {fusion_.constDouble(1), fusion_.constDouble(3), fusion_.constDouble(0.25)},
                        DataType::Double)),
            SV(1.5));
  EXPECT_EQ(ee_.evaluate(ternary(TernaryOpType::Addcmul,
                                 {x, fusion_.constInt(2), fusion_.constInt(3), fusion_.constInt(4)},
                                 DataType::Int)),
            SV(int64_t{17 + 4 * 2 * 3}));
}

TEST_F(EvaluatorTest, CastConvertsToTheTargetDtype) {
  Scalar* d = symbolic(DataType::Double);
  ee_.bind(d, -2.7);
  EXPECT_EQ(ee_.evaluate(cast(d, DataType::Int)), SV(int64_t{-2}));
  EXPECT_EQ(ee_.evaluate(cast(d, DataType::Bool)), SV(true));
  EXPECT_EQ(ee_.evaluate(cast(d, DataType::BFloat16)), SV(-2.7));
  Scalar* big = symbolic();
  ee_.bind(big, (int64_t{1} << 32) + 5);
  EXPECT_EQ(ee_.evaluate(cast(big, DataType::Int32)), SV(int64_t{5}));
  Scalar* nan = symbolic(DataType::Double);
  ee_.bind(nan, std::nan(""));
  EXPECT_THROW(ee_.evaluate(cast(nan, DataType::Int)), UserError);
}

TEST_F(EvaluatorTest, RebindingToAnotherValueNamesBothValues) {
  Scalar* i0 = symbolic();
  ee_.bind(i0, 128, "input T0 dimension 1");
  ee_.bind(i0, 128, "input T2 dimension 0");  // the same value is fine
  EXPECT_EQ(userError([&] { ee_.bind(i0, 64, "input T1 dimension 0"); }),
            "scalar i0 is bound to 128 by input T0 dimension 1 and to 64 by "
            "input T1 dimension 0");
  EXPECT_EQ(ee_.evaluateInt(i0, "i0"), 128);
  Scalar* i1 = symbolic();
  ee_.bind(i1, 3);
  EXPECT_EQ(userError([&] { ee_.bind(i1, 4); }), "scalar i1 is bound to 3 and to 4");
}

TEST_F(EvaluatorTest, ConstantCanOnlyBeBoundToItsValue) {
  Scalar* six = fusion_.constInt(6);
  ee_.bind(six, 6);
  EXPECT_EQ(userError([&] { ee_.bind(six, 7, "input T0 dimension 0"); }),
            "the constant 6 cannot be bound to 7 by input T0 dimension 0");
}

TEST_F(EvaluatorTest, ComputedScalarCanOnlyBeBoundToItsValue) {
  Scalar* i0 = symbolic();
  Scalar* twice = binary(BinaryOpType::Mul, i0, fusion_.constInt(2));
  ee_.bind(twice, 8);  // not computable yet: accepted
  EXPECT_EQ(ee_.evaluateInt(twice, "twice"), 8);
  Scalar* thrice = binary(BinaryOpType::Mul, i0, fusion_.constInt(3));
  ee_.bind(i0, 4);
  ee_.bind(thrice, 12);
  EXPECT_EQ(userError([&] { ee_.bind(thrice, 13); }), "scalar i2 is bound to 12 and to 13");
  Scalar* plus = binary(BinaryOpType::Add, i0, fusion_.constInt(1));
  EXPECT_EQ(userError([&] { ee_.bind(plus, 6); }),
            "scalar i3 = add(i0, 1) evaluates to 5 and cannot be bound to 6");
}

TEST_F(EvaluatorTest, BoundValuesAreConvertedToTheScalarsDtype) {
  Scalar* i = symbolic();
  Scalar* d = symbolic(DataType::Double);
  Scalar* b = symbolic(DataType::Bool);
  Scalar* i32 = symbolic(DataType::Int32);
  ee_.bind(i, 3.0);
  ee_.bind(d, 2);
  ee_.bind(b, int64_t{1});
  EXPECT_EQ(ee_.evaluate(i), SV(int64_t{3}));
  EXPECT_EQ(ee_.evaluate(d), SV(2.0));
  EXPECT_EQ(ee_.evaluate(b), SV(true));
  EXPECT_EQ(userError([&] { ee_.bind(symbolic(), 2.5); }),
            "scalar i4 of dtype Int cannot be bound to 2.5");
  EXPECT_THROW(ee_.bind(i32, int64_t{1} << 40), UserError);
  EXPECT_THROW(ee_.bind(symbolic(DataType::Bool), int64_t{2}), UserError);
}

TEST_F(EvaluatorTest, TypedAccessorsCheckTheKindOfValue) {
  Scalar* d = symbolic(DataType::Double);
  Scalar* i = symbolic();
  ee_.bind(d, 2.5);
  ee_.bind(i, 4);
  EXPECT_EQ(ee_.evaluateDouble(i, "i"), 4.0);
  EXPECT_EQ(userError([&] { ee_.evaluateInt(d, "the factor"); }),
            "the factor (d0) is 2.5, expected an integer");
  EXPECT_EQ(userError([&] { ee_.evaluateBool(i, "the flag"); }),
            "the flag (i1) is 4, expected a Bool");
  EXPECT_TRUE(ee_.evaluateBool(fusion_.constBool(true), "flag"));
  EXPECT_EQ(ee_.evaluateInt(fusion_.constDouble(3.0), "three"), 3);
}

TEST_F(EvaluatorTest, ExtentOfExpandedBroadcastIsTheExpandedExtent) {
  Scalar* i0 = symbolic();
  IterDomain* expanded = fusion_.newIterDomain(fusion_.constInt(1), IterType::Broadcast, i0);
  IterDomain* plain = fusion_.newIterDomain(i0, IterType::Iteration);
  EXPECT_EQ(userError([&] { ee_.evaluateExtent(plain); }),
            "cannot evaluate the extent of iS1{i0}: i0 is not bound");
  ee_.bind(i0, 9);
  EXPECT_EQ(ee_.evaluateExtent(expanded), 9);
  EXPECT_EQ(ee_.evaluateExtent(plain), 9);
  Scalar* negative = symbolic();
  ee_.bind(negative, -1);
  EXPECT_EQ(
      userError([&] { ee_.evaluateExtent(fusion_.newIterDomain(negative, IterType::Iteration)); }),
      "the extent of iS2{i1} is -1, expected a size >= 0");
}

// Issue 43 defect 1: evaluate recursed once per scalar op (a 100,000-op
// chain overflowed the stack); unknown results are remembered only until
// the next binding.
TEST_F(EvaluatorTest, AChainOf100000ScalarOpsEvaluatesWithoutRecursing) {
  Scalar* x = symbolic();
  Scalar* one = fusion_.newConstant(int64_t{1}, DataType::Int);
  Scalar* chain = x;
  for (int i = 0; i < 100000; ++i) chain = binary(BinaryOpType::Add, chain, one);
  Scalar* half = cast(chain, DataType::Double);
  EXPECT_EQ(ee_.evaluate(chain), std::nullopt);
  ee_.bind(x, int64_t{5});
  EXPECT_EQ(ee_.evaluate(chain), ScalarValue(int64_t{100005}));
  EXPECT_EQ(ee_.evaluate(half), ScalarValue(100005.0));
}

TEST_F(EvaluatorTest, AnUnboundScalarUnderA100000OpChainIsNamed) {
  Scalar* x = symbolic();
  Scalar* chain = x;
  // Each op reads the previous one twice: one walk, not 2^100000.
  for (int i = 0; i < 100000; ++i) chain = binary(BinaryOpType::Add, chain, chain);
  try {
    ee_.evaluateInt(chain, "the chain");
    ADD_FAILURE() << "an unbound chain evaluated";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(x->name()), std::string::npos) << error.what();
  }
}

TEST_F(EvaluatorTest, AClampStopsAtItsFirstUnknownOperand) {
  // The bound after an unknown one is not evaluated: 1 / 0 would be an error.
  Scalar* unknown = symbolic();
  Scalar* zero = symbolic();
  ee_.bind(zero, int64_t{0});
  Scalar* bad = binary(BinaryOpType::Div, fusion_.newConstant(int64_t{1}, DataType::Int), zero);
  Scalar* clamped =
      ternary(TernaryOpType::Clamp, {unknown, fusion_.newConstant(int64_t{0}, DataType::Int), bad},
              DataType::Int);
  EXPECT_EQ(ee_.evaluate(clamped), std::nullopt);
}

}  // namespace
}  // namespace fuserlab::ir
