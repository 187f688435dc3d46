#include "core/scheduler/matmul/epilogue_matcher.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"
#include "core/scheduler/expr_summary.h"

namespace fuserlab::scheduler {
namespace {

using ir::DataType;
using ir::Expr;
using ir::ExprType;
using ir::TensorView;
using ir::Val;

// Larger regions are not activations worth matching (and keep the walk short).
constexpr size_t kMaxActivationExprs = 64;

// The live exprs of a fusion: a value's uses may include exprs the passes
// left unreachable from the outputs.
class LiveUses {
 public:
  explicit LiveUses(const ir::Fusion& fusion) {
    order_ = fusion.exprsForOutputs();
    for (size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = i;
  }
  std::vector<const Expr*> usesOf(const Val* val) const {
    std::vector<const Expr*> out;
    for (const Expr* use : val->uses()) {
      if (position_.count(use) != 0 && std::find(out.begin(), out.end(), use) == out.end()) {
        out.push_back(use);
      }
    }
    return out;
  }
  const std::vector<Expr*>& order() const { return order_; }
  size_t position(const Expr* expr) const { return position_.at(expr); }

 private:
  std::vector<Expr*> order_;
  // Looked up, never iterated.
  std::unordered_map<const Expr*, size_t> position_;
};

// The single use of `val`, or why the chain cannot continue through it.
std::variant<const Expr*, std::string> soleUse(const LiveUses& live, const Val* val) {
  if (val->isFusionOutput()) {
    return val->name() +
           " is a fusion output, so the call writes it and the "
           "chain ends there";
  }
  const auto uses = live.usesOf(val);
  if (uses.size() != 1) {
    return val->name() + " has " + std::to_string(uses.size()) +
           " uses; only a value with one use can stay inside the call";
  }
  return uses.front();
}

std::optional<double> constantValue(const Val* val) {
  const auto* scalar = val->as<ir::Scalar>();
  if (scalar == nullptr) return std::nullopt;
  ir::ExpressionEvaluator evaluator;
  std::optional<ir::ScalarValue> value;
  try {
    value = evaluator.evaluate(scalar);
  } catch (const UserError&) {
    return std::nullopt;
  }
  if (!value) return std::nullopt;
  if (const auto* d = std::get_if<double>(&*value)) return *d;
  if (const auto* i = std::get_if<int64_t>(&*value)) return static_cast<double>(*i);
  if (const auto* b = std::get_if<bool>(&*value)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

bool isElementwise(const Expr* expr) {
  switch (expr->type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary: return true;
    case ExprType::Cast:
      return expr->output(0)->dtype() == DataType::Float ||
             expr->output(0)->dtype() == DataType::Double;
    default: return false;
  }
}

std::optional<double> applyUnary(ir::UnaryOpType op, double x) {
  using U = ir::UnaryOpType;
  switch (op) {
    case U::Abs: return std::fabs(x);
    case U::Neg: return -x;
    case U::Exp: return std::exp(x);
    case U::Expm1: return std::expm1(x);
    case U::Log: return std::log(x);
    case U::Log1p: return std::log1p(x);
    case U::Sqrt: return std::sqrt(x);
    case U::Rsqrt: return 1.0 / std::sqrt(x);
    case U::Reciprocal: return 1.0 / x;
    case U::Tanh: return std::tanh(x);
    case U::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case U::Relu: return x > 0 ? x : 0.0;
    case U::Erf: return std::erf(x);
    case U::Erfc: return std::erfc(x);
    default: return std::nullopt;
  }
}

std::optional<double> applyBinary(ir::BinaryOpType op, double a, double b) {
  using B = ir::BinaryOpType;
  switch (op) {
    case B::Add: return a + b;
    case B::Sub: return a - b;
    case B::Mul: return a * b;
    case B::Div: return a / b;
    case B::Pow: return std::pow(a, b);
    case B::Maximum: return std::max(a, b);
    case B::Minimum: return std::min(a, b);
    case B::Gt: return a > b ? 1.0 : 0.0;
    case B::Ge: return a >= b ? 1.0 : 0.0;
    case B::Lt: return a < b ? 1.0 : 0.0;
    case B::Le: return a <= b ? 1.0 : 0.0;
    default: return std::nullopt;
  }
}

// f(x) of the region at one point; nullopt if an op has no double meaning.
std::optional<double> evaluateAt(const std::vector<const Expr*>& exprs, const Val* x, const Val* y,
                                 double point) {
  std::unordered_map<const Val*, double> values;  // looked up, never iterated
  values[x] = point;
  auto valueOf = [&](const Val* v) -> std::optional<double> {
    auto it = values.find(v);
    if (it != values.end()) return it->second;
    return constantValue(v);
  };
  for (const Expr* expr : exprs) {
    std::vector<double> in;
    for (const Val* v : expr->inputs()) {
      auto value = valueOf(v);
      if (!value) return std::nullopt;
      in.push_back(*value);
    }
    std::optional<double> out;
    switch (expr->type()) {
      case ExprType::Unary: out = applyUnary(expr->attrs().unaryOp, in.at(0)); break;
      case ExprType::Binary: out = applyBinary(expr->attrs().binaryOp, in.at(0), in.at(1)); break;
      case ExprType::Ternary:
        if (expr->attrs().ternaryOp == ir::TernaryOpType::Where) {
          out = in.at(0) != 0 ? in.at(1) : in.at(2);
        } else if (expr->attrs().ternaryOp == ir::TernaryOpType::Clamp) {
          out = std::clamp(in.at(0), in.at(1), in.at(2));
        }
        break;
      case ExprType::Cast: out = in.at(0); break;
      default: break;
    }
    if (!out) return std::nullopt;
    values[expr->output(0)] = *out;
  }
  return valueOf(y);
}

double tanhGelu(double x) {
  const double kBeta = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(kBeta * (x + 0.044715 * x * x * x)));
}
double erfGelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double relu(double x) { return x > 0 ? x : 0.0; }

// The exprs of `region` that `y` depends on, in order.
std::vector<const Expr*> ancestry(const std::vector<const Expr*>& region, const Val* y) {
  std::unordered_set<const Val*> needed{y};  // membership only
  std::vector<const Expr*> out;
  for (size_t i = region.size(); i-- > 0;) {
    const Expr* expr = region[i];
    if (needed.count(expr->output(0)) == 0) continue;
    out.push_back(expr);
    for (const Val* v : expr->inputs()) needed.insert(v);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string regionSummary(const std::vector<const Expr*>& exprs) {
  std::string out = "{";
  for (size_t i = 0; i < exprs.size(); ++i) {
    out += (i ? ", " : "") + exprs[i]->output(0)->name();
  }
  return out + "}";
}

struct Activation {
  ActivationKind kind = ActivationKind::Other;
  std::vector<const Expr*> exprs;
  const Val* output = nullptr;
};

// The largest closed elementwise region from `x` whose function is known;
// else the largest closed region (kind Other); nullopt when there is none.
std::optional<Activation> findActivation(const LiveUses& live, const Val* x) {
  if (x->isFusionOutput()) return std::nullopt;
  std::vector<const Expr*> region;
  std::unordered_set<const Val*> inRegion{x};  // membership only
  const Expr* def = x->definition();
  const size_t start = def != nullptr ? live.position(def) + 1 : 0;
  for (size_t i = start; i < live.order().size() && region.size() < kMaxActivationExprs; ++i) {
    const Expr* expr = live.order()[i];
    if (!isElementwise(expr) || expr->outputs().size() != 1 ||
        !expr->output(0)->isA<TensorView>()) {
      continue;
    }
    bool readsRegion = false;
    bool allKnown = true;
    for (const Val* v : expr->inputs()) {
      if (inRegion.count(v) != 0) {
        readsRegion = true;
      } else if (v->isA<TensorView>() || !constantValue(v)) {
        allKnown = false;
      }
    }
    if (!readsRegion || !allKnown) continue;
    region.push_back(expr);
    inRegion.insert(expr->output(0));
  }
  std::optional<Activation> fallback;
  for (size_t i = region.size(); i-- > 0;) {
    const Val* y = region[i]->output(0);
    std::vector<const Expr*> exprs = ancestry(region, y);
    // Closed: x and every value but y are used only inside, and are no
    // fusion outputs.
    bool closed = true;
    std::vector<const Val*> inner{x};
    for (const Expr* e : exprs) {
      if (e->output(0) != y) inner.push_back(e->output(0));
    }
    for (const Val* v : inner) {
      if (v->isFusionOutput()) closed = false;
      for (const Expr* use : live.usesOf(v)) {
        if (std::find(exprs.begin(), exprs.end(), use) == exprs.end()) closed = false;
      }
    }
    if (!closed) continue;
    Activation found{classifyActivation(exprs, x, y), exprs, y};
    if (found.kind != ActivationKind::Other) return found;
    if (!fallback) fallback = std::move(found);
  }
  return fallback;
}

// The bias operand `b` of add(x, b): walks back through broadcast, expand,
// set and widening casts with one use to a tensor with one non-broadcast
// axis, the output's last. The walked exprs go to `exprs` (consumers first).
std::variant<const Val*, std::string> biasRoot(const LiveUses& live, const Val* x, const Val* b,
                                               std::vector<const Expr*>& exprs) {
  const auto* btv = b->as<TensorView>();
  const auto* xtv = x->as<TensorView>();
  if (btv == nullptr || xtv == nullptr) {
    return b->name() + " is a scalar, not a bias vector";
  }
  const auto& axes = btv->logicalNoReductions();
  if (axes.size() != xtv->logicalNoReductions().size() || axes.empty()) {
    return b->name() + " does not have the rank of " + x->name();
  }
  for (size_t i = 0; i + 1 < axes.size(); ++i) {
    if (!axes[i]->isBroadcast()) {
      return b->name() + " varies along axis " + std::to_string(i) +
             "; cuBLASLt's bias is one value per output column (the last axis)";
    }
  }
  if (axes.back()->isBroadcast()) {
    return b->name() +
           " is broadcast along the last axis; cuBLASLt's bias is "
           "a vector along it";
  }
  const Val* current = b;
  while (true) {
    const Expr* def = current->definition();
    if (def == nullptr || current->isFusionOutput()) break;
    const bool walkable = def->type() == ExprType::Broadcast || def->type() == ExprType::Expand ||
                          def->type() == ExprType::Set ||
                          (def->type() == ExprType::Cast && current->dtype() == DataType::Float &&
                           ir::isFloatingPoint(def->input(0)->dtype()));
    if (!walkable || live.usesOf(current).size() != 1) break;
    exprs.push_back(def);
    current = def->input(0);
  }
  const auto* root = current->as<TensorView>();
  int nonBroadcast = 0;
  for (const ir::IterDomain* id : root->logicalNoReductions()) {
    nonBroadcast += id->isBroadcast() ? 0 : 1;
  }
  if (nonBroadcast != 1) {
    return "the bias " + root->name() + " has " + std::to_string(nonBroadcast) +
           " non-broadcast axes; cuBLASLt reads a vector";
  }
  return static_cast<const Val*>(root);
}

std::string epilogueName(bool bias, ActivationKind activation) {
  std::string name;
  if (activation == ActivationKind::Relu) name = "RELU";
  if (activation == ActivationKind::TanhGelu) name = "GELU";
  if (bias) name += name.empty() ? "BIAS" : "_BIAS";
  return name.empty() ? "none" : name;
}

}  // namespace

std::string_view toString(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::Relu: return "ReLU";
    case ActivationKind::TanhGelu: return "tanh-GELU";
    case ActivationKind::ErfGelu: return "erf-GELU";
    case ActivationKind::Other: return "other";
  }
  return "other";
}

ActivationKind classifyActivation(const std::vector<const Expr*>& exprs, const Val* x,
                                  const Val* y) {
  struct Candidate {
    ActivationKind kind;
    double (*f)(double);
    bool matches = true;
  };
  Candidate candidates[] = {{ActivationKind::Relu, relu},
                            {ActivationKind::TanhGelu, tanhGelu},
                            {ActivationKind::ErfGelu, erfGelu}};
  // Points in [-6, 6] (where the GELU forms differ most near +-2), off the
  // grid's symmetry so a sign error cannot cancel.
  for (int i = 0; i <= 96; ++i) {
    const double point = -6.0 + 0.125 * i + 0.0137;
    auto value = evaluateAt(exprs, x, y, point);
    if (!value || !std::isfinite(*value)) return ActivationKind::Other;
    for (Candidate& c : candidates) {
      const double expected = c.f(point);
      if (std::fabs(*value - expected) > 1e-5 * (1.0 + std::fabs(expected))) {
        c.matches = false;
      }
    }
  }
  for (const Candidate& c : candidates) {
    if (c.matches) return c.kind;
  }
  return ActivationKind::Other;
}

MatmulMatch matchMatmulEpilogue(const ir::Fusion& fusion, const Expr& call) {
  FL_ASSERT(call.type() == ExprType::Matmul || call.type() == ExprType::Linear,
            "matchMatmulEpilogue of ", call.toString());
  const LiveUses live(fusion);
  MatmulMatch match;
  match.call = &call;
  const Val* result = call.output(0);
  const DataType operandDtype = call.input(0)->dtype();
  const bool linearBias =
      call.type() == ExprType::Linear && call.inputs().size() > 2 && call.input(2) != nullptr;
  if (linearBias) {
    match.bias = call.input(2);
    match.steps.push_back(
        {exprSummary(call), true,
         "linear's bias " + call.input(2)->name() + " is cuBLASLt's BIAS epilogue"});
  }

  // The chain, tentatively; committed below.
  const Expr* upcast = nullptr;
  std::vector<const Expr*> biasExprs;  // the add last
  const Val* biasRoot_ = nullptr;
  std::optional<Activation> activation;
  const Expr* downcast = nullptr;
  const Val* x = result;
  std::string stop;  // why the chain ended

  // A fusion output ends the chain: the call writes it.
  auto endsAt = [&](const Val* v) {
    if (!v->isFusionOutput()) return false;
    stop = v->name() + " is a fusion output, so the call writes it and the chain ends there";
    return true;
  };
  // The single use of `v` if it has one (the next op of a straight chain).
  auto nextOp = [&](const Val* v) -> const Expr* {
    auto use = soleUse(live, v);
    const Expr* const* expr = std::get_if<const Expr*>(&use);
    return expr != nullptr ? *expr : nullptr;
  };

  if (!endsAt(x)) {
    const Expr* use = nextOp(x);
    if (use != nullptr && use->type() == ExprType::Cast &&
        use->output(0)->dtype() == DataType::Float && ir::isReducedPrecision(x->dtype())) {
      upcast = use;
      x = upcast->output(0);
    }
  }

  if (stop.empty() && !endsAt(x) && !linearBias) {
    const Expr* use = nextOp(x);
    if (use != nullptr && use->type() == ExprType::Binary &&
        use->attrs().binaryOp == ir::BinaryOpType::Add &&
        (use->input(0) == x) != (use->input(1) == x)) {
      const Val* other = use->input(0) == x ? use->input(1) : use->input(0);
      std::vector<const Expr*> walked;
      auto root = biasRoot(live, x, other, walked);
      if (auto* why = std::get_if<std::string>(&root)) {
        match.steps.push_back({exprSummary(*use), false, "not a bias add: " + *why});
        stop = "the add is not a bias";
      } else {
        biasRoot_ = std::get<const Val*>(root);
        std::reverse(walked.begin(), walked.end());
        biasExprs = walked;
        biasExprs.push_back(use);
        x = use->output(0);
      }
    }
  }

  if (stop.empty() && !endsAt(x)) {
    activation = findActivation(live, x);
    if (activation && activation->kind != ActivationKind::Relu &&
        activation->kind != ActivationKind::TanhGelu) {
      const std::string why =
          activation->kind == ActivationKind::ErfGelu
              ? "erf-GELU; cuBLASLt's GELU is the tanh approximation, which "
                "differs from it by up to 5e-4, so it runs in a following kernel"
              : "an elementwise function that is neither ReLU nor GELU; it runs "
                "in a following kernel";
      match.steps.push_back({regionSummary(activation->exprs), false, why});
      activation.reset();
      stop = "the activation is not one cuBLASLt computes";
    } else if (activation) {
      x = activation->output;
    }
  }

  if (stop.empty() && !endsAt(x)) {
    const Expr* use = nextOp(x);
    if (use != nullptr && use->type() == ExprType::Cast &&
        ir::isReducedPrecision(use->output(0)->dtype())) {
      if (use->output(0)->dtype() == operandDtype) {
        downcast = use;
      } else {
        match.steps.push_back({exprSummary(*use), false,
                               "cuBLASLt writes the operands' dtype (" +
                                   std::string(ir::toString(operandDtype)) + ") or Float, not " +
                                   std::string(ir::toString(use->output(0)->dtype()))});
      }
    } else if (use == nullptr) {
      stop = std::get<std::string>(soleUse(live, x));
    }
  }

  // Commit. A widening cast stays only if the chain narrows again.
  DataType outputDtype = downcast != nullptr  ? downcast->output(0)->dtype()
                         : activation         ? activation->output->dtype()
                         : !biasExprs.empty() ? biasExprs.back()->output(0)->dtype()
                         : upcast != nullptr  ? DataType::Float
                                              : result->dtype();
  if (upcast != nullptr && downcast == nullptr) {
    match.steps.push_back({exprSummary(*upcast), false,
                           "the chain ends in Float: computing it in the call would skip the "
                           "rounding of the " +
                               std::string(ir::toString(result->dtype())) +
                               " matmul result that the fusion asks for; the epilogue runs in a "
                               "following kernel"});
    upcast = nullptr;
    biasExprs.clear();
    biasRoot_ = nullptr;
    activation.reset();
    outputDtype = result->dtype();
  }
  if (biasRoot_ != nullptr && biasRoot_->dtype() != outputDtype &&
      biasRoot_->dtype() != DataType::Float) {
    match.steps.push_back({exprSummary(*biasExprs.back()), false,
                           "the bias " + biasRoot_->name() + " is " +
                               std::string(ir::toString(biasRoot_->dtype())) +
                               "; cuBLASLt takes a bias of the output's dtype or Float"});
    biasExprs.clear();
    biasRoot_ = nullptr;
    activation.reset();
    downcast = nullptr;
    outputDtype = upcast != nullptr ? DataType::Float : result->dtype();
    if (upcast != nullptr) {  // nothing left to narrow: drop the upcast too
      upcast = nullptr;
      outputDtype = result->dtype();
    }
  }

  match.exprs.push_back(&call);
  if (upcast != nullptr) {
    match.exprs.push_back(upcast);
    match.steps.push_back(
        {exprSummary(*upcast), true, "the widened result is the call's fp32 accumulator"});
  }
  if (!biasExprs.empty()) {
    match.exprs.insert(match.exprs.end(), biasExprs.begin(), biasExprs.end());
    match.bias = biasRoot_;
    match.steps.push_back(
        {exprSummary(*biasExprs.back()), true,
         "a bias add of " + biasRoot_->name() + " along the last axis: cuBLASLt's BIAS epilogue"});
  }
  if (activation) {
    match.exprs.insert(match.exprs.end(), activation->exprs.begin(), activation->exprs.end());
    match.steps.push_back({regionSummary(activation->exprs), true,
                           std::string(toString(activation->kind)) +
                               (activation->kind == ActivationKind::TanhGelu
                                    ? ": matches cuBLASLt's GELU (tanh approximation) at every "
                                      "sample point"
                                    : ": cuBLASLt's RELU epilogue")});
  }
  if (downcast != nullptr) {
    match.exprs.push_back(downcast);
    match.steps.push_back({exprSummary(*downcast), true,
                           "the call writes " + std::string(ir::toString(outputDtype)) +
                               " directly: no Float round trip"});
  }
  std::sort(match.exprs.begin(), match.exprs.end(),
            [&](const Expr* a, const Expr* b) { return live.position(a) < live.position(b); });
  match.output = match.exprs.back()->output(0)->as<TensorView>();
  match.outputDtype = outputDtype;
  match.epilogue =
      epilogueName(match.bias != nullptr, activation ? activation->kind : ActivationKind::Other);
  if (!stop.empty()) {
    match.steps.push_back({"after " + match.output->name(), false, "the epilogue ends: " + stop});
  }
  return match;
}

}  // namespace fuserlab::scheduler
