#include "core/ir/fusion.h"

#include <algorithm>
#include <queue>
#include <unordered_set>

#include "core/ir/error.h"
#include "core/ir/printer.h"

namespace fuserlab::ir {
namespace {

// Folds integer arithmetic on constants; nullopt where the result would
// overflow or divide by zero (the expression is then kept symbolic and the
// evaluator reports the problem when it is evaluated).
std::optional<int64_t> foldInt(BinaryOpType op, int64_t a, int64_t b) {
  int64_t result = 0;
  switch (op) {
    case BinaryOpType::Add:
      if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
      return result;
    case BinaryOpType::Sub:
      if (__builtin_sub_overflow(a, b, &result)) return std::nullopt;
      return result;
    case BinaryOpType::Mul:
      if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
      return result;
    case BinaryOpType::Div:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return a / b;
    case BinaryOpType::CeilDiv: {
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      // Exact ceiling for any signs: truncation rounds toward zero.
      int64_t q = a / b;
      return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
    }
    case BinaryOpType::Maximum: return std::max(a, b);
    case BinaryOpType::Minimum: return std::min(a, b);
    default: return std::nullopt;
  }
}

}  // namespace

Fusion::Fusion() = default;
Fusion::~Fusion() = default;

int64_t Fusion::nextNameIndex(ValKind kind) {
  return kind == ValKind::TensorView ? tensorCount_++ : scalarCount_++;
}

Scalar* Fusion::newScalar(DataType dtype) {
  auto* scalar = new Scalar(this, dtype, std::monostate{}, static_cast<int64_t>(vals_.size()),
                            nextNameIndex(ValKind::Scalar));
  vals_.emplace_back(scalar);
  return scalar;
}

Scalar* Fusion::newConstant(ScalarValue value, DataType dtype) {
  FL_ASSERT(!std::holds_alternative<std::monostate>(value), "a constant needs a value");
  auto* scalar = new Scalar(this, dtype, std::move(value), static_cast<int64_t>(vals_.size()),
                            /*nameIndex=*/-1);  // constants print as their value
  vals_.emplace_back(scalar);
  return scalar;
}

Scalar* Fusion::scalarBinary(BinaryOpType op, Scalar* a, Scalar* b) {
  auto ca = a->constInt();
  auto cb = b->constInt();
  bool ints = isIntegral(a->dtype()) && isIntegral(b->dtype());
  if (ints && ca && cb) {
    if (auto folded = foldInt(op, *ca, *cb)) return constInt(*folded);
  }
  if (op == BinaryOpType::Mul && cb == 1 && ints) return a;
  if (op == BinaryOpType::Mul && ca == 1 && ints) return b;
  if ((op == BinaryOpType::Add || op == BinaryOpType::Sub) && cb == 0 && ints) {
    return a;
  }
  if ((op == BinaryOpType::Div || op == BinaryOpType::CeilDiv) && cb == 1 && ints) {
    return a;
  }
  DataType dtype = isPredicate(op) ? DataType::Bool : promoteOperands({}, {a->dtype(), b->dtype()});
  Scalar* out = newScalar(dtype);
  ExprAttrs attrs;
  attrs.binaryOp = op;
  newExpr(ExprType::Binary, {a, b}, {out}, attrs);
  return out;
}

IterDomain* Fusion::newIterDomain(Scalar* extent, IterType type, Scalar* expandedExtent) {
  FL_ASSERT(extent != nullptr, "an IterDomain needs an extent");
  auto* id =
      new IterDomain(this, static_cast<int64_t>(iterDomains_.size()), extent, type, expandedExtent);
  iterDomains_.emplace_back(id);
  return id;
}

IterDomain* Fusion::cloneIterDomain(const IterDomain* id) {
  return cloneIterDomain(id, id->iterType());
}

IterDomain* Fusion::cloneIterDomain(const IterDomain* id, IterType type) {
  IterDomain* copy = newIterDomain(id->extent(), type, id->expandedExtent());
  copy->parallelize(id->parallelType());
  return copy;
}

TensorView* Fusion::newTensorView(std::vector<IterDomain*> logical, DataType dtype) {
  TensorDomain domain;
  domain.logical = std::move(logical);
  return newTensorView(std::move(domain), dtype);
}

TensorView* Fusion::newTensorView(TensorDomain domain, DataType dtype) {
  if (domain.loop.empty()) domain.loop = domain.logical;
  auto* tv = new TensorView(this, dtype, std::move(domain), static_cast<int64_t>(vals_.size()),
                            nextNameIndex(ValKind::TensorView));
  vals_.emplace_back(tv);
  if (tv->domain().contiguity.empty()) tv->setContiguity({});
  return tv;
}

TensorView* Fusion::newTensorViewWithoutDomain(DataType dtype) {
  auto* tv = new TensorView(this, dtype, TensorDomain{}, static_cast<int64_t>(vals_.size()),
                            nextNameIndex(ValKind::TensorView));
  vals_.emplace_back(tv);
  return tv;
}

void Fusion::setDomain(TensorView* tv, TensorDomain domain) {
  tv->domain_ = std::move(domain);
  tv->keepLogicalNoReductions();
}

void Fusion::setExtent(IterDomain* id, Scalar* extent) {
  FL_ASSERT(id->fusion() == this && extent->fusion() == this, "setExtent across fusions");
  id->extent_ = extent;
}

void Fusion::dropDeviceSharding(TensorView* tv) {
  FL_ASSERT(tv->fusion() == this, "dropDeviceSharding across fusions");
  TensorDomain& d = tv->domain_;
  d.allocation.clear();
  d.loop = d.logical;
  d.contiguity.clear();
  for (const IterDomain* id : d.logical) {
    d.contiguity.push_back(id->isBroadcast() || id->isReduction() ? std::nullopt
                                                                  : std::optional<bool>(true));
  }
  tv->setDeviceMesh(DeviceMesh());
}

Expr* Fusion::newExpr(ExprType type, std::vector<Val*> inputs, std::vector<Val*> outputs,
                      ExprAttrs attrs) {
  for (Val* out : outputs) {
    FL_ASSERT(out->definition_ == nullptr, out->name(), " already has a definition");
    FL_ASSERT(!isInput(out), out->name(), " is a fusion input");
  }
  auto* expr = new Expr(this, static_cast<int64_t>(exprs_.size()), type, std::move(inputs),
                        std::move(outputs), std::move(attrs));
  exprs_.emplace_back(expr);
  for (Val* in : expr->inputs()) {
    // The expr is new: it can be in `uses` only from this loop (an input
    // given twice, `mul(t, t)`), so the last entry tells. Searching the
    // whole list cost O(uses) per op: quadratic for an input read by
    // thousands of ops.
    auto& uses = in->uses_;
    if (uses.empty() || uses.back() != expr) uses.push_back(expr);
  }
  for (Val* out : expr->outputs()) out->definition_ = expr;
  return expr;
}

std::pair<IterDomain*, IterDomain*> Fusion::split(IterDomain* in, Scalar* factor, bool innerSplit) {
  FL_CHECK(!in->hasExpandedExtent(), "cannot split the expanded broadcast axis ", in->toString());
  Scalar* rest = scalarBinary(BinaryOpType::CeilDiv, in->extent(), factor);
  IterDomain* outer = newIterDomain(innerSplit ? rest : factor, in->iterType());
  IterDomain* inner = newIterDomain(innerSplit ? factor : rest, in->iterType());
  addTransform(TransformKind::Split, {in}, {outer, inner}, factor, innerSplit);
  return {outer, inner};
}

IterDomain* Fusion::merge(IterDomain* outer, IterDomain* inner) {
  IterType type = IterType::Iteration;
  if (outer->isReduction() || inner->isReduction()) type = IterType::Reduction;
  if (outer->isBroadcast() && inner->isBroadcast()) type = IterType::Broadcast;
  Scalar* extent = scalarBinary(BinaryOpType::Mul, outer->extent(), inner->extent());
  IterDomain* out = newIterDomain(extent, type);
  addTransform(TransformKind::Merge, {outer, inner}, {out}, nullptr, true);
  return out;
}

IterDomainTransform* Fusion::addTransform(TransformKind kind, std::vector<IterDomain*> inputs,
                                          std::vector<IterDomain*> outputs, Scalar* factor,
                                          bool innerSplit) {
  auto* transform =
      new IterDomainTransform(kind, std::move(inputs), std::move(outputs), factor, innerSplit);
  transforms_.emplace_back(transform);
  for (IterDomain* in : transform->inputs()) in->uses_.push_back(transform);
  for (IterDomain* out : transform->outputs()) {
    FL_ASSERT(out->definition_ == nullptr, out->toString(), " already has a definition");
    out->definition_ = transform;
  }
  return transform;
}

void Fusion::addInput(Val* val) {
  FL_CHECK(val->definition() == nullptr, val->name(),
           " is computed in the fusion and cannot be an input");
  FL_CHECK(!isInput(val), val->name(), " is already an input");
  inputs_.push_back(val);
}

void Fusion::addOutput(Val* val, Val* aliasOf) {
  if (aliasOf != nullptr) {
    FL_CHECK(isInput(aliasOf), "alias_input ", describeVal(aliasOf), " must be a fusion input");
    FL_CHECK(aliasOf->dtype() == val->dtype(), "output ", describeVal(val), " (",
             ir::toString(val->dtype()), ") cannot alias input ", describeVal(aliasOf),
             " of dtype ", ir::toString(aliasOf->dtype()));
  }
  outputs_.push_back({val, aliasOf});
}

std::vector<Val*> Fusion::outputVals() const {
  std::vector<Val*> vals;
  vals.reserve(outputs_.size());
  for (const auto& out : outputs_) vals.push_back(out.val);
  return vals;
}

bool Fusion::isInput(const Val* val) const {
  return std::find(inputs_.begin(), inputs_.end(), val) != inputs_.end();
}

bool Fusion::isOutput(const Val* val) const {
  return std::any_of(outputs_.begin(), outputs_.end(),
                     [val](const FusionOutput& o) { return o.val == val; });
}

int32_t Fusion::addScriptLocation(SourceLocation location) {
  if (!scriptLocations_) scriptLocations_ = std::make_shared<std::vector<SourceLocation>>();
  scriptLocations_->push_back(std::move(location));
  return static_cast<int32_t>(scriptLocations_->size() - 1);
}

const SourceLocation* Fusion::scriptLocationOf(const Val* val) const {
  const int32_t index = val->scriptLocationIndex();
  if (index < 0 || !scriptLocations_ || static_cast<size_t>(index) >= scriptLocations_->size()) {
    return nullptr;
  }
  return &(*scriptLocations_)[static_cast<size_t>(index)];
}

std::vector<Expr*> Fusion::exprsForOutputs() const {
  // Mark the live exprs walking back from the outputs.
  std::vector<uint8_t> live(exprs_.size(), 0);
  std::vector<Val*> stack = outputVals();
  // Val ids are their positions in vals_ (vals are never removed).
  std::vector<uint8_t> seen(vals_.size(), 0);
  while (!stack.empty()) {
    Val* val = stack.back();
    stack.pop_back();
    const auto id = static_cast<size_t>(val->id());
    FL_ASSERT(id < seen.size() && vals_[id].get() == val, val->name(),
              " is not a val of this fusion");
    if (seen[id]) continue;
    seen[id] = true;
    Expr* def = val->definition();
    if (def == nullptr || live[def->id()]) continue;
    live[def->id()] = true;
    for (Val* in : def->inputs()) stack.push_back(in);
  }
  // When every live expr reads only values of live exprs with smaller ids
  // (as built, before passes reorder uses), id order is topological and is
  // exactly what Kahn's algorithm below would return: at each step the
  // smallest unvisited id is ready and the smallest ready one.
  bool idOrderIsTopological = true;
  for (const auto& expr : exprs_) {
    if (!live[expr->id()]) continue;
    for (Val* in : expr->inputs()) {
      const Expr* def = in->definition();
      if (def != nullptr && live[def->id()] && def->id() >= expr->id()) {
        idOrderIsTopological = false;
        break;
      }
    }
    if (!idOrderIsTopological) break;
  }
  if (idOrderIsTopological) {
    std::vector<Expr*> order;
    for (const auto& expr : exprs_) {
      if (live[expr->id()]) order.push_back(expr.get());
    }
    return order;
  }
  // Kahn's algorithm, smallest id first among ready exprs.
  std::vector<int> pending(exprs_.size(), 0);
  for (const auto& expr : exprs_) {
    if (!live[expr->id()]) continue;
    for (Val* in : expr->inputs()) {
      if (in->definition() != nullptr && live[in->definition()->id()]) {
        ++pending[expr->id()];
      }
    }
  }
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> ready;
  for (const auto& expr : exprs_) {
    if (live[expr->id()] && pending[expr->id()] == 0) ready.push(expr->id());
  }
  std::vector<Expr*> order;
  while (!ready.empty()) {
    Expr* expr = exprs_[ready.top()].get();
    ready.pop();
    order.push_back(expr);
    for (Val* out : expr->outputs()) {
      for (Expr* use : out->uses()) {
        if (!live[use->id()]) continue;
        // An expr reading the same val twice counted it twice.
        for (Val* in : use->inputs()) {
          if (in == out && --pending[use->id()] == 0) ready.push(use->id());
        }
      }
    }
  }
  FL_ASSERT(order.size() == static_cast<size_t>(std::count(live.begin(), live.end(), true)),
            "the fusion has a cycle");
  return order;
}

void Fusion::replaceExprInput(Expr* expr, Val* oldVal, Val* newVal) {
  bool replaced = false;
  for (Val*& in : expr->inputs_) {
    if (in == oldVal) {
      in = newVal;
      replaced = true;
    }
  }
  if (!replaced) return;
  auto& oldUses = oldVal->uses_;
  oldUses.erase(std::remove(oldUses.begin(), oldUses.end(), expr), oldUses.end());
  auto& newUses = newVal->uses_;
  if (std::find(newUses.begin(), newUses.end(), expr) == newUses.end()) {
    newUses.push_back(expr);
  }
}

void Fusion::replaceAllUsesWith(Val* oldVal, Val* newVal) {
  const std::vector<Expr*> uses = oldVal->uses();
  for (Expr* use : uses) replaceExprInput(use, oldVal, newVal);
  for (auto& out : outputs_) {
    if (out.val == oldVal) out.val = newVal;
  }
}

void Fusion::replaceOutput(size_t index, Val* newVal) {
  FL_ASSERT(index < outputs_.size(), "output ", index, " out of range");
  outputs_[index].val = newVal;
}

void Fusion::removeExpr(Expr* expr) {
  for (Val* in : expr->inputs()) {
    auto& uses = in->uses_;
    uses.erase(std::remove(uses.begin(), uses.end(), expr), uses.end());
  }
  for (Val* out : expr->outputs()) {
    if (out->definition_ == expr) out->definition_ = nullptr;
  }
  const int64_t position = expr->id();
  FL_ASSERT(exprs_.at(position).get() == expr, "expr ids must be positions");
  exprs_.erase(exprs_.begin() + position);
  for (size_t i = position; i < exprs_.size(); ++i) {
    exprs_[i]->id_ = static_cast<int64_t>(i);
  }
}

std::vector<TensorView*> Fusion::tensorInputs() const {
  std::vector<TensorView*> tensors;
  for (Val* in : inputs_) {
    if (auto* tv = in->as<TensorView>()) tensors.push_back(tv);
  }
  return tensors;
}

std::string Fusion::toString() const { return printFusionIr(*this); }

}  // namespace fuserlab::ir
