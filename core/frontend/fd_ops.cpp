#include "core/frontend/fd_ops.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "core/frontend/fd_ops_internal.h"
#include "core/ops/arith.h"
#include "core/ops/logical_shift.h"
#include "core/ops/normalization.h"

namespace fuserlab::frontend {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::ReductionOpType;
using ir::UnaryOpType;
using ir::Val;
using Kind = Value::Kind;

// Random ops FuserLab does not have (the others are in fd_ops_random.cpp).
constexpr std::array<std::string_view, 2> kRefusedRandomOps = {"bernoulli", "randint"};

// The ops of nvFuser's frontends (nvfuser_direct's ops list and the old
// nvfuser module's) that FuserLab does not have: refused by name, so that a
// script using one says what is missing rather than "unknown op".
constexpr std::array<std::string_view, 16> kUnsupportedNvfuserOps = {
    "add_alpha",
    "batch_norm",
    "complex",
    "cutlass_nvfp4_grouped_mm",
    "erfcinv",
    "grouped_mm",
    "imag",
    "isreal",
    "mod",
    "nv_block_quantize",
    "nv_grouped_block_quantize",
    "preprocess_grouped_matmul_input_sf",
    "real",
    "scaled_mm",
    "sub_alpha",
    "threshold",
};

// The ops of an enum by their script names, built once: every fd.ops call
// looks its name up here, and a scan of the names (each through toString)
// was the largest part of reading a long script (issue 43: the fuzz_reader
// spent seconds under ASan on 100,000-op scripts).
template <typename Op>
class OpNames {
 public:
  explicit OpNames(int count) {
    for (int i = 0; i < count; ++i) {
      const auto op = static_cast<Op>(i);
      byName_.emplace(ir::toString(op), op);
    }
  }
  std::optional<Op> find(std::string_view name) const {
    const auto it = byName_.find(name);
    if (it == byName_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, Op> byName_;
};

std::optional<UnaryOpType> unaryOpNamed(std::string_view name) {
  static const OpNames<UnaryOpType> kOps(static_cast<int>(UnaryOpType::BitwiseNot) + 1);
  return kOps.find(name);
}

std::optional<BinaryOpType> binaryOpNamed(std::string_view name) {
  // CeilDiv is internal (extent arithmetic); scripts have no fd.ops.ceilDiv.
  static const OpNames<BinaryOpType> kOps(static_cast<int>(BinaryOpType::Nextafter) + 1);
  const std::optional<BinaryOpType> op = kOps.find(name);
  if (op == BinaryOpType::CeilDiv) return std::nullopt;
  return op;
}

std::optional<ReductionOpType> reductionOpNamed(std::string_view name) {
  if (name == "sum") return ReductionOpType::Sum;
  if (name == "prod") return ReductionOpType::Prod;
  if (name == "max") return ReductionOpType::Max;
  if (name == "min") return ReductionOpType::Min;
  return std::nullopt;
}

// The op builders fold constant scalars in int64 and convert the result
// through double; refuse folds that would overflow instead of reaching
// undefined behaviour there. 2^62 keeps the double round trip exact enough
// to stay in range.
void checkConstantFold(BinaryOpType op, const Val* a, const Val* b) {
  const auto* sa = a->as<ir::Scalar>();
  const auto* sb = b->as<ir::Scalar>();
  if (sa == nullptr || sb == nullptr) return;
  const std::optional<int64_t> x = sa->constInt();
  const std::optional<int64_t> y = sb->constInt();
  if (!x || !y) return;
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
    case BinaryOpType::Add: overflow = __builtin_add_overflow(*x, *y, &r); break;
    case BinaryOpType::Sub: overflow = __builtin_sub_overflow(*x, *y, &r); break;
    case BinaryOpType::Mul: overflow = __builtin_mul_overflow(*x, *y, &r); break;
    case BinaryOpType::Div:
      overflow = *y == -1 && *x == std::numeric_limits<int64_t>::min();
      if (*y != 0 && !overflow) r = *x / *y;
      break;
    default: return;
  }
  constexpr int64_t kLimit = int64_t{1} << 62;
  if (overflow || r > kLimit || r < -kLimit) {
    throw UserError(std::string(ir::toString(op)) + " of the constants " + std::to_string(*x) +
                    " and " + std::to_string(*y) + " overflows 64-bit integers");
  }
}

void checkConstantUnary(UnaryOpType op, const Val* x) {
  const auto* s = x->as<ir::Scalar>();
  if (s == nullptr || !(op == UnaryOpType::Neg || op == UnaryOpType::Abs)) {
    return;
  }
  if (s->constInt() == std::numeric_limits<int64_t>::min()) {
    throw UserError(std::string(ir::toString(op)) + " of the constant " +
                    std::to_string(*s->constInt()) + " overflows 64-bit integers");
  }
}

// A constant float cast to an integer must be a number that fits.
void checkConstantCast(const Val* x, DataType dtype) {
  const auto* s = x->as<ir::Scalar>();
  if (s == nullptr || !ir::isIntegral(dtype) || s->constInt()) return;
  const std::optional<double> value = s->constDouble();
  if (!value) return;
  // 2^63 is exactly representable; every double below it fits.
  constexpr double kLimit = 9223372036854775808.0;
  const double truncated = std::trunc(*value);
  if (!std::isfinite(*value) || truncated >= kLimit || truncated < -kLimit) {
    throw UserError("cast: the constant " + ir::formatDouble(*value) + " cannot be converted to " +
                    std::string(ir::toString(dtype)));
  }
}

Value unary(const OpCall& c, UnaryOpType op) {
  BoundArguments args(c.call, {{"arg", true}}, &c.fusion);
  Val* x = args.operand("arg");
  checkConstantUnary(op, x);
  return Value::fusionVal(ops::unaryOp(op, x));
}

Value binary(const OpCall& c, std::optional<BinaryOpType> op) {
  BoundArguments args(c.call, {{"arg1", true}, {"arg2", true}}, &c.fusion);
  Val* a = args.operand("arg1");
  Val* b = args.operand("arg2");
  if (!op) return Value::fusionVal(ops::truediv(a, b));  // truediv
  checkConstantFold(*op, a, b);
  return Value::fusionVal(ops::binaryOp(*op, a, b));
}

// logical_right_shift(arg1, arg2): built from shifts and a where
// (ops/logical_shift.h).
Value logicalRightShift(const OpCall& c) {
  BoundArguments args(c.call, {{"arg1", true}, {"arg2", true}}, &c.fusion);
  return Value::fusionVal(ops::logicalRightShift(args.operand("arg1"), args.operand("arg2")));
}

Value ternary(const OpCall& c) {
  if (c.op == "where") {
    BoundArguments args(c.call, {{"pred", true}, {"a", true}, {"b", true}}, &c.fusion);
    return Value::fusionVal(ops::where(args.operand("pred"), args.operand("a"), args.operand("b")));
  }
  if (c.op == "lerp") {
    BoundArguments args(c.call, {{"start", true}, {"end", true}, {"weight", true}}, &c.fusion);
    return Value::fusionVal(
        ops::lerp(args.operand("start"), args.operand("end"), args.operand("weight")));
  }
  if (c.op == "clamp") {
    BoundArguments args(c.call, {{"arg", true}, {"min", true}, {"max", true}}, &c.fusion);
    return Value::fusionVal(
        ops::clamp(args.operand("arg"), args.operand("min"), args.operand("max")));
  }
  // addcmul(arg, t1, t2, value): arg + value * t1 * t2.
  BoundArguments args(c.call, {{"arg", true}, {"t1", true}, {"t2", true}, {"value", false}},
                      &c.fusion);
  Val* value = args.has("value") ? args.operand("value") : c.fusion.constDouble(1.0);
  return Value::fusionVal(
      ops::addcmul(args.operand("arg"), args.operand("t1"), args.operand("t2"), value));
}

Value cast(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"dtype", true}}, &c.fusion);
  Val* x = args.operand("arg");
  const DataType dtype = args.dtype("dtype");
  checkConstantCast(x, dtype);
  return Value::fusionVal(ops::cast(x, dtype));
}

// The axes of a reduction: `dims` as an int or a list, or every axis when
// it is missing (nvFuser's sum(arg, dtype=...) overload).
std::vector<int64_t> reducedAxes(const BoundArguments& args, const ir::TensorView* x) {
  if (args.has("dims")) return args.intList("dims", /*acceptSingle=*/true);
  std::vector<int64_t> all(static_cast<size_t>(x->rank()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

Value reduction(const OpCall& c, ReductionOpType op) {
  // nvFuser's overload reduction(arg, dtype) reduces every axis.
  const bool dtypeSecond =
      c.call.positional.size() >= 2 && c.call.positional[1].value.is(Kind::kDataType);
  std::vector<ParameterSpec> params = {
      {"arg", true}, {"dims", false}, {"keepdim", false}, {"dtype", false}};
  if (dtypeSecond) params = {{"arg", true}, {"dtype", false}};
  // nvfuser_direct's single-axis overload says dim=; old scripts axes= and
  // keep_dim=.
  const EvaluatedCall call = renameKeyword(
      renameKeyword(renameKeyword(c.call, "axes", "dims"), "dim", "dims"), "keep_dim", "keepdim");
  BoundArguments args(call, params, &c.fusion);
  ir::TensorView* x = args.tensor("arg");
  std::vector<int64_t> axes = reducedAxes(args, x);
  bool keepDim = args.boolean("keepdim", false);
  DataType dtype = args.dtype("dtype", DataType::Null);
  return Value::fusionVal(ops::reduction(op, x, axes, keepDim, dtype));
}

double correctionOf(const BoundArguments& args) {
  const double correction = args.number("correction", 1.0);
  // The builder converts an integral correction to int64.
  if (std::isfinite(correction) && std::fabs(correction) > 1e15) {
    args.failAt(*args.find("correction"),
                "correction " + std::to_string(correction) +
                    " is too large; expected a small non-negative number");
  }
  return correction;
}

Value variance(const OpCall& c) {
  const EvaluatedCall call = renameKeyword(c.call, "axes", "dims");
  BoundArguments args(
      call, {{"arg", true}, {"dims", true}, {"correction", false}, {"keepdim", false}}, &c.fusion);
  ir::TensorView* x = args.tensor("arg");
  std::vector<int64_t> axes = args.intList("dims", /*acceptSingle=*/true);
  const double correction = correctionOf(args);
  const bool keepDim = args.boolean("keepdim", false);
  if (c.op == "var") {
    return Value::fusionVal(ops::var(x, axes, correction, keepDim));
  }
  ops::VarMeanResult result = ops::varMean(x, axes, correction, keepDim);
  return Value::tuple({Value::fusionVal(result.var), Value::fusionVal(result.mean)});
}

Value welford(const OpCall& c) {
  const EvaluatedCall call = renameKeyword(c.call, "axes", "dims");
  BoundArguments args(call, {{"arg", true}, {"dims", true}}, &c.fusion);
  ir::TensorView* x = args.tensor("arg");
  ops::WelfordResult result = ops::welford(x, args.intList("dims", /*acceptSingle=*/true));
  return Value::tuple({Value::fusionVal(result.avg), Value::fusionVal(result.varSum),
                       Value::fusionVal(result.count)});
}

Val* operandOf(ir::Fusion& fusion, const Value& value, BinaryOpKind op,
               const SourceLocation& location) {
  if (value.isFusionVal()) return value.val;
  if (ir::Scalar* constant = literalConstant(fusion, value)) return constant;
  throw UserError("unsupported operand for '" + std::string(spelling(op)) +
                      "': " + describeKind(value) + " (expected a tensor, a scalar or a number)",
                  location);
}

std::optional<BinaryOpType> operatorOp(BinaryOpKind op) {
  switch (op) {
    case BinaryOpKind::kAdd: return BinaryOpType::Add;
    case BinaryOpKind::kSub: return BinaryOpType::Sub;
    case BinaryOpKind::kMul: return BinaryOpType::Mul;
    // nvFuser maps Python's `/` on its values to div (C semantics).
    case BinaryOpKind::kDiv: return BinaryOpType::Div;
    case BinaryOpKind::kPow: return BinaryOpType::Pow;
    case BinaryOpKind::kMod: return BinaryOpType::Fmod;
    case BinaryOpKind::kEq: return BinaryOpType::Eq;
    case BinaryOpKind::kNotEq: return BinaryOpType::Ne;
    case BinaryOpKind::kLess: return BinaryOpType::Lt;
    case BinaryOpKind::kLessEq: return BinaryOpType::Le;
    case BinaryOpKind::kGreater: return BinaryOpType::Gt;
    case BinaryOpKind::kGreaterEq: return BinaryOpType::Ge;
    default: return std::nullopt;
  }
}

}  // namespace

Value callFdOp(ir::Fusion& fusion, std::string_view op, const EvaluatedCall& call) {
  for (std::string_view random : kRefusedRandomOps) {
    if (op == random) {
      throw UserError(call.name +
                          " is not supported by FuserLab yet (uniform, normal, "
                          "rand_like and randn_like are)",
                      call.location);
    }
  }
  const OpCall c{fusion, op, call};
  if (auto unaryOp = unaryOpNamed(op)) return unary(c, *unaryOp);
  if (op == "truediv") return binary(c, std::nullopt);
  if (op == "logical_right_shift") return logicalRightShift(c);
  if (auto binaryOp = binaryOpNamed(op)) return binary(c, *binaryOp);
  if (op == "where" || op == "lerp" || op == "clamp" || op == "addcmul") {
    return ternary(c);
  }
  if (op == "cast") return cast(c);
  if (auto reductionOp = reductionOpNamed(op)) return reduction(c, *reductionOp);
  if (op == "var" || op == "var_mean") return variance(c);
  if (op == "welford") return welford(c);
  if (OpHandler handler = findShapeOp(op)) return handler(c);
  if (OpHandler handler = findRandomOp(op)) return handler(c);
  for (std::string_view unsupported : kUnsupportedNvfuserOps) {
    if (op == unsupported) {
      throw UserError(call.name +
                          " is an nvFuser op that FuserLab does not "
                          "support yet",
                      call.location);
    }
  }
  throw UserError("unknown op " + call.name + ": nvFuser has no op of that name", call.location);
}

Value applyOperator(ir::Fusion& fusion, BinaryOpKind op, const Value& lhs, const Value& rhs,
                    const SourceLocation& location) {
  std::optional<BinaryOpType> binaryOp = operatorOp(op);
  if (!binaryOp) {
    throw UserError("'" + std::string(spelling(op)) +
                        "' is not defined for fusion values; use the fd.ops "
                        "function instead",
                    location);
  }
  Val* a = operandOf(fusion, lhs, op, location);
  Val* b = operandOf(fusion, rhs, op, location);
  checkConstantFold(*binaryOp, a, b);
  return Value::fusionVal(ops::binaryOp(*binaryOp, a, b));
}

Value applyUnaryOperator(ir::Fusion& fusion, UnaryOpKind op, const Value& operand,
                         const SourceLocation& location) {
  switch (op) {
    case UnaryOpKind::kPlus: return operand;
    case UnaryOpKind::kNegate:
      checkConstantUnary(UnaryOpType::Neg, operand.val);
      return Value::fusionVal(ops::unaryOp(UnaryOpType::Neg, operand.val));
    case UnaryOpKind::kInvert:
      return Value::fusionVal(ops::unaryOp(UnaryOpType::BitwiseNot, operand.val));
    case UnaryOpKind::kNot: break;
  }
  throw UserError("'not' of " + describeKind(operand) +
                      " is not known while the fusion is defined; use "
                      "fd.ops.logical_not",
                  location);
}

}  // namespace fuserlab::frontend
