#include "core/codegen/operator_text.h"

#include "core/codegen/expression_emitter.h"
#include "core/ir/error.h"

namespace fuserlab::codegen {

using ir::BinaryOpType;
using ir::DataType;
using ir::UnaryOpType;

namespace {

// C math function names for float (f suffix) and double.
std::string mathCall(const char* name, DataType compute, const std::string& x) {
  if (compute == DataType::Float) return std::string(name) + "f(" + x + ")";
  return "::" + std::string(name) + "(" + x + ")";
}

}  // namespace

// The reference's result of a unary op in `compute` (Float, Double or Int):
// {expression, result dtype}.
std::pair<std::string, DataType> unaryOp(UnaryOpType op, DataType compute, const std::string& x) {
  using U = UnaryOpType;
  const bool floating = compute != DataType::Int;
  // Math on integers goes through double, as the reference's toFloating.
  const DataType mathDtype = floating ? compute : DataType::Double;
  const std::string fx = floating ? x : "((double)" + x + ")";
  auto math = [&](const char* name) {
    return std::make_pair(mathCall(name, mathDtype, fx), mathDtype);
  };
  auto same = [&](std::string text) { return std::make_pair(std::move(text), compute); };
  auto predicate = [&](std::string text) {
    return std::make_pair(std::move(text), DataType::Bool);
  };
  switch (op) {
    case U::Abs: return same("fl::abs(" + x + ")");
    case U::Neg: return same("fl::neg(" + x + ")");
    case U::Exp: return math("exp");
    case U::Exp2: return math("exp2");
    case U::Expm1: return math("expm1");
    case U::Log: return math("log");
    case U::Log1p: return math("log1p");
    case U::Log2: return math("log2");
    case U::Log10: return math("log10");
    case U::Sqrt: return math("sqrt");
    case U::Rsqrt: return {"fl::rsqrt_exact(" + fx + ")", mathDtype};
    case U::Reciprocal:
      return {(mathDtype == DataType::Float ? "(1.0f / " : "(1.0 / ") + fx + ")", mathDtype};
    case U::Sin: return math("sin");
    case U::Cos: return math("cos");
    case U::Tan: return math("tan");
    case U::Asin: return math("asin");
    case U::Acos: return math("acos");
    case U::Atan: return math("atan");
    case U::Sinh: return math("sinh");
    case U::Cosh: return math("cosh");
    case U::Tanh: return math("tanh");
    case U::Asinh: return math("asinh");
    case U::Acosh: return math("acosh");
    case U::Atanh: return math("atanh");
    case U::Sigmoid: return {"fl::sigmoid(" + fx + ")", mathDtype};
    case U::Silu: return {"fl::silu(" + fx + ")", mathDtype};
    case U::Relu: return same("fl::relu(" + x + ")");
    case U::Erf: return math("erf");
    case U::Erfc: return math("erfc");
    case U::Erfinv: return math("erfinv");
    case U::Lgamma: return math("lgamma");
    case U::Floor: return floating ? same(mathCall("floor", compute, x)) : same(x);
    case U::Ceil: return floating ? same(mathCall("ceil", compute, x)) : same(x);
    case U::Round: return floating ? same(mathCall("rint", compute, x)) : same(x);
    case U::Trunc: return floating ? same(mathCall("trunc", compute, x)) : same(x);
    case U::Frac: return floating ? same("fl::frac(" + x + ")") : same("(int64_t)0");
    case U::Sign: return same("fl::sign(" + x + ")");
    case U::Signbit:  // the sign bit itself: true for -0.0 and -nan
      if (compute == DataType::Float) return predicate("(__float_as_int(" + x + ") < 0)");
      if (compute == DataType::Double) {
        return predicate("(__double_as_longlong(" + x + ") < 0)");
      }
      return predicate("(" + x + " < 0)");
    case U::IsNan: return predicate("fl::is_nan(" + x + ")");
    case U::IsInf:
      return predicate(floating ? "(fl::abs(" + x + ") == fl::highest_value<" +
                                      std::string(valueType(compute)) + ">())"
                                : "false");
    case U::IsFinite: return predicate(floating ? "(" + x + " - " + x + " == 0)" : "true");
    case U::IsPosInf:
      return predicate(floating ? "(" + x + " == fl::highest_value<" +
                                      std::string(valueType(compute)) + ">())"
                                : "false");
    case U::IsNegInf:
      return predicate(floating ? "(" + x + " == fl::lowest_value<" +
                                      std::string(valueType(compute)) + ">())"
                                : "false");
    case U::LogicalNot: return predicate("(" + x + " == 0)");
    case U::BitwiseNot: return same("(~" + x + ")");
  }
  FL_ASSERT(false, "unknown unary op");
}

std::pair<std::string, DataType> binaryOp(BinaryOpType op, DataType compute, const std::string& a,
                                          const std::string& b) {
  using B = BinaryOpType;
  auto call = [&](const char* name) {
    return std::make_pair("fl::" + std::string(name) + "(" + a + ", " + b + ")", compute);
  };
  auto infix = [&](const char* symbol) {
    return std::make_pair("(" + a + " " + symbol + " " + b + ")", compute);
  };
  auto predicate = [&](const char* symbol) {
    return std::make_pair("(" + a + " " + symbol + " " + b + ")", DataType::Bool);
  };
  const bool floating = compute != DataType::Int;
  switch (op) {
    case B::Add: return floating ? infix("+") : call("add");
    case B::Sub: return floating ? infix("-") : call("sub");
    case B::Mul: return floating ? infix("*") : call("mul");
    case B::Div:
      // Float quotients through fl::fdiv: zero numerators skip the
      // division's slow path (device_header.cpp).
      if (compute == DataType::Float) return call("fdiv");
      return floating ? infix("/") : call("div");
    case B::Pow: return call("pow");
    case B::Fmod: return call("fmod");
    case B::Remainder: return call("remainder");
    case B::Minimum: return call("minimum");
    case B::Maximum: return call("maximum");
    case B::Atan2:
      if (floating) return {mathCall("atan2", compute, a + ", " + b), compute};
      return {"::atan2((double)" + a + ", (double)" + b + ")", DataType::Double};
    case B::Eq: return predicate("==");
    case B::Ne: return predicate("!=");
    case B::Lt: return predicate("<");
    case B::Le: return predicate("<=");
    case B::Gt: return predicate(">");
    case B::Ge: return predicate(">=");
    case B::LogicalAnd: return {"(" + a + " != 0 && " + b + " != 0)", DataType::Bool};
    case B::LogicalOr: return {"(" + a + " != 0 || " + b + " != 0)", DataType::Bool};
    case B::BitwiseAnd: return infix("&");
    case B::BitwiseOr: return infix("|");
    case B::BitwiseXor: return infix("^");
    case B::LeftShift: return call("left_shift");
    case B::RightShift: return call("right_shift");
    case B::CeilDiv: return call("ceil_div");
    case B::Gcd: return call("gcd");
    case B::Nextafter: return {mathCall("nextafter", compute, a + ", " + b), compute};
  }
  FL_ASSERT(false, "unknown binary op");
}

}  // namespace fuserlab::codegen
