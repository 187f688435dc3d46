#include "core/frontend/python_arithmetic.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

[[noreturn]] void fail(const SourceLocation& location, const std::string& message) {
  throw UserError(message, location);
}

[[noreturn]] void failOverflow(const SourceLocation& location, std::string_view what) {
  fail(location,
       "integer overflow in " + std::string(what) + ": the result does not fit in 64 bits");
}

// An int or a bool as Python's int.
int64_t asInt(const Value& value) {
  return value.is(Kind::kBool) ? (value.boolValue ? 1 : 0) : value.intValue;
}

bool isIntLike(const Value& value) { return value.is(Kind::kInt) || value.is(Kind::kBool); }

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string trimmed(const std::string& text) {
  const char* spaces = " \t\n\r\f\v";
  size_t begin = text.find_first_not_of(spaces);
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(spaces);
  return text.substr(begin, end - begin + 1);
}

int64_t intPower(int64_t base, int64_t exponent, const SourceLocation& location) {
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) {
      if (__builtin_mul_overflow(result, base, &result)) {
        failOverflow(location, "'**'");
      }
    }
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) {
      failOverflow(location, "'**'");
    }
  }
  return result;
}

Value compare(BinaryOpKind op, double a, double b) {
  switch (op) {
    case BinaryOpKind::kEq: return Value::boolean(a == b);
    case BinaryOpKind::kNotEq: return Value::boolean(a != b);
    case BinaryOpKind::kLess: return Value::boolean(a < b);
    case BinaryOpKind::kLessEq: return Value::boolean(a <= b);
    case BinaryOpKind::kGreater: return Value::boolean(a > b);
    default: return Value::boolean(a >= b);
  }
}

Value compare(BinaryOpKind op, int64_t a, int64_t b) {
  switch (op) {
    case BinaryOpKind::kEq: return Value::boolean(a == b);
    case BinaryOpKind::kNotEq: return Value::boolean(a != b);
    case BinaryOpKind::kLess: return Value::boolean(a < b);
    case BinaryOpKind::kLessEq: return Value::boolean(a <= b);
    case BinaryOpKind::kGreater: return Value::boolean(a > b);
    default: return Value::boolean(a >= b);
  }
}

bool isOrderComparison(BinaryOpKind op) {
  return op == BinaryOpKind::kEq || op == BinaryOpKind::kNotEq || op == BinaryOpKind::kLess ||
         op == BinaryOpKind::kLessEq || op == BinaryOpKind::kGreater ||
         op == BinaryOpKind::kGreaterEq;
}

Value intArithmetic(BinaryOpKind op, int64_t a, int64_t b, const SourceLocation& location) {
  int64_t r = 0;
  switch (op) {
    case BinaryOpKind::kAdd:
      if (__builtin_add_overflow(a, b, &r)) failOverflow(location, "'+'");
      return Value::integer(r);
    case BinaryOpKind::kSub:
      if (__builtin_sub_overflow(a, b, &r)) failOverflow(location, "'-'");
      return Value::integer(r);
    case BinaryOpKind::kMul:
      if (__builtin_mul_overflow(a, b, &r)) failOverflow(location, "'*'");
      return Value::integer(r);
    case BinaryOpKind::kDiv:
      if (b == 0) fail(location, "division by zero");
      return Value::floating(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOpKind::kFloorDiv: {
      if (b == 0) fail(location, "integer division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        failOverflow(location, "'//'");
      }
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return Value::integer(q);
    }
    case BinaryOpKind::kMod: {
      if (b == 0) fail(location, "integer modulo by zero");
      if (b == -1) return Value::integer(0);
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return Value::integer(m);
    }
    case BinaryOpKind::kBitAnd: return Value::integer(a & b);
    case BinaryOpKind::kBitOr: return Value::integer(a | b);
    case BinaryOpKind::kBitXor: return Value::integer(a ^ b);
    case BinaryOpKind::kLeftShift:
      if (b < 0) fail(location, "negative shift count");
      if (b >= 63 || (a != 0 && (a > (std::numeric_limits<int64_t>::max() >> b) ||
                                 a < (std::numeric_limits<int64_t>::min() >> b)))) {
        failOverflow(location, "'<<'");
      }
      return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(a) << b));
    case BinaryOpKind::kRightShift:
      if (b < 0) fail(location, "negative shift count");
      return Value::integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
    case BinaryOpKind::kPow:
      if (b < 0) {
        if (a == 0) fail(location, "0 cannot be raised to a negative power");
        return Value::floating(std::pow(static_cast<double>(a), static_cast<double>(b)));
      }
      return Value::integer(intPower(a, b, location));
    default: return compare(op, a, b);
  }
}

Value floatArithmetic(BinaryOpKind op, double a, double b, const SourceLocation& location) {
  switch (op) {
    case BinaryOpKind::kAdd: return Value::floating(a + b);
    case BinaryOpKind::kSub: return Value::floating(a - b);
    case BinaryOpKind::kMul: return Value::floating(a * b);
    case BinaryOpKind::kDiv:
      if (b == 0.0) fail(location, "float division by zero");
      return Value::floating(a / b);
    case BinaryOpKind::kFloorDiv:
      if (b == 0.0) fail(location, "float floor division by zero");
      return Value::floating(std::floor(a / b));
    case BinaryOpKind::kMod: {
      if (b == 0.0) fail(location, "float modulo by zero");
      double m = std::fmod(a, b);
      if (m != 0.0 && ((m < 0.0) != (b < 0.0))) m += b;
      return Value::floating(m);
    }
    case BinaryOpKind::kPow:
      if (a == 0.0 && b < 0.0) {
        fail(location, "0.0 cannot be raised to a negative power");
      }
      if (a < 0.0 && std::isfinite(b) && b != std::trunc(b)) {
        fail(location,
             "a negative number raised to a fractional power is "
             "complex; complex numbers are not supported");
      }
      return Value::floating(std::pow(a, b));
    default: return compare(op, a, b);
  }
}

[[noreturn]] void failOperands(BinaryOpKind op, const Value& lhs, const Value& rhs,
                               const SourceLocation& location) {
  fail(location, "unsupported operands for '" + std::string(spelling(op)) +
                     "': " + describeKind(lhs) + " and " + describeKind(rhs));
}

}  // namespace

bool truthValue(const Value& value, const SourceLocation& location) {
  switch (value.kind) {
    case Kind::kNone: return false;
    case Kind::kBool: return value.boolValue;
    case Kind::kInt: return value.intValue != 0;
    case Kind::kFloat: return value.floatValue != 0.0;
    case Kind::kString: return !value.text.empty();
    case Kind::kList:
    case Kind::kTuple: return !value.items().empty();
    case Kind::kDict: return value.elements && !value.elements->empty();
    case Kind::kOpaque:
      fail(location, "the truth value of " + value.text +
                         " is known only when the script runs; FuserLab "
                         "reads the script without running it");
    case Kind::kTensor:
    case Kind::kScalar:
      fail(location, "the truth value of " + describeKind(value) +
                         " is not known while the fusion is defined; use "
                         "fd.ops.where or fd.ops.logical_and/logical_or");
    default: return true;
  }
}

Value applyUnary(UnaryOpKind op, const Value& operand, const SourceLocation& location) {
  if (op == UnaryOpKind::kNot) {
    return Value::boolean(!truthValue(operand, location));
  }
  if (isIntLike(operand)) {
    const int64_t v = asInt(operand);
    switch (op) {
      case UnaryOpKind::kNegate:
        if (v == std::numeric_limits<int64_t>::min()) {
          failOverflow(location, "unary '-'");
        }
        return Value::integer(-v);
      case UnaryOpKind::kPlus: return Value::integer(v);
      default: return Value::integer(~v);
    }
  }
  if (operand.is(Kind::kFloat)) {
    if (op == UnaryOpKind::kNegate) return Value::floating(-operand.floatValue);
    if (op == UnaryOpKind::kPlus) return operand;
  }
  fail(location, "unsupported operand for unary '" + std::string(spelling(op)) +
                     "': " + describeKind(operand));
}

Value applyBinary(BinaryOpKind op, const Value& lhs, const Value& rhs,
                  const SourceLocation& location) {
  if (lhs.isNumber() && rhs.isNumber()) {
    const bool bitwise = op == BinaryOpKind::kBitAnd || op == BinaryOpKind::kBitOr ||
                         op == BinaryOpKind::kBitXor || op == BinaryOpKind::kLeftShift ||
                         op == BinaryOpKind::kRightShift;
    if (op == BinaryOpKind::kMatMul || op == BinaryOpKind::kAnd || op == BinaryOpKind::kOr ||
        op == BinaryOpKind::kIn || op == BinaryOpKind::kNotIn || op == BinaryOpKind::kIs ||
        op == BinaryOpKind::kIsNot || (bitwise && (!isIntLike(lhs) || !isIntLike(rhs)))) {
      failOperands(op, lhs, rhs, location);
    }
    if (lhs.is(Kind::kBool) && rhs.is(Kind::kBool) &&
        (op == BinaryOpKind::kBitAnd || op == BinaryOpKind::kBitOr ||
         op == BinaryOpKind::kBitXor)) {
      const bool a = lhs.boolValue;
      const bool b = rhs.boolValue;
      return Value::boolean(op == BinaryOpKind::kBitAnd  ? (a && b)
                            : op == BinaryOpKind::kBitOr ? (a || b)
                                                         : (a != b));
    }
    if (isIntLike(lhs) && isIntLike(rhs)) {
      return intArithmetic(op, asInt(lhs), asInt(rhs), location);
    }
    return floatArithmetic(op, lhs.toDouble(), rhs.toDouble(), location);
  }
  if (op == BinaryOpKind::kEq || op == BinaryOpKind::kNotEq) {
    const bool wantEqual = op == BinaryOpKind::kEq;
    if (lhs.kind == rhs.kind) {
      switch (lhs.kind) {
        case Kind::kNone: return Value::boolean(wantEqual);
        case Kind::kString: return Value::boolean((lhs.text == rhs.text) == wantEqual);
        case Kind::kDataType:
        case Kind::kTorchDtype: return Value::boolean((lhs.dtype == rhs.dtype) == wantEqual);
        default: break;
      }
    } else if (lhs.isNone() || rhs.isNone()) {
      return Value::boolean(!wantEqual);
    }
  }
  if (isOrderComparison(op) && lhs.is(Kind::kString) && rhs.is(Kind::kString)) {
    const int order = lhs.text.compare(rhs.text);
    return compare(op, static_cast<int64_t>(order), int64_t{0});
  }
  failOperands(op, lhs, rhs, location);
}

Value parseFloatString(const std::string& text, const SourceLocation& location) {
  std::string body = trimmed(text);
  bool negative = false;
  std::string unsigned_ = body;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    unsigned_ = body.substr(1);
  }
  const std::string word = lower(unsigned_);
  double value = 0.0;
  if (word == "inf" || word == "infinity") {
    value = std::numeric_limits<double>::infinity();
  } else if (word == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else {
    const char* begin = unsigned_.data();
    const char* end = begin + unsigned_.size();
    auto [ptr, error] = std::from_chars(begin, end, value);
    const bool fullyRead = ptr == end && !unsigned_.empty();
    if (error == std::errc::result_out_of_range && fullyRead) {
      value = std::strtod(unsigned_.c_str(), nullptr);
    } else if (error != std::errc() || !fullyRead) {
      fail(location, "could not convert string to float: " + quoteForMessage(text));
    }
  }
  return Value::floating(negative ? -value : value);
}

int64_t truncateToInt(double value, const SourceLocation& location) {
  if (std::isnan(value)) fail(location, "cannot convert float NaN to integer");
  if (std::isinf(value)) {
    fail(location, "cannot convert float infinity to integer");
  }
  const double truncated = std::trunc(value);
  // 2^63 is exactly representable; every double below it fits.
  constexpr double kLimit = 9223372036854775808.0;
  if (truncated >= kLimit || truncated < -kLimit) {
    fail(location, "the float does not fit in a 64-bit integer");
  }
  return static_cast<int64_t>(truncated);
}

}  // namespace fuserlab::frontend
