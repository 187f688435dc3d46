#include "core/ops/arith.h"

#include <cmath>
#include <string>

#include "core/ir/error.h"
#include "core/ops/alias.h"
#include "core/ops/broadcast_shape.h"
#include "core/ops/operand_checks.h"
#include "core/ops/reduction_domain.h"

namespace fuserlab::ops {
namespace {

using ir::ExprAttrs;
using ir::ExprType;
using ir::ScalarValue;

enum class UnaryKind { KeepsDtype, FloatMath, Predicate, Bitwise };

UnaryKind unaryKind(UnaryOpType op) {
  if (ir::isPredicate(op)) return UnaryKind::Predicate;
  switch (op) {
    case UnaryOpType::Abs:
    case UnaryOpType::Neg:
    case UnaryOpType::Sign:
    case UnaryOpType::Floor:
    case UnaryOpType::Ceil:
    case UnaryOpType::Round:
    case UnaryOpType::Trunc:
    case UnaryOpType::Frac:
    case UnaryOpType::Relu: return UnaryKind::KeepsDtype;
    case UnaryOpType::BitwiseNot: return UnaryKind::Bitwise;
    default: return UnaryKind::FloatMath;
  }
}

bool isIntegralOrBool(DataType dtype) { return ir::isIntegral(dtype) || dtype == DataType::Bool; }

// Integer and bool inputs of float math (exp, atan2, lerp, ...) give Float.
DataType floatMathDtype(DataType promoted) {
  return ir::isFloatingPoint(promoted) ? promoted : DataType::Float;
}

// A constant of `dtype` holding `value` (converted as a C cast would).
ScalarValue convertConstant(const ir::Scalar* x, DataType dtype) {
  if (dtype == DataType::Bool) return *x->constDouble() != 0.0;
  if (ir::isIntegral(dtype)) {
    if (auto i = x->constInt()) return *i;
    return static_cast<int64_t>(*x->constDouble());
  }
  return *x->constDouble();
}

ScalarValue fromDouble(double value, DataType dtype) {
  if (dtype == DataType::Bool) return value != 0.0;
  if (ir::isIntegral(dtype)) return static_cast<int64_t>(value);
  return value;
}

std::optional<ScalarValue> foldUnary(UnaryOpType op, const ir::Scalar* x, DataType dtype) {
  if (!x->isConst() || (!ir::isFloatingPoint(dtype) && !ir::isIntegral(dtype))) {
    return std::nullopt;
  }
  if (ir::isIntegral(dtype)) {
    int64_t v = *x->constInt();
    switch (op) {
      case UnaryOpType::Neg: return -v;
      case UnaryOpType::Abs: return v < 0 ? -v : v;
      default: return std::nullopt;
    }
  }
  double v = *x->constDouble();
  switch (op) {
    case UnaryOpType::Neg: return -v;
    case UnaryOpType::Abs: return std::fabs(v);
    case UnaryOpType::Exp: return std::exp(v);
    case UnaryOpType::Log: return std::log(v);
    case UnaryOpType::Sqrt: return std::sqrt(v);
    case UnaryOpType::Reciprocal: return 1.0 / v;
    default: return std::nullopt;
  }
}

// Folds arithmetic and comparisons of two constants; `computeDtype` is the
// promoted operand type (integer math truncates, as C does).
std::optional<ScalarValue> foldBinary(BinaryOpType op, const ir::Scalar* a, const ir::Scalar* b,
                                      DataType computeDtype, DataType outDtype) {
  if (!a->isConst() || !b->isConst()) return std::nullopt;
  if (isIntegralOrBool(computeDtype)) {
    int64_t x = *a->constInt();
    int64_t y = *b->constInt();
    std::optional<int64_t> r;
    switch (op) {
      case BinaryOpType::Add: r = x + y; break;
      case BinaryOpType::Sub: r = x - y; break;
      case BinaryOpType::Mul: r = x * y; break;
      case BinaryOpType::Div:
        if (y != 0) r = x / y;
        break;
      case BinaryOpType::Minimum: r = std::min(x, y); break;
      case BinaryOpType::Maximum: r = std::max(x, y); break;
      case BinaryOpType::Eq: r = x == y; break;
      case BinaryOpType::Ne: r = x != y; break;
      case BinaryOpType::Lt: r = x < y; break;
      case BinaryOpType::Le: r = x <= y; break;
      case BinaryOpType::Gt: r = x > y; break;
      case BinaryOpType::Ge: r = x >= y; break;
      default: break;
    }
    if (!r) return std::nullopt;
    return fromDouble(static_cast<double>(*r), outDtype);
  }
  double x = *a->constDouble();
  double y = *b->constDouble();
  std::optional<double> r;
  switch (op) {
    case BinaryOpType::Add: r = x + y; break;
    case BinaryOpType::Sub: r = x - y; break;
    case BinaryOpType::Mul: r = x * y; break;
    case BinaryOpType::Div: r = x / y; break;
    case BinaryOpType::Minimum: r = std::min(x, y); break;
    case BinaryOpType::Maximum: r = std::max(x, y); break;
    case BinaryOpType::Eq: r = x == y; break;
    case BinaryOpType::Ne: r = x != y; break;
    case BinaryOpType::Lt: r = x < y; break;
    case BinaryOpType::Le: r = x <= y; break;
    case BinaryOpType::Gt: r = x > y; break;
    case BinaryOpType::Ge: r = x >= y; break;
    default: break;
  }
  if (!r) return std::nullopt;
  return fromDouble(*r, outDtype);
}

// Creates the output (tensor or scalar) and the Expr reading `inputs`.
Val* emitElementwise(std::string_view op, ExprType type, ExprAttrs attrs,
                     const std::vector<Val*>& inputs, DataType dtype) {
  Val* out = newElementwiseOutput(op, inputs, dtype);
  out->fusion()->newExpr(type, inputs, {out}, std::move(attrs));
  return out;
}

void checkBitwiseOperand(std::string_view op, const Val* v, bool allowBool) {
  const bool ok = ir::isIntegral(v->dtype()) || (allowBool && v->dtype() == DataType::Bool);
  FL_CHECK(ok, op, ": ", describeVal(v), " is ", ir::toString(v->dtype()), "; ", op, " needs ",
           allowBool ? "integer or Bool" : "integer", " operands");
}

bool isShift(BinaryOpType op) {
  return op == BinaryOpType::LeftShift || op == BinaryOpType::RightShift;
}

bool isBitwise(BinaryOpType op) {
  return op == BinaryOpType::BitwiseAnd || op == BinaryOpType::BitwiseOr ||
         op == BinaryOpType::BitwiseXor || isShift(op);
}

}  // namespace

Val* unaryOp(UnaryOpType op, Val* x) {
  const std::string name(ir::toString(op));
  checkPresent(name, x, "the input");
  DataType dtype = x->dtype();
  switch (unaryKind(op)) {
    case UnaryKind::Predicate: dtype = DataType::Bool; break;
    case UnaryKind::Bitwise: checkBitwiseOperand(name, x, /*allowBool=*/true); break;
    case UnaryKind::FloatMath: dtype = floatMathDtype(dtype); break;
    case UnaryKind::KeepsDtype:
      FL_CHECK(op != UnaryOpType::Neg || dtype != DataType::Bool, "neg: ", describeVal(x),
               " is Bool; negation of Bool is not supported (use "
               "logical_not)");
      break;
  }
  ExprAttrs attrs;
  attrs.unaryOp = op;
  if (auto* s = x->as<Scalar>()) {
    if (auto folded = foldUnary(op, s, dtype)) {
      return x->fusion()->newConstant(*folded, dtype);
    }
  }
  return emitElementwise(name, ExprType::Unary, attrs, {x}, dtype);
}

Val* binaryOp(BinaryOpType op, Val* a, Val* b) {
  const std::string name(ir::toString(op));
  checkPresent(name, a, "the first operand");
  checkPresent(name, b, "the second operand");
  const DataType computeDtype = promoteElementwise({a, b});
  DataType dtype = computeDtype;
  if (ir::isPredicate(op)) {
    dtype = DataType::Bool;
  } else if (isBitwise(op)) {
    checkBitwiseOperand(name, a, !isShift(op));
    checkBitwiseOperand(name, b, !isShift(op));
  } else if (op == BinaryOpType::Atan2) {
    dtype = floatMathDtype(computeDtype);
  } else if (op == BinaryOpType::Gcd) {
    FL_CHECK(ir::isIntegral(computeDtype) && computeDtype != DataType::Bool,
             "gcd: ", describeVal(a), " and ", describeVal(b), " are ", ir::toString(computeDtype),
             "; gcd takes integers");
  } else if (op == BinaryOpType::Nextafter) {
    FL_CHECK(computeDtype == DataType::Float || computeDtype == DataType::Double,
             "nextafter: ", describeVal(a), " and ", describeVal(b), " are ",
             ir::toString(computeDtype),
             "; nextafter takes Float or Double (a narrower dtype's next value is not its "
             "Float's)");
  } else if (op == BinaryOpType::Sub) {
    FL_CHECK(computeDtype != DataType::Bool, "sub: ", describeVal(a), " and ", describeVal(b),
             " are Bool; subtraction of Bool is not supported (use "
             "logical_xor or bitwise_xor)");
  }
  if (a->isA<Scalar>() && b->isA<Scalar>()) {
    if (auto folded = foldBinary(op, a->as<Scalar>(), b->as<Scalar>(), computeDtype, dtype)) {
      return a->fusion()->newConstant(*folded, dtype);
    }
  }
  ExprAttrs attrs;
  attrs.binaryOp = op;
  return emitElementwise(name, ExprType::Binary, attrs, {a, b}, dtype);
}

Val* truediv(Val* a, Val* b) {
  checkPresent("truediv", a, "the first operand");
  checkPresent("truediv", b, "the second operand");
  if (!ir::isFloatingPoint(promoteElementwise({a, b}))) {
    a = cast(a, DataType::Float);
    b = cast(b, DataType::Float);
  }
  return binaryOp(BinaryOpType::Div, a, b);
}

Val* where(Val* condition, Val* a, Val* b) {
  checkPresent("where", condition, "the condition");
  checkPresent("where", a, "the second operand");
  checkPresent("where", b, "the third operand");
  FL_CHECK(condition->dtype() == DataType::Bool, "where: the condition ", describeVal(condition),
           " is ", ir::toString(condition->dtype()),
           "; expected Bool (compare with ne(x, 0) first)");
  DataType dtype = promoteElementwise({a, b});
  // torch.where(cond, 1.0, 0.0): python numbers give the default dtypes.
  if (condition->isA<TensorView>() && a->isA<Scalar>() && b->isA<Scalar>() &&
      ir::isFloatingPoint(dtype)) {
    dtype = DataType::Float;
  }
  ExprAttrs attrs;
  attrs.ternaryOp = TernaryOpType::Where;
  return emitElementwise("where", ExprType::Ternary, attrs, {condition, a, b}, dtype);
}

Val* lerp(Val* start, Val* end, Val* weight) {
  checkPresent("lerp", start, "start");
  checkPresent("lerp", end, "end");
  checkPresent("lerp", weight, "weight");
  ExprAttrs attrs;
  attrs.ternaryOp = TernaryOpType::Lerp;
  return emitElementwise("lerp", ExprType::Ternary, attrs, {start, end, weight},
                         floatMathDtype(promoteElementwise({start, end, weight})));
}

Val* clamp(Val* x, Val* min, Val* max) {
  checkPresent("clamp", x, "the input");
  checkPresent("clamp", min, "min");
  checkPresent("clamp", max, "max");
  FL_CHECK(min->isA<Scalar>(), "clamp: min must be a scalar, but ", describeVal(min),
           " is a tensor");
  FL_CHECK(max->isA<Scalar>(), "clamp: max must be a scalar, but ", describeVal(max),
           " is a tensor");
  ExprAttrs attrs;
  attrs.ternaryOp = TernaryOpType::Clamp;
  return emitElementwise("clamp", ExprType::Ternary, attrs, {x, min, max},
                         promoteElementwise({x, min, max}));
}

Val* addcmul(Val* a, Val* b, Val* c, Val* value) {
  checkPresent("addcmul", a, "the input");
  checkPresent("addcmul", b, "tensor1");
  checkPresent("addcmul", c, "tensor2");
  checkPresent("addcmul", value, "value");
  FL_CHECK(value->isA<Scalar>(), "addcmul: value must be a scalar, but ", describeVal(value),
           " is a tensor");
  ExprAttrs attrs;
  attrs.ternaryOp = TernaryOpType::Addcmul;
  return emitElementwise("addcmul", ExprType::Ternary, attrs, {a, b, c, value},
                         promoteElementwise({a, b, c, value}));
}

Val* cast(Val* x, DataType dtype) {
  checkPresent("cast", x, "the input");
  FL_CHECK(dtype != DataType::Null, "cast: the target dtype of ", describeVal(x),
           " is DataType.Null; expected a concrete dtype");
  if (x->dtype() == dtype) return x;
  if (auto* s = x->as<Scalar>(); s != nullptr && s->isConst()) {
    return x->fusion()->newConstant(convertConstant(s, dtype), dtype);
  }
  return emitElementwise("cast", ExprType::Cast, {}, {x}, dtype);
}

TensorView* reduction(ReductionOpType op, TensorView* x, const std::vector<int64_t>& axes,
                      bool keepDim, DataType dtype) {
  const std::string name(ir::toString(op));
  checkPresent(name, x, "the input");
  const std::vector<int64_t> reduced = reductionAxes(name, x, axes);
  const bool accumulates = op == ReductionOpType::Sum || op == ReductionOpType::Prod;
  if (dtype == DataType::Null && accumulates && isIntegralOrBool(x->dtype())) {
    dtype = DataType::Int;  // torch.sum of Bool/Int32 gives int64
  }
  TensorView* in = x;
  if (dtype != DataType::Null) in = cast(x, dtype)->as<TensorView>();
  if (reduced.empty()) return set(in);

  ir::Fusion* fusion = in->fusion();
  TensorView* out = fusion->newTensorView(reductionDomain(in, reduced), in->dtype());
  ExprAttrs attrs;
  attrs.reductionOp = op;
  attrs.axes = reduced;
  fusion->newExpr(ExprType::Reduction, {in}, {out}, attrs);
  if (keepDim) return broadcast(out, keepDimFlags(in->rank(), reduced));
  return out;
}

TensorView* sum(TensorView* x, const std::vector<int64_t>& axes, bool keepDim, DataType dtype) {
  return reduction(ReductionOpType::Sum, x, axes, keepDim, dtype);
}

}  // namespace fuserlab::ops
