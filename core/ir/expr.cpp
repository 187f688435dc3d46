#include "core/ir/expr.h"

#include <array>

#include "core/ir/fusion.h"

namespace fuserlab::ir {

// The name tables are static: a constexpr local array is copied onto the
// stack at every call (720 bytes for the unary ops), and the script reader
// looks an fd.ops name up through these (issue 43).
std::string_view toString(ExprType type) {
  static constexpr std::array<std::string_view, 31> kNames = {
      "Unary",       "Binary",    "Ternary",
      "Cast",        "Reduction", "Welford",
      "Broadcast",   "Expand",    "Reshape",
      "Permute",     "Squeeze",   "Slice",
      "Pad",         "Cat",       "Set",
      "SegmentSet",  "Full",      "Iota",
      "IndexSelect", "Gather",    "Matmul",
      "Linear",      "Sdpa",      "Random",
      "SdpaBwd",     "Scatter",   "IndexPutAccumulate",
      "Embedding",   "Argsort",   "TopK",
      "Scan"};
  return kNames.at(static_cast<size_t>(type));
}

std::string_view toString(UnaryOpType op) {
  static constexpr std::array<std::string_view, 45> kNames = {
      "abs",      "neg",      "exp",      "exp2",        "expm1",      "log",     "log1p",  "log2",
      "log10",    "sqrt",     "rsqrt",    "reciprocal",  "sin",        "cos",     "tan",    "asin",
      "acos",     "atan",     "sinh",     "cosh",        "tanh",       "asinh",   "acosh",  "atanh",
      "sigmoid",  "silu",     "relu",     "erf",         "erfc",       "erfinv",  "lgamma", "floor",
      "ceil",     "round",    "trunc",    "frac",        "sign",       "signbit", "isnan",  "isinf",
      "isfinite", "isposinf", "isneginf", "logical_not", "bitwise_not"};
  return kNames.at(static_cast<size_t>(op));
}

std::string_view toString(BinaryOpType op) {
  static constexpr std::array<std::string_view, 26> kNames = {"add",
                                                              "sub",
                                                              "mul",
                                                              "div",
                                                              "pow",
                                                              "fmod",
                                                              "remainder",
                                                              "minimum",
                                                              "maximum",
                                                              "atan2",
                                                              "eq",
                                                              "ne",
                                                              "lt",
                                                              "le",
                                                              "gt",
                                                              "ge",
                                                              "logical_and",
                                                              "logical_or",
                                                              "bitwise_and",
                                                              "bitwise_or",
                                                              "bitwise_xor",
                                                              "bitwise_left_shift",
                                                              "bitwise_right_shift",
                                                              "ceilDiv",
                                                              "gcd",
                                                              "nextafter"};
  return kNames.at(static_cast<size_t>(op));
}

std::string_view toString(TernaryOpType op) {
  static constexpr std::array<std::string_view, 4> kNames = {"where", "lerp", "clamp", "addcmul"};
  return kNames.at(static_cast<size_t>(op));
}

std::string_view toString(ReductionOpType op) {
  static constexpr std::array<std::string_view, 5> kNames = {"sum", "prod", "max", "min",
                                                             "logsumexp"};
  return kNames.at(static_cast<size_t>(op));
}

std::string_view toString(RandomOpType op) {
  return op == RandomOpType::Uniform ? "uniform" : "normal";
}

bool isPredicate(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr: return true;
    default: return false;
  }
}

bool isPredicate(UnaryOpType op) {
  switch (op) {
    case UnaryOpType::IsNan:
    case UnaryOpType::IsInf:
    case UnaryOpType::IsFinite:
    case UnaryOpType::IsPosInf:
    case UnaryOpType::IsNegInf:
    case UnaryOpType::Signbit:
    case UnaryOpType::LogicalNot: return true;
    default: return false;
  }
}

std::string Expr::opName() const {
  switch (type_) {
    case ExprType::Unary: return std::string(ir::toString(attrs_.unaryOp));
    case ExprType::Binary: return std::string(ir::toString(attrs_.binaryOp));
    case ExprType::Ternary: return std::string(ir::toString(attrs_.ternaryOp));
    case ExprType::Reduction: return std::string(ir::toString(attrs_.reductionOp));
    case ExprType::Cast: return "cast";
    case ExprType::Welford: return "welford";
    case ExprType::Broadcast: return "broadcast";
    case ExprType::Expand: return "expand";
    case ExprType::Reshape: return "reshape";
    case ExprType::Permute: return "permute";
    case ExprType::Squeeze: return "squeeze";
    case ExprType::Slice: return "slice";
    case ExprType::Pad: return "pad";
    case ExprType::Cat: return "cat";
    case ExprType::Set: return "set";
    case ExprType::SegmentSet: return "segment_set";
    case ExprType::Full: return "full";
    case ExprType::Iota: return "iota";
    case ExprType::IndexSelect: return "index_select";
    case ExprType::Gather: return "take_along_axis";
    case ExprType::Matmul: return "matmul";
    case ExprType::Linear: return "linear";
    case ExprType::Sdpa: return "sdpfa_fwd";
    case ExprType::Random: return std::string(ir::toString(attrs_.randomOp));
    case ExprType::SdpaBwd: return "sdpfa_bwd";
    case ExprType::Scatter: return "scatter";
    case ExprType::IndexPutAccumulate: return "index_put_accumulate";
    case ExprType::Embedding: return "embedding_fwd";
    case ExprType::Argsort: return "argsort";
    case ExprType::TopK: return "topk";
    case ExprType::Scan:
      switch (attrs_.binaryOp) {
        case BinaryOpType::Add: return "cumsum";
        case BinaryOpType::Mul: return "cumprod";
        case BinaryOpType::Minimum: return "cummin";
        case BinaryOpType::Maximum: return "cummax";
        default: return "scan_" + std::string(ir::toString(attrs_.binaryOp));
      }
  }
  return "?";
}

namespace {

std::string describe(const Val* val) {
  if (const auto* tv = val->as<TensorView>()) return tv->toString();
  return val->name();
}

std::string intList(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string pythonBool(bool value) { return value ? "True" : "False"; }

}  // namespace

std::string Expr::toString() const {
  std::string out;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (i) out += ", ";
    out += describe(outputs_[i]);
  }
  out += "\n   = " + opName() + "(";
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i) out += ", ";
    out += inputs_[i]->name();
  }
  switch (type_) {
    case ExprType::Reduction:
    case ExprType::Welford:
    case ExprType::Squeeze:
    case ExprType::Permute: out += ", dims=" + intList(attrs_.axes); break;
    case ExprType::Broadcast: {
      out += ", is_broadcast_dim=[";
      for (size_t i = 0; i < attrs_.broadcastFlags.size(); ++i) {
        out += i ? ", " : "";
        out += attrs_.broadcastFlags[i] ? "True" : "False";
      }
      out += "]";
      break;
    }
    case ExprType::Cat:
    case ExprType::IndexSelect:
    case ExprType::Gather:
    case ExprType::Scatter:
    case ExprType::Scan: out += ", dim=" + std::to_string(attrs_.dim); break;
    case ExprType::Argsort:
      out += ", dim=" + std::to_string(attrs_.dim) +
             ", descending=" + pythonBool(attrs_.flags.at(0)) +
             ", stable=" + pythonBool(attrs_.flags.at(1));
      break;
    case ExprType::TopK:
      out += ", dim=" + std::to_string(attrs_.dim) + ", largest=" + pythonBool(attrs_.flags.at(0)) +
             ", sorted=" + pythonBool(attrs_.flags.at(1));
      break;
    case ExprType::Cast: out += ", dtype=" + std::string(ir::toString(outputs_[0]->dtype())); break;
    case ExprType::Full:
    case ExprType::Iota:
    case ExprType::Random: out += ", dtype=" + std::string(ir::toString(attrs_.dtype)); break;
    default: break;
  }
  return out + ")";
}

}  // namespace fuserlab::ir
