#include "core/ir/evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>
#include "core/ir/integer_math.h"

#include "core/ir/error.h"
#include "core/ir/expr.h"
#include "core/ir/fusion.h"
#include "core/ir/integer_math.h"
#include "core/ir/iter_domain.h"

namespace fuserlab::ir {
namespace {

bool isIntLike(const ScalarValue& v) {
  return std::holds_alternative<int64_t>(v) || std::holds_alternative<bool>(v);
}

int64_t asInt(const ScalarValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  return std::get<int64_t>(v);
}

double asDouble(const ScalarValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return static_cast<double>(asInt(v));
}

bool asBool(const ScalarValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d != 0.0;
  return asInt(v) != 0;
}

std::string valueString(const ScalarValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return formatDouble(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return "<no value>";
}

bool sameValue(const ScalarValue& a, const ScalarValue& b) {
  const auto* da = std::get_if<double>(&a);
  const auto* db = std::get_if<double>(&b);
  if (da && db && std::isnan(*da) && std::isnan(*db)) return true;
  return a == b;
}

// "i3 = div(i1, i2)" for error messages.
std::string describe(const Expr& expr) {
  std::string out = expr.output(0)->name() + " = " + expr.opName() + "(";
  for (size_t i = 0; i < expr.inputs().size(); ++i) {
    if (i) out += ", ";
    out += expr.input(i)->name();
  }
  return out + ")";
}

// Whether a double converts to int64_t without overflow (NaN does not).
bool fitsInt64(double d) { return d >= -9223372036854775808.0 && d < 9223372036854775808.0; }

// The value with the alternative of `dtype`, as a C cast would convert it
// (doubles truncate toward zero). Half, BFloat16 and Float stay double.
// `context()` names what is converted; it is called only for an error.
template <typename Context>
ScalarValue castTo(const ScalarValue& v, DataType dtype, const Context& context) {
  switch (dtype) {
    case DataType::Null: return v;
    case DataType::Bool: return asBool(v);
    case DataType::Int:
    case DataType::Int32: {
      int64_t i = 0;
      if (const auto* d = std::get_if<double>(&v)) {
        FL_CHECK(fitsInt64(*d), "cannot convert ", formatDouble(*d), " to ", toString(dtype),
                 " in ", context());
        i = static_cast<int64_t>(*d);
      } else {
        i = asInt(v);
      }
      if (dtype == DataType::Int32) i = static_cast<int32_t>(i);
      return i;
    }
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float:
    case DataType::Double: return asDouble(v);
  }
  return v;
}

// A bound value must be representable exactly: 2.5 is no value of an Int.
ScalarValue convertForBinding(const ScalarValue& v, const Scalar& scalar) {
  const DataType dtype = scalar.dtype();
  auto fail = [&]() {
    FL_USER_ERROR("scalar ", scalar.name(), " of dtype ", toString(dtype), " cannot be bound to ",
                  valueString(v));
  };
  if (isIntegral(dtype)) {
    int64_t i = 0;
    if (const auto* d = std::get_if<double>(&v)) {
      if (!fitsInt64(*d) || std::trunc(*d) != *d) fail();
      i = static_cast<int64_t>(*d);
    } else {
      i = asInt(v);
    }
    if (dtype == DataType::Int32 && i != static_cast<int32_t>(i)) fail();
    return i;
  }
  if (dtype == DataType::Bool && !std::holds_alternative<bool>(v)) {
    double d = asDouble(v);
    if (d != 0.0 && d != 1.0) fail();
  }
  return castTo(v, dtype, [&] { return scalar.name(); });
}

// --- integer arithmetic with C semantics, overflow and division checked ---

void checkOverflow(bool overflow, const Expr& expr) {
  FL_CHECK(!overflow, "integer overflow evaluating ", describe(expr));
}

int64_t checkedAdd(int64_t a, int64_t b, const Expr& expr) {
  int64_t r = 0;
  checkOverflow(__builtin_add_overflow(a, b, &r), expr);
  return r;
}

int64_t checkedSub(int64_t a, int64_t b, const Expr& expr) {
  int64_t r = 0;
  checkOverflow(__builtin_sub_overflow(a, b, &r), expr);
  return r;
}

int64_t checkedMul(int64_t a, int64_t b, const Expr& expr) {
  int64_t r = 0;
  checkOverflow(__builtin_mul_overflow(a, b, &r), expr);
  return r;
}

// The UserError of an integer division by zero. [[noreturn]], so the static
// analyzer sees that the divisions after `if (b == 0)` never divide by zero.
[[noreturn]] void divisionByZero(const Expr& expr) {
  FL_USER_ERROR("integer division by zero evaluating ", describe(expr), " (", expr.input(1)->name(),
                " is 0)");
}

int64_t intPow(int64_t base, int64_t exponent, const Expr& expr) {
  FL_CHECK(exponent >= 0, "integer pow with the negative exponent ", exponent, " evaluating ",
           describe(expr));
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) {
      result = checkedMul(result, base, expr);
    }
    exponent >>= 1;
    if (exponent > 0) {
      base = checkedMul(base, base, expr);
    }
  }
  return result;
}

ScalarValue intBinary(BinaryOpType op, int64_t a, int64_t b, bool bools, const Expr& expr) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  switch (op) {
    case BinaryOpType::Add: return checkedAdd(a, b, expr);
    case BinaryOpType::Sub: return checkedSub(a, b, expr);
    case BinaryOpType::Mul: return checkedMul(a, b, expr);
    case BinaryOpType::Div:
      if (b == 0) divisionByZero(expr);
      checkOverflow(a == kMin && b == -1, expr);
      return a / b;  // truncation, as C
    case BinaryOpType::CeilDiv: {
      if (b == 0) divisionByZero(expr);
      checkOverflow(a == kMin && b == -1, expr);
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) == (b < 0))) ++q;
      return q;
    }
    case BinaryOpType::Fmod:  // the sign of the dividend, as C
      if (b == 0) divisionByZero(expr);
      return b == -1 ? 0 : a % b;
    case BinaryOpType::Remainder: {  // the sign of the divisor, as Python
      if (b == 0) divisionByZero(expr);
      int64_t m = b == -1 ? 0 : a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return m;
    }
    case BinaryOpType::Pow: return intPow(a, b, expr);
    case BinaryOpType::Minimum: return std::min(a, b);
    case BinaryOpType::Maximum: return std::max(a, b);
    case BinaryOpType::Eq: return a == b;
    case BinaryOpType::Ne: return a != b;
    case BinaryOpType::Lt: return a < b;
    case BinaryOpType::Le: return a <= b;
    case BinaryOpType::Gt: return a > b;
    case BinaryOpType::Ge: return a >= b;
    case BinaryOpType::LogicalAnd: return a != 0 && b != 0;
    case BinaryOpType::LogicalOr: return a != 0 || b != 0;
    case BinaryOpType::BitwiseAnd: return bools ? ScalarValue(bool(a & b)) : ScalarValue(a & b);
    case BinaryOpType::BitwiseOr: return bools ? ScalarValue(bool(a | b)) : ScalarValue(a | b);
    case BinaryOpType::BitwiseXor: return bools ? ScalarValue(bool(a ^ b)) : ScalarValue(a ^ b);
    case BinaryOpType::LeftShift:
    case BinaryOpType::RightShift:
      FL_CHECK(b >= 0 && b < 64, "shift by ", b, " evaluating ", describe(expr),
               "; the shift must be in [0, 64)");
      if (op == BinaryOpType::LeftShift) {
        return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
      }
      return a >> b;
    case BinaryOpType::Atan2: return std::atan2(static_cast<double>(a), static_cast<double>(b));
    case BinaryOpType::Gcd: return gcdOfMagnitudes(a, b);
    case BinaryOpType::Nextafter:
      FL_USER_ERROR("nextafter needs floating-point operands; ", describe(expr),
                    " has integer operands");
  }
  FL_ASSERT(false, "unhandled binary op ", toString(op));
}

// --- floating point: IEEE, as the generated code computes it ---

double pythonRemainder(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

double nanPropagating(double a, double b, bool minimum) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return minimum ? std::min(a, b) : std::max(a, b);
}

ScalarValue doubleBinary(BinaryOpType op, double a, double b, const Expr& expr) {
  switch (op) {
    case BinaryOpType::Add: return a + b;
    case BinaryOpType::Sub: return a - b;
    case BinaryOpType::Mul: return a * b;
    case BinaryOpType::Div: return a / b;
    case BinaryOpType::CeilDiv: return std::ceil(a / b);
    case BinaryOpType::Fmod: return std::fmod(a, b);
    case BinaryOpType::Remainder: return pythonRemainder(a, b);
    case BinaryOpType::Pow: return std::pow(a, b);
    case BinaryOpType::Minimum: return nanPropagating(a, b, true);
    case BinaryOpType::Maximum: return nanPropagating(a, b, false);
    case BinaryOpType::Atan2: return std::atan2(a, b);
    case BinaryOpType::Eq: return a == b;
    case BinaryOpType::Ne: return a != b;
    case BinaryOpType::Lt: return a < b;
    case BinaryOpType::Le: return a <= b;
    case BinaryOpType::Gt: return a > b;
    case BinaryOpType::Ge: return a >= b;
    case BinaryOpType::LogicalAnd: return a != 0 && b != 0;
    case BinaryOpType::LogicalOr: return a != 0 || b != 0;
    case BinaryOpType::BitwiseAnd:
    case BinaryOpType::BitwiseOr:
    case BinaryOpType::BitwiseXor:
    case BinaryOpType::LeftShift:
    case BinaryOpType::RightShift:
    case BinaryOpType::Gcd:
      FL_USER_ERROR(toString(op), " needs integer operands; ", describe(expr),
                    " has a floating-point operand");
    case BinaryOpType::Nextafter: return std::nextafter(a, b);
  }
  FL_ASSERT(false, "unhandled binary op ", toString(op));
}

// Giles' approximation refined by Newton steps on erf, to double precision.
double erfinv(double y) {
  if (y <= -1 || y >= 1) {
    if (y == 1) return std::numeric_limits<double>::infinity();
    if (y == -1) return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  double w = -std::log((1 - y) * (1 + y));
  double p = 0;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941}) {
      p = c + p * w;
    }
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682}) {
      p = c + p * w;
    }
  }
  double x = p * y;
  for (int i = 0; i < 3; ++i) {
    double slope = 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x);
    if (slope == 0) break;
    x -= (std::erf(x) - y) / slope;
  }
  return x;
}

std::optional<ScalarValue> intUnary(UnaryOpType op, int64_t x, bool isBool, const Expr& expr) {
  switch (op) {
    case UnaryOpType::Neg: return checkedSub(0, x, expr);
    case UnaryOpType::Abs: return x >= 0 ? x : checkedSub(0, x, expr);
    case UnaryOpType::Sign: return int64_t{(x > 0) - (x < 0)};
    case UnaryOpType::Signbit: return x < 0;
    case UnaryOpType::Floor:
    case UnaryOpType::Ceil:
    case UnaryOpType::Round:
    case UnaryOpType::Trunc: return x;
    case UnaryOpType::Frac: return int64_t{0};
    case UnaryOpType::Relu: return std::max<int64_t>(x, 0);
    case UnaryOpType::LogicalNot: return x == 0;
    case UnaryOpType::BitwiseNot: return isBool ? ScalarValue(x == 0) : ScalarValue(~x);
    case UnaryOpType::IsNan:
    case UnaryOpType::IsInf:
    case UnaryOpType::IsPosInf:
    case UnaryOpType::IsNegInf: return false;
    case UnaryOpType::IsFinite: return true;
    default: return std::nullopt;  // computed in floating point
  }
}

ScalarValue doubleUnary(UnaryOpType op, double x, const Expr& expr) {
  switch (op) {
    case UnaryOpType::Abs: return std::fabs(x);
    case UnaryOpType::Neg: return -x;
    case UnaryOpType::Exp: return std::exp(x);
    case UnaryOpType::Exp2: return std::exp2(x);
    case UnaryOpType::Expm1: return std::expm1(x);
    case UnaryOpType::Log: return std::log(x);
    case UnaryOpType::Log1p: return std::log1p(x);
    case UnaryOpType::Log2: return std::log2(x);
    case UnaryOpType::Log10: return std::log10(x);
    case UnaryOpType::Sqrt: return std::sqrt(x);
    case UnaryOpType::Rsqrt: return 1 / std::sqrt(x);
    case UnaryOpType::Reciprocal: return 1 / x;
    case UnaryOpType::Sin: return std::sin(x);
    case UnaryOpType::Cos: return std::cos(x);
    case UnaryOpType::Tan: return std::tan(x);
    case UnaryOpType::Asin: return std::asin(x);
    case UnaryOpType::Acos: return std::acos(x);
    case UnaryOpType::Atan: return std::atan(x);
    case UnaryOpType::Sinh: return std::sinh(x);
    case UnaryOpType::Cosh: return std::cosh(x);
    case UnaryOpType::Tanh: return std::tanh(x);
    case UnaryOpType::Asinh: return std::asinh(x);
    case UnaryOpType::Acosh: return std::acosh(x);
    case UnaryOpType::Atanh: return std::atanh(x);
    case UnaryOpType::Sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOpType::Silu: return x / (1 + std::exp(-x));
    case UnaryOpType::Relu: return std::isnan(x) ? x : std::max(x, 0.0);
    case UnaryOpType::Erf: return std::erf(x);
    case UnaryOpType::Erfc: return std::erfc(x);
    case UnaryOpType::Erfinv: return erfinv(x);
    case UnaryOpType::Lgamma: return std::lgamma(x);
    case UnaryOpType::Floor: return std::floor(x);
    case UnaryOpType::Ceil: return std::ceil(x);
    case UnaryOpType::Round: return std::nearbyint(x);  // half to even
    case UnaryOpType::Trunc: return std::trunc(x);
    case UnaryOpType::Frac: return x - std::trunc(x);
    case UnaryOpType::Sign: return std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0));
    case UnaryOpType::Signbit: return static_cast<bool>(std::signbit(x));
    case UnaryOpType::IsNan: return std::isnan(x);
    case UnaryOpType::IsInf: return std::isinf(x);
    case UnaryOpType::IsFinite: return std::isfinite(x);
    case UnaryOpType::IsPosInf: return std::isinf(x) && x > 0;
    case UnaryOpType::IsNegInf: return std::isinf(x) && x < 0;
    case UnaryOpType::LogicalNot: return x == 0;
    case UnaryOpType::BitwiseNot:
      FL_USER_ERROR("bitwise_not needs an integer operand; ", describe(expr),
                    " has a floating-point operand");
  }
  FL_ASSERT(false, "unhandled unary op ", toString(op));
}

// Unbound symbolic scalars that `scalar` depends on, in first-reached order
// (depth first, inputs in order). An explicit stack and a visited set: a
// chain of 100,000 scalar ops needs no call stack, and a scalar reached
// along several paths is walked once.
void collectUnbound(const Scalar* scalar, const ExpressionEvaluator& ee,
                    std::vector<const Scalar*>& out) {
  std::vector<const Scalar*> pending = {scalar};
  std::unordered_set<const Scalar*> visited;
  while (!pending.empty()) {
    const Scalar* s = pending.back();
    pending.pop_back();
    if (s->isConst() || ee.isBound(s) || !visited.insert(s).second) continue;
    const Expr* def = s->definition();
    if (def == nullptr) {
      out.push_back(s);
      continue;
    }
    const auto& inputs = def->inputs();
    for (auto in = inputs.rbegin(); in != inputs.rend(); ++in) {
      if (const auto* operand = (*in)->as<Scalar>()) pending.push_back(operand);
    }
  }
}

}  // namespace

void ExpressionEvaluator::bind(const Scalar* scalar, ScalarValue value, std::string source) {
  FL_ASSERT(scalar != nullptr, "binding a null scalar");
  FL_ASSERT(!std::holds_alternative<std::monostate>(value), "binding ", scalar->name(),
            " to no value");
  ScalarValue converted = convertForBinding(value, *scalar);
  auto by = [](const std::string& s) { return s.empty() ? s : " by " + s; };
  if (scalar->isConst()) {
    FL_CHECK(sameValue(castTo(scalar->value(), scalar->dtype(), [&] { return scalar->name(); }),
                       converted),
             "the constant ", scalar->name(), " cannot be bound to ", valueString(converted),
             by(source));
    return;
  }
  if (auto it = bound_.find(scalar); it != bound_.end()) {
    FL_CHECK(sameValue(it->second.value, converted), "scalar ", scalar->name(), " is bound to ",
             valueString(it->second.value), by(it->second.source), " and to ",
             valueString(converted), by(source));
    return;
  }
  // A computed scalar may be bound too (the binding then takes precedence),
  // but not to a value other than the one its definition gives.
  if (scalar->definition() != nullptr) {
    if (auto computed = evaluate(scalar)) {
      FL_CHECK(sameValue(*computed, converted), "scalar ", describe(*scalar->definition()),
               " evaluates to ", valueString(*computed), " and cannot be bound to ",
               valueString(converted), by(source));
    }
  }
  bound_.emplace(scalar, Binding{std::move(converted), std::move(source)});
  unknown_.clear();  // what depended on this scalar may be known now
}

bool ExpressionEvaluator::isBound(const Scalar* scalar) const { return bound_.count(scalar) != 0; }

std::optional<ScalarValue> ExpressionEvaluator::evaluate(const Scalar* scalar) const {
  FL_ASSERT(scalar != nullptr, "evaluating a null scalar");
  if (scalar->isConst()) {
    return castTo(scalar->value(), scalar->dtype(), [&] { return scalar->name(); });
  }
  if (auto it = bound_.find(scalar); it != bound_.end()) {
    return it->second.value;
  }
  if (auto it = memo_.find(scalar); it != memo_.end()) return it->second;
  if (scalar->definition() == nullptr || unknown_.count(scalar) != 0) return std::nullopt;
  std::optional<ScalarValue> value;
  try {
    evaluateOperandsFirst(scalar);
    value = evaluateDefinition(scalar);
  } catch (const UserError& error) {
    // Point at the script call that made the scalar (the innermost one
    // that has a position: outer scalars see the location and pass it on).
    const SourceLocation* where =
        error.location() ? nullptr : scalar->fusion()->scriptLocationOf(scalar);
    if (where == nullptr) throw;
    throw UserError(error.message(), *where);
  }
  if (value) {
    memo_.emplace(scalar, *value);
  } else {
    unknown_.insert(scalar);
  }
  return value;
}

namespace {

// The operands evaluateDefinition reads whatever their values (in order):
// every input of a cast, unary, binary or ternary op, but only the
// condition of a where (its branches are read as it selects them).
size_t operandsEvaluatedFirst(const Expr& expr) {
  switch (expr.type()) {
    case ExprType::Cast:
    case ExprType::Unary:
    case ExprType::Binary: return expr.inputs().size();
    case ExprType::Ternary:
      return expr.attrs().ternaryOp == TernaryOpType::Where ? 1 : expr.inputs().size();
    default: return 0;
  }
}

}  // namespace

bool ExpressionEvaluator::needsEvaluation(const Scalar* scalar) const {
  return !scalar->isConst() && scalar->definition() != nullptr && bound_.count(scalar) == 0 &&
         memo_.count(scalar) == 0 && unknown_.count(scalar) == 0;
}

void ExpressionEvaluator::evaluateOperandsFirst(const Scalar* root) const {
  // evaluate -> evaluateDefinition -> evaluate, unrolled onto an explicit
  // stack: a chain of 100,000 scalar ops needs no call stack. Operands are
  // evaluated deepest first, in the order evaluateDefinition reads them,
  // so that it finds them memoized; a non-where ternary stops at its first
  // unknown operand, as evaluateDefinition does.
  struct Frame {
    const Scalar* scalar;
    size_t nextInput = 0;
    bool stop = false;
  };
  auto stopsAtUnknown = [](const Expr& expr) {
    return expr.type() == ExprType::Ternary && expr.attrs().ternaryOp != TernaryOpType::Where;
  };
  std::vector<Frame> stack{{root}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const Expr& expr = *top.scalar->definition();
    if (!top.stop && top.nextInput < operandsEvaluatedFirst(expr)) {
      const auto* operand = expr.input(top.nextInput++)->as<Scalar>();
      if (operand == nullptr) continue;
      if (needsEvaluation(operand)) {
        stack.push_back({operand});
      } else if (stopsAtUnknown(expr) && !evaluate(operand)) {
        top.stop = true;
      }
      continue;
    }
    const Scalar* done = top.scalar;
    stack.pop_back();
    if (stack.empty()) return;  // the root: evaluate() computes it
    const bool known = evaluate(done).has_value();
    Frame& parent = stack.back();
    if (!known && stopsAtUnknown(*parent.scalar->definition())) parent.stop = true;
  }
}

std::optional<ScalarValue> ExpressionEvaluator::evaluateDefinition(const Scalar* scalar) const {
  const Expr& expr = *scalar->definition();
  FL_ASSERT(expr.outputs().size() == 1, "scalar ", scalar->name(), " is defined by ", expr.opName(),
            " with ", expr.outputs().size(), " outputs");
  auto operand = [&](size_t i) -> std::optional<ScalarValue> {
    const auto* s = expr.input(i)->as<Scalar>();
    FL_ASSERT(s != nullptr, "scalar ", scalar->name(), " is defined by ", expr.opName(),
              " of the tensor ", expr.input(i)->name());
    return evaluate(s);
  };
  const DataType dtype = scalar->dtype();
  auto context = [&] { return describe(expr); };  // for errors only
  // Integer arithmetic unless an operand or the result is floating point.
  auto integral = [&](std::initializer_list<const ScalarValue*> values) {
    if (isFloatingPoint(dtype)) return false;
    return std::all_of(values.begin(), values.end(),
                       [](const ScalarValue* v) { return isIntLike(*v); });
  };

  switch (expr.type()) {
    case ExprType::Cast: {
      auto x = operand(0);
      if (!x) return std::nullopt;
      return castTo(*x, dtype, context);
    }
    case ExprType::Unary: {
      auto x = operand(0);
      if (!x) return std::nullopt;
      const UnaryOpType op = expr.attrs().unaryOp;
      std::optional<ScalarValue> result;
      if (isIntLike(*x)) {
        result = intUnary(op, asInt(*x), std::holds_alternative<bool>(*x), expr);
      }
      if (!result) result = doubleUnary(op, asDouble(*x), expr);
      return castTo(*result, dtype, context);
    }
    case ExprType::Binary: {
      auto a = operand(0);
      auto b = operand(1);
      if (!a || !b) return std::nullopt;
      const BinaryOpType op = expr.attrs().binaryOp;
      bool bools = std::holds_alternative<bool>(*a) && std::holds_alternative<bool>(*b);
      // A comparison's result is Bool whatever its operands are.
      bool intOperands = isIntLike(*a) && isIntLike(*b);
      ScalarValue result = (isPredicate(op) ? intOperands : integral({&*a, &*b}))
                               ? intBinary(op, asInt(*a), asInt(*b), bools, expr)
                               : doubleBinary(op, asDouble(*a), asDouble(*b), expr);
      return castTo(result, dtype, context);
    }
    case ExprType::Ternary: {
      const TernaryOpType op = expr.attrs().ternaryOp;
      if (op == TernaryOpType::Where) {
        // Only the selected branch needs to be known.
        auto condition = operand(0);
        if (!condition) return std::nullopt;
        auto chosen = operand(asBool(*condition) ? 1 : 2);
        if (!chosen) return std::nullopt;
        return castTo(*chosen, dtype, context);
      }
      std::vector<ScalarValue> v;
      for (size_t i = 0; i < expr.inputs().size(); ++i) {
        auto x = operand(i);
        if (!x) return std::nullopt;
        v.push_back(*x);
      }
      switch (op) {
        case TernaryOpType::Clamp: {
          ScalarValue result;
          if (integral({&v[0], &v[1], &v[2]})) {
            result = std::min(std::max(asInt(v[0]), asInt(v[1])), asInt(v[2]));
          } else {
            double x = asDouble(v[0]);
            result = std::isnan(x) ? x : std::min(std::max(x, asDouble(v[1])), asDouble(v[2]));
          }
          return castTo(result, dtype, context);
        }
        case TernaryOpType::Lerp: {
          double a = asDouble(v[0]);
          return castTo(a + asDouble(v[2]) * (asDouble(v[1]) - a), dtype, context);
        }
        case TernaryOpType::Addcmul: {
          FL_ASSERT(v.size() == 4, "addcmul takes 4 operands, got ", v.size());
          if (integral({&v[0], &v[1], &v[2], &v[3]})) {
            int64_t product =
                checkedMul(checkedMul(asInt(v[3]), asInt(v[1]), expr), asInt(v[2]), expr);
            return castTo(checkedAdd(asInt(v[0]), product, expr), dtype, context);
          }
          return castTo(asDouble(v[0]) + asDouble(v[3]) * asDouble(v[1]) * asDouble(v[2]), dtype,
                        context);
        }
        case TernaryOpType::Where: break;
      }
      FL_ASSERT(false, "unhandled ternary op ", toString(op));
      return std::nullopt;
    }
    default:
      FL_ASSERT(false, "scalar ", scalar->name(), " is defined by ", expr.opName(),
                ", which is not a scalar op");
  }
  return std::nullopt;
}

ScalarValue ExpressionEvaluator::evaluateOrThrow(const Scalar* scalar,
                                                 std::string_view what) const {
  if (auto value = evaluate(scalar)) return *value;
  std::vector<const Scalar*> unbound;
  collectUnbound(scalar, *this, unbound);
  std::string names;
  for (size_t i = 0; i < unbound.size(); ++i) {
    if (i) names += i + 1 == unbound.size() ? " and " : ", ";
    names += unbound[i]->name();
  }
  if (unbound.size() == 1 && unbound[0] == scalar) {
    FL_USER_ERROR("cannot evaluate ", what, ": ", scalar->name(), " is not bound");
  }
  FL_USER_ERROR("cannot evaluate ", what, ": ", scalar->name(), " depends on ", names,
                unbound.size() == 1 ? ", which is" : ", which are", " not bound");
}

int64_t ExpressionEvaluator::evaluateInt(const Scalar* scalar, std::string_view what) const {
  ScalarValue value = evaluateOrThrow(scalar, what);
  if (isIntLike(value)) return asInt(value);
  double d = std::get<double>(value);
  FL_CHECK(fitsInt64(d) && std::trunc(d) == d, what, " (", scalar->name(), ") is ", formatDouble(d),
           ", expected an integer");
  return static_cast<int64_t>(d);
}

double ExpressionEvaluator::evaluateDouble(const Scalar* scalar, std::string_view what) const {
  return asDouble(evaluateOrThrow(scalar, what));
}

bool ExpressionEvaluator::evaluateBool(const Scalar* scalar, std::string_view what) const {
  ScalarValue value = evaluateOrThrow(scalar, what);
  const auto* b = std::get_if<bool>(&value);
  FL_CHECK(b != nullptr, what, " (", scalar->name(), ") is ", valueString(value),
           ", expected a Bool");
  return *b;
}

int64_t ExpressionEvaluator::evaluateExtent(const IterDomain* id) const {
  // The common case, without building the error's text.
  if (auto value = evaluate(id->extentForIteration());
      value && isIntLike(*value) && asInt(*value) >= 0) {
    return asInt(*value);
  }
  const std::string what = "the extent of " + id->toString();
  int64_t extent = evaluateInt(id->extentForIteration(), what);
  FL_CHECK(extent >= 0, what, " is ", extent, ", expected a size >= 0");
  return extent;
}

}  // namespace fuserlab::ir
