#include "core/codegen/expression_emitter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <variant>

#include "core/codegen/operator_text.h"
#include "core/ir/error.h"
#include "core/ir/random_op.h"

namespace fuserlab::codegen {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::Expr;
using ir::ExprType;
using ir::Scalar;
using ir::TensorView;
using ir::TernaryOpType;
using ir::UnaryOpType;

// The reference's compute dtype of values of `dtype` (reference_internal.h).
DataType computeDtypeOf(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float: return DataType::Float;
    case DataType::Double: return DataType::Double;
    default: return DataType::Int;
  }
}

bool isPredicateExpr(const Expr& expr) {
  return (expr.type() == ExprType::Binary && ir::isPredicate(expr.attrs().binaryOp)) ||
         (expr.type() == ExprType::Unary && ir::isPredicate(expr.attrs().unaryOp));
}

// The compute dtype of an elementwise expr, as the reference's computeDtypeOf:
// operands (Where's condition excluded) and, unless a predicate, the output,
// with the wrapped-number rule for scalars (and for 0-dim tensors beside a
// ranked one, as ops::promoteElementwise).
DataType elementwiseComputeDtype(const Expr& expr) {
  std::vector<DataType> tensors;
  std::vector<DataType> scalars;
  const bool where =
      expr.type() == ExprType::Ternary && expr.attrs().ternaryOp == TernaryOpType::Where;
  const bool ranked =
      std::any_of(expr.inputs().begin(), expr.inputs().end(), [](const ir::Val* in) {
        const auto* tv = in->as<TensorView>();
        return tv != nullptr && tv->rank() > 0;
      });
  for (size_t i = where ? 1 : 0; i < expr.inputs().size(); ++i) {
    const ir::Val* in = expr.input(i);
    const auto* tv = in->as<TensorView>();
    const bool asTensor = tv != nullptr && (!ranked || tv->rank() > 0);
    (asTensor ? tensors : scalars).push_back(in->dtype());
  }
  if (!isPredicateExpr(expr)) tensors.push_back(expr.output(0)->dtype());
  return computeDtypeOf(ir::promoteOperands(tensors, scalars));
}

std::string doubleLiteral(double value) {
  if (std::isnan(value)) return "__longlong_as_double(0x7ff8000000000000ll)";
  if (std::isinf(value)) {
    return value > 0 ? "__longlong_as_double(0x7ff0000000000000ll)"
                     : "__longlong_as_double((long long)0xfff0000000000000ull)";
  }
  char buffer[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string intLiteral(int64_t value) {
  if (value == INT64_MIN) return "((int64_t)0x8000000000000000ull)";
  return "(int64_t)" + std::to_string(value) + "ll";
}

std::string constantLiteral(const Scalar& scalar) {
  const ir::ScalarValue& value = scalar.value();
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    if (scalar.dtype() == DataType::Bool) return *i != 0 ? "true" : "false";
    if (ir::isFloatingPoint(scalar.dtype())) {
      return doubleLiteral(static_cast<double>(*i));
    }
    return intLiteral(*i);
  }
  const double d = std::get<double>(value);
  if (scalar.dtype() == DataType::Bool) return d != 0 ? "true" : "false";
  if (!ir::isFloatingPoint(scalar.dtype())) {
    return intLiteral(static_cast<int64_t>(d));
  }
  return doubleLiteral(d);
}

// Normalizes a possibly negative axis attribute.
int64_t normalizeAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

std::string valueKey(const TensorView* tv, const ElementIndex& index) {
  std::string text = tv->name() + '\x1e';
  for (const std::string& i : index) {
    text += i;
    text += '\x1f';
  }
  return text;
}

}  // namespace

DataType evaluationDtype(DataType dtype) {
  if (dtype == DataType::Bool) return DataType::Bool;
  return ir::isFloatingPoint(dtype) ? DataType::Double : DataType::Int;
}

std::string_view valueType(DataType dtype) {
  switch (dtype) {
    case DataType::Bool: return "bool";
    case DataType::Int32: return "int32_t";
    case DataType::Int: return "int64_t";
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float: return "float";
    case DataType::Double: return "double";
    case DataType::Null: break;
  }
  FL_ASSERT(false, "no value type for DataType::Null");
}

std::string_view elementType(DataType dtype) {
  switch (dtype) {
    case DataType::Half: return "fl::half";
    case DataType::BFloat16: return "fl::bfloat16";
    default: return valueType(dtype);
  }
}

std::string_view scalarParameterType(DataType dtype) { return valueType(dtype); }

bool mentionsIdentifier(const std::string& text, const std::string& name) {
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool before = at > 0 && isWord(text[at - 1]);
    const bool after = at + name.size() < text.size() && isWord(text[at + name.size()]);
    if (!before && !after) return true;
  }
  return false;
}

std::string convertValue(const std::string& expression, DataType from, DataType to) {
  // A half/bf16 value is kept as a float already rounded to its dtype.
  if (from == to) return expression;
  switch (to) {
    case DataType::Half: return "fl::round_to_half(" + expression + ")";
    case DataType::BFloat16: return "fl::round_to_bf16(" + expression + ")";
    default: break;
  }
  if (valueType(from) == valueType(to)) return expression;
  switch (to) {
    case DataType::Bool: return "fl::to_bool(" + expression + ")";
    case DataType::Int32: return "fl::to_int32(" + expression + ")";
    case DataType::Int: return "fl::to_int64(" + expression + ")";
    case DataType::Float: return "fl::to_float(" + expression + ")";
    case DataType::Double: return "fl::to_double(" + expression + ")";
    default: break;
  }
  FL_ASSERT(false, "no conversion to ", ir::toString(to));
}

Approximations approximationsFor(const ir::Fusion& fusion, const ir::Val* value) {
  const std::vector<ir::Val*> outputs = fusion.outputVals();
  Approximations result;
  result.tanh = result.exp = true;
  std::vector<const ir::Val*> pending = {value};
  std::set<const ir::Val*> seen;
  while (!pending.empty()) {
    const ir::Val* v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second) continue;
    if (std::find(outputs.begin(), outputs.end(), v) != outputs.end()) {
      result.tanh = result.tanh && v->dtype() == DataType::BFloat16;
      result.exp = result.exp && isNarrowFloat(v->dtype());
    }
    for (const ir::Expr* use : v->uses()) {
      for (const ir::Val* out : use->outputs()) pending.push_back(out);
    }
  }
  result.div = result.exp;
  return result;
}

Approximations ExpressionEmitter::approximationsOf(const ir::Val* value) {
  if (!approximate_) return Approximations{};
  auto it = approximations_.find(value);
  if (it == approximations_.end()) {
    it = approximations_.emplace(value, approximationsFor(fusion_, value)).first;
  }
  return it->second;
}

ExpressionEmitter::ExpressionEmitter(const ir::Fusion& fusion, ExpressionHooks hooks, bool indexed)
    : fusion_(fusion), hooks_(std::move(hooks)), indexed_(indexed) {
  FL_ASSERT(static_cast<bool>(hooks_.loadLeaf), "ExpressionEmitter needs loadLeaf");
  if (!hooks_.isLeaf) {
    hooks_.isLeaf = [](const TensorView* tv) { return tv->definition() == nullptr; };
  }
  scopes_.emplace_back();
}

std::string ExpressionEmitter::takeCode() {
  std::string code = std::move(code_);
  code_.clear();
  return code;
}

void ExpressionEmitter::pushScope() {
  scopes_.emplace_back();
  branches_.push_back({});
}

void ExpressionEmitter::popScope() {
  FL_ASSERT(scopes_.size() > 1, "popScope without pushScope");
  scopes_.pop_back();
  branches_.pop_back();
}

bool isNarrowFloat(DataType dtype) {
  return dtype == DataType::Half || dtype == DataType::BFloat16;
}

DataType ExpressionEmitter::exactIn(const std::string& value, DataType dtype) const {
  if (isNarrowFloat(dtype)) return dtype;
  if (dtype != DataType::Float && dtype != DataType::Double) return DataType::Null;
  const auto it = exact_.find(value);
  return it == exact_.end() ? DataType::Null : it->second;
}

void ExpressionEmitter::clear(bool resetNames) {
  scopes_.clear();
  scopes_.emplace_back();
  branches_.clear();
  if (resetNames) {
    exact_.clear();
    nameUses_.clear();
    temporaries_ = 0;
  }
}

void ExpressionEmitter::line(const std::string& text) {
  code_.append(static_cast<size_t>(indent_), ' ');
  code_ += text;
  code_ += '\n';
}

std::string ExpressionEmitter::temporary(const std::string& prefix) {
  return prefix + std::to_string(temporaries_++);
}

std::string ExpressionEmitter::variableFor(const TensorView* tv) {
  const std::string base = tv->name() + "_v";
  const int uses = nameUses_[base]++;
  return uses == 0 ? base : base + "_" + std::to_string(uses);
}

std::string ExpressionEmitter::storedValue(const TensorView* tv, const ElementIndex& index) {
  const ir::Expr* def = tv->definition();
  const bool narrow = tv->dtype() == DataType::Half || tv->dtype() == DataType::BFloat16;
  if (def != nullptr && narrow && def->type() == ir::ExprType::Cast) {
    const auto* in = def->input(0)->as<TensorView>();
    if (in != nullptr && in->dtype() == DataType::Float) return value(in, index);
  }
  return value(tv, index);
}

const std::string* ExpressionEmitter::known(const std::string& key) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    if (auto it = scope->find(key); it != scope->end()) return &it->second;
  }
  return nullptr;
}

std::string ExpressionEmitter::value(const TensorView* tv, const ElementIndex& index) {
  std::string key = valueKey(tv, index);
  if (const std::string* variable = known(key)) return *variable;
  if (hooks_.isLeaf(tv)) {
    std::string result = hooks_.loadLeaf(tv, index);
    scopes_.back()[key] = result;
    return result;
  }
  computeChain(tv, index, key);
  return *known(key);
}

namespace {

// Whether compute() of `expr` reads its tensor operands only through
// value(producerIndex(...)) in input order, with nothing emitted or scoped
// between them, so that computing those operands first changes nothing:
// elementwise ops read every input, the single-input ops input 0.
// Pad, cat, index_select and gather open branches or emit statements
// between their operands; full, iota and random read no tensor.
size_t operandsComputedFirst(const Expr& expr) {
  switch (expr.type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary: return expr.inputs().size();
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Squeeze:
    case ExprType::Permute:
    case ExprType::Reshape:
    case ExprType::Slice: return 1;
    default: return 0;
  }
}

}  // namespace

void ExpressionEmitter::computeChain(const TensorView* tv, const ElementIndex& index,
                                     std::string key) {
  // The recursion value -> compute -> operand -> value, unrolled onto an
  // explicit stack so that a chain of 100,000 ops needs no call stack: a
  // frame's operands are computed (in compute()'s order, with the scalars it
  // reads at the same points, so that names and kernel parameters come out
  // as they would) before compute() runs and finds them remembered. Ops
  // that compute() must take in one piece (operandsComputedFirst) recurse
  // through value(); only nested pad/cat/gather regions deepen the stack,
  // and their nesting is bounded.
  struct Frame {
    const TensorView* tv;
    ElementIndex index;
    std::string key;
    std::string variable;
    size_t nextInput = 0;
  };
  FL_CHECK(regionDepth_ < kMaxNestedRegions, "code generation: ", tv->name(),
           " is nested inside more than ", kMaxNestedRegions,
           " pad, cat, index_select or gather ops; split the fusion");
  ++regionDepth_;
  struct DepthGuard {
    int& depth;
    ~DepthGuard() { --depth; }
  } guard{regionDepth_};

  std::vector<Frame> stack;
  stack.push_back({tv, index, std::move(key), variableFor(tv)});
  while (!stack.empty()) {
    Frame& top = stack.back();
    const Expr& expr = *top.tv->definition();
    if (top.nextInput < operandsComputedFirst(expr)) {
      const ir::Val* in = expr.input(top.nextInput++);
      const auto* inTv = in->as<TensorView>();
      if (inTv == nullptr) {
        if (const auto* s = in->as<Scalar>()) scalar(s);
        continue;
      }
      ElementIndex inIndex = producerIndex(expr, inTv, top.index);
      std::string inKey = valueKey(inTv, inIndex);
      if (known(inKey) != nullptr) continue;
      const Expr* def = inTv->definition();
      if (hooks_.isLeaf(inTv) || def == nullptr || operandsComputedFirst(*def) == 0) {
        value(inTv, inIndex);
        continue;
      }
      std::string variable = variableFor(inTv);
      stack.push_back({inTv, std::move(inIndex), std::move(inKey), std::move(variable)});
      continue;
    }
    std::string result = compute(top.tv, top.index, top.variable);
    scopes_.back()[top.key] = std::move(result);
    stack.pop_back();
  }
}

std::string ExpressionEmitter::extent(const ir::IterDomain* id) {
  return scalar(id->extentForIteration());
}

std::string ExpressionEmitter::scalar(const Scalar* s) {
  if (s->isConst()) return constantLiteral(*s);
  if (const Expr* def = s->definition()) {
    // One C++ expression, nested as deep as the scalar ops: bounded, for the
    // call stack here and for NVRTC's parser.
    FL_CHECK(scalarDepth_ < kMaxScalarExprDepth, "code generation: the scalar ", s->name(),
             " is computed by more than ", kMaxScalarExprDepth,
             " nested scalar ops inside the kernel; compute it on the host and pass "
             "it as an input");
    ++scalarDepth_;
    struct DepthGuard {
      int& depth;
      ~DepthGuard() { --depth; }
    } guard{scalarDepth_};
    return scalarExpr(*def, s);
  }
  FL_ASSERT(static_cast<bool>(hooks_.symbolicScalar), "no hook for the symbolic scalar ",
            s->name());
  return hooks_.symbolicScalar(s);
}

std::string ExpressionEmitter::scalarExpr(const Expr& expr, const Scalar* out) {
  // Scalars evaluate in int64_t, double or bool (evaluator.h); inputs are
  // converted to the output's evaluation type as the evaluator does.
  const DataType outEval = evaluationDtype(out->dtype());
  auto input = [&](size_t i, DataType to) {
    const auto* in = expr.input(i)->as<Scalar>();
    FL_ASSERT(in != nullptr, "scalar expr with a tensor input: ", expr.toString());
    return convertValue(scalar(in), evaluationDtype(in->dtype()), to);
  };
  switch (expr.type()) {
    case ExprType::Cast: return "(" + input(0, outEval) + ")";
    case ExprType::Unary: {
      const DataType compute = evaluationDtype(expr.input(0)->dtype()) == DataType::Bool
                                   ? DataType::Int
                                   : evaluationDtype(expr.input(0)->dtype());
      auto [text, resultDtype] = unaryOp(expr.attrs().unaryOp, compute, input(0, compute));
      return "(" + convertValue(text, resultDtype, outEval) + ")";
    }
    case ExprType::Binary: {
      DataType compute = ir::promote(evaluationDtype(expr.input(0)->dtype()),
                                     evaluationDtype(expr.input(1)->dtype()));
      if (compute == DataType::Bool) compute = DataType::Int;
      auto [text, resultDtype] =
          binaryOp(expr.attrs().binaryOp, compute, input(0, compute), input(1, compute));
      return "(" + convertValue(text, resultDtype, outEval) + ")";
    }
    case ExprType::Ternary: {
      if (expr.attrs().ternaryOp == TernaryOpType::Where) {
        return "(" + input(0, DataType::Bool) + " ? " + input(1, outEval) + " : " +
               input(2, outEval) + ")";
      }
      const DataType compute = outEval == DataType::Bool ? DataType::Int : outEval;
      std::string a = input(0, compute), b = input(1, compute), c = input(2, compute);
      std::string text;
      switch (expr.attrs().ternaryOp) {
        case TernaryOpType::Lerp: text = "fl::lerp(" + a + ", " + b + ", " + c + ")"; break;
        case TernaryOpType::Clamp: text = "fl::clamp(" + a + ", " + b + ", " + c + ")"; break;
        default:
          text = "fl::add(" + a + ", fl::mul(fl::mul(" + input(3, compute) + ", " + b + "), " + c +
                 "))";
          break;
      }
      return "(" + convertValue(text, compute, outEval) + ")";
    }
    default: break;
  }
  FL_USER_ERROR("code generation cannot compute the scalar ", out->name(), " defined by ",
                expr.opName(), " inside a kernel; compute it on the host and pass it as an input");
}

std::string ExpressionEmitter::operand(const ir::Val* val, const ElementIndex& index,
                                       DataType computeDtype) {
  if (const auto* tv = val->as<TensorView>()) {
    return convertValue(value(tv, index), tv->dtype(), computeDtype);
  }
  // A scalar operand is rounded to its own dtype first (the reference makes
  // it a 0-dim tensor of that dtype), then converted to the compute type.
  const auto* s = val->as<Scalar>();
  const std::string own = convertValue(scalar(s), evaluationDtype(s->dtype()), s->dtype());
  return convertValue(own, s->dtype(), computeDtype);
}

std::string ExpressionEmitter::operandBool(const ir::Val* val, const ElementIndex& index) {
  return operand(val, index, DataType::Bool);
}

ElementIndex ExpressionEmitter::producerIndex(const Expr& expr, const TensorView* producer,
                                              const ElementIndex& index) {
  if (!indexed_) return {};
  const auto& producerAxes = producer->logicalNoReductions();
  const size_t rank = producerAxes.size();
  ElementIndex result;
  switch (expr.type()) {
    case ExprType::Broadcast: {
      const std::vector<bool>& flags = expr.attrs().broadcastFlags;
      for (size_t i = 0; i < flags.size() && i < index.size(); ++i) {
        if (!flags[i]) result.push_back(index[i]);
      }
      break;
    }
    case ExprType::Squeeze: {
      std::vector<bool> removed(rank, false);
      for (int64_t axis : expr.attrs().axes) {
        removed[static_cast<size_t>(normalizeAxis(axis, static_cast<int64_t>(rank)))] = true;
      }
      size_t next = 0;
      for (size_t a = 0; a < rank; ++a) {
        result.push_back(removed[a] ? "0" : index.at(next++));
      }
      break;
    }
    case ExprType::Permute: {
      result.assign(rank, "0");
      const auto& axes = expr.attrs().axes;
      for (size_t i = 0; i < axes.size(); ++i) {
        result[static_cast<size_t>(normalizeAxis(axes[i], static_cast<int64_t>(rank)))] =
            index.at(i);
      }
      break;
    }
    case ExprType::Reshape: return reshapeIndex(producer, expr.output(0)->as<TensorView>(), index);
    case ExprType::Slice: result = sliceIndex(expr, producer, index); break;
    case ExprType::Gather:
    case ExprType::IndexSelect: FL_ASSERT(false, "indexing ops map their indices in compute()");
    default: {
      // Elementwise ops, casts, copies and expand: same axes; the producer's
      // broadcast axes stay at 0. A 0-dim operand of an elementwise op (which
      // combines with any rank, as a scalar does) is its only element.
      if (rank == 0) break;
      FL_ASSERT(rank == index.size(), expr.toString(), ": operand rank ", rank,
                " differs from the output's ", index.size());
      for (size_t a = 0; a < rank; ++a) {
        result.push_back(producerAxes[a]->isBroadcast() ? "0" : index[a]);
      }
      break;
    }
  }
  // Broadcast axes of the producer are read at 0 whatever the consumer says,
  // and so are the axes an expand makes broadcast: a producer axis of extent
  // 1 that is not marked broadcast (an iota of length 1) expanded to 64 was
  // read at the consumer's position 0..63 (difftest seed 352802).
  const auto& consumerAxes = expr.output(0)->as<TensorView>() != nullptr
                                 ? expr.output(0)->as<TensorView>()->logicalNoReductions()
                                 : producerAxes;
  for (size_t a = 0; a < result.size() && a < rank; ++a) {
    const bool expandedHere = expr.type() == ExprType::Expand && a < consumerAxes.size() &&
                              consumerAxes[a]->isBroadcast();
    if (producerAxes[a]->isBroadcast() || expandedHere) result[a] = "0";
  }
  return result;
}

std::string ExpressionEmitter::randomValue(const Expr& expr, const TensorView* out,
                                           const ElementIndex& index) {
  // The element's linear index in the output's logical shape, row-major (the
  // one the CPU reference numbers elements by); broadcast axes add nothing.
  const auto& axes = out->logicalNoReductions();
  FL_ASSERT(index.size() == axes.size(), expr.toString(), ": ", index.size(), " indices for ",
            axes.size(), " axes");
  std::string linear;
  for (size_t a = 0; a < axes.size(); ++a) {
    if (axes[a]->isBroadcast()) continue;
    const std::string position = "(uint64_t)(" + index[a] + ")";
    linear = linear.empty()
                 ? position
                 : "(" + linear + " * (uint64_t)" + extent(axes[a]) + " + " + position + ")";
  }
  if (linear.empty()) linear = "(uint64_t)0";
  const std::string seed = "(uint64_t)(" + scalar(ir::randomSeed(expr)) + ")";
  const std::string offset = "(uint64_t)(" + scalar(ir::randomOffset(expr)) + ")";
  const std::string element = seed + ", " + offset + ", " + linear;
  const bool standard = ir::isStandardRandom(expr);
  const bool uniform = expr.attrs().randomOp == ir::RandomOpType::Uniform;
  const DataType dtype = out->dtype();
  // Parameters go through double, as the reference reads them.
  const bool isDouble = dtype == DataType::Double;
  auto parameter = [&](const Scalar* p) {
    const std::string value = "(double)(" + scalar(p) + ")";
    return isDouble ? value : "(float)" + value;
  };
  const std::string a = parameter(ir::randomParameterA(expr));
  const std::string b = parameter(ir::randomParameterB(expr));
  if (isDouble) {
    if (uniform) {
      return standard ? "fl::rng::uniformStandardD(" + element + ")"
                      : "fl::rng::uniformRangeD(" + element + ", " + a + ", " + b + ")";
    }
    return standard ? "fl::rng::normalStandardD(" + element + ")"
                    : "fl::rng::normalGeneralD(" + element + ", " + a + ", " + b + ")";
  }
  std::string round = "fl::rng::RoundIdentity()";
  if (dtype == DataType::Half) round = "fl::rng::RoundToHalf()";
  if (dtype == DataType::BFloat16) round = "fl::rng::RoundToBFloat16()";
  FL_ASSERT(ir::isFloatingPoint(dtype), expr.toString(), ": a random op of dtype ",
            ir::toString(dtype));
  const std::string narrow = isNarrowFloat(dtype) ? "true" : "false";
  if (uniform) {
    return standard ? "fl::rng::uniformStandardF(" + element + ", " + round + ")"
                    : "fl::rng::uniformRangeF(" + element + ", " + a + ", " + b + ", " + narrow +
                          ", " + round + ")";
  }
  return standard ? "fl::rng::normalStandardF(" + element + ", " + round + ")"
                  : "fl::rng::normalGeneralF(" + element + ", " + a + ", " + b + ", " + round + ")";
}

std::string ExpressionEmitter::compute(const TensorView* tv, const ElementIndex& index,
                                       const std::string& variable) {
  const Expr* def = tv->definition();
  FL_ASSERT(def != nullptr, tv->name(), " has no definition and is not a leaf");
  const Expr& expr = *def;
  const DataType out = tv->dtype();
  const std::string type(valueType(out));
  auto assign = [&](const std::string& text) {
    line("const " + type + " " + variable + " = " + text + ";");
    return variable;
  };
  auto needsIndex = [&]() {
    FL_CHECK(indexed_, "code generation: ", expr.opName(), " (", tv->name(),
             ") needs element indices, which this kernel does not track");
  };
  auto producerValue = [&](size_t i) {
    const auto* in = expr.input(i)->as<TensorView>();
    FL_ASSERT(in != nullptr, expr.toString(), ": input ", i, " is not a tensor");
    return std::make_pair(in, value(in, producerIndex(expr, in, index)));
  };

  switch (expr.type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary: {
      const DataType compute = elementwiseComputeDtype(expr);
      std::vector<std::string> args;
      const bool where =
          expr.type() == ExprType::Ternary && expr.attrs().ternaryOp == TernaryOpType::Where;
      for (size_t i = 0; i < expr.inputs().size(); ++i) {
        const ir::Val* in = expr.input(i);
        ElementIndex inIndex;
        if (const auto* inTv = in->as<TensorView>()) {
          inIndex = producerIndex(expr, inTv, index);
        }
        args.push_back(where && i == 0 ? operandBool(in, inIndex) : operand(in, inIndex, compute));
      }
      std::pair<std::string, DataType> result;
      if (expr.type() == ExprType::Unary) {
        UnaryOpType op = expr.attrs().unaryOp;
        if (op == UnaryOpType::BitwiseNot && expr.input(0)->dtype() == DataType::Bool) {
          op = UnaryOpType::LogicalNot;  // as in PyTorch
        }
        result = unaryOp(op, compute, args[0]);
        const Approximations approximate = approximationsOf(expr.output(0));
        if (op == UnaryOpType::Tanh && compute == DataType::Float && approximate.tanh) {
          result.first = "fl::tanh_approx(" + args[0] + ")";
        }
        if (op == UnaryOpType::Exp && compute == DataType::Float && approximate.exp) {
          result.first = "fl::exp_approx(" + args[0] + ")";
        }
        if ((op == UnaryOpType::Sigmoid || op == UnaryOpType::Silu) && compute == DataType::Float &&
            approximate.exp && approximate.div) {
          result.first =
              std::string(op == UnaryOpType::Sigmoid ? "fl::sigmoid_approx(" : "fl::silu_approx(") +
              args[0] + ")";
        }
        // The sign of a half/bf16 value changes no other bit: the result is
        // exact in the same dtype (no rounding back to it).
        const auto* in = expr.input(0)->as<TensorView>();
        if ((op == UnaryOpType::Neg || op == UnaryOpType::Abs) && in != nullptr &&
            ir::isFloatingPoint(compute) && ir::isFloatingPoint(out)) {
          const DataType exact = exactIn(value(in, producerIndex(expr, in, index)), in->dtype());
          if (exact != DataType::Null && (exact == out || !isNarrowFloat(out))) {
            exact_[variable] = exact;
            return assign(exact == out ? result.first
                                       : convertValue(result.first, result.second, out));
          }
        }
      } else if (expr.type() == ExprType::Binary) {
        result = binaryOp(expr.attrs().binaryOp, compute, args[0], args[1]);
        if (expr.attrs().binaryOp == BinaryOpType::Div && compute == DataType::Float &&
            approximationsOf(expr.output(0)).div) {
          result.first = "fl::fdiv_approx(" + args[0] + ", " + args[1] + ")";
        }
      } else {
        switch (expr.attrs().ternaryOp) {
          case TernaryOpType::Where:
            result = {"(" + args[0] + " ? " + args[1] + " : " + args[2] + ")", compute};
            break;
          case TernaryOpType::Lerp:
            result = {"fl::lerp(" + args[0] + ", " + args[1] + ", " + args[2] + ")", compute};
            break;
          case TernaryOpType::Clamp:
            result = {"fl::clamp(" + args[0] + ", " + args[1] + ", " + args[2] + ")", compute};
            break;
          case TernaryOpType::Addcmul:
            result = {"fl::add(" + args[0] + ", fl::mul(fl::mul(" + args[3] + ", " + args[1] +
                          "), " + args[2] + "))",
                      compute};
            break;
        }
      }
      return assign(convertValue(result.first, result.second, out));
    }
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Squeeze:
    case ExprType::Permute:
    case ExprType::Reshape:
    case ExprType::Slice: {
      if (expr.type() == ExprType::Slice) needsIndex();
      auto [in, text] = producerValue(0);
      // A value exactly representable in `out` (a bf16 value cast to float
      // and back) needs no rounding; a float keeps the narrow dtype its
      // value is exact in for the casts after it.
      const DataType exact = exactIn(text, in->dtype());
      if (exact != DataType::Null && (exact == out || ir::isFloatingPoint(out))) {
        exact_[variable] = isNarrowFloat(out) ? out : exact;
        return assign(exact == out ? text : convertValue(text, in->dtype(), out));
      }
      if (isNarrowFloat(out)) exact_[variable] = out;
      return assign(convertValue(text, in->dtype(), out));
    }
    case ExprType::Full: {
      const auto* fill = expr.inputs().back()->as<Scalar>();
      return assign(convertValue(scalar(fill), evaluationDtype(fill->dtype()), out));
    }
    case ExprType::Iota: {
      needsIndex();
      const DataType compute = computeDtypeOf(out);
      auto param = [&](size_t i, int64_t fallback) {
        if (expr.inputs().size() <= i || expr.input(i) == nullptr) {
          return convertValue(intLiteral(fallback), DataType::Int, compute);
        }
        return operand(expr.input(i), {}, compute);
      };
      const std::string start = param(1, 0);
      const std::string step = param(2, 1);
      const std::string position =
          convertValue("(int64_t)(" + index.at(0) + ")", DataType::Int, compute);
      return assign(convertValue("fl::add(" + start + ", fl::mul(" + position + ", " + step + "))",
                                 compute, out));
    }
    case ExprType::Random: needsIndex(); return assign(randomValue(expr, tv, index));
    case ExprType::Pad: needsIndex(); return emitPad(expr, tv, index, variable);
    case ExprType::Cat: needsIndex(); return emitCat(expr, tv, index, variable);
    case ExprType::IndexSelect:
    case ExprType::Gather: {
      needsIndex();
      const auto* x = expr.input(0)->as<TensorView>();
      const auto* indices = expr.input(1)->as<TensorView>();
      const auto& xAxes = x->logicalNoReductions();
      const int64_t rank = static_cast<int64_t>(xAxes.size());
      const int64_t dim = normalizeAxis(expr.attrs().dim, rank);
      ElementIndex indicesIndex;
      if (expr.type() == ExprType::IndexSelect) {
        indicesIndex = {index.at(static_cast<size_t>(dim))};
      } else {
        indicesIndex = index;
        const auto& idxAxes = indices->logicalNoReductions();
        for (size_t a = 0; a < idxAxes.size(); ++a) {
          if (idxAxes[a]->isBroadcast()) indicesIndex[a] = "0";
        }
      }
      const std::string raw =
          convertValue(value(indices, indicesIndex), indices->dtype(), DataType::Int);
      // An index outside the axis is an error on the CPU; here it is clamped
      // so that a bad index never reads outside the tensor.
      const std::string position = temporary("gathered_idx");
      const std::string size = extent(xAxes[static_cast<size_t>(dim)]);
      line("const int64_t " + position + " = fl::clamp(" + raw + ", (int64_t)0, " + size +
           " - 1);");
      ElementIndex xIndex;
      for (int64_t a = 0; a < rank; ++a) {
        if (a == dim) {
          xIndex.push_back(position);
        } else if (xAxes[static_cast<size_t>(a)]->isBroadcast()) {
          xIndex.push_back("0");
        } else {
          xIndex.push_back(index.at(static_cast<size_t>(a)));
        }
      }
      return assign(convertValue(value(x, xIndex), x->dtype(), out));
    }
    default: break;
  }
  FL_USER_ERROR("code generation does not support ", expr.opName(), " (", tv->name(),
                ") in this kernel");
}

}  // namespace fuserlab::codegen
