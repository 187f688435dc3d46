// writeScript: a Fusion as an nvFuser FusionDefinition script that reads back
// (through readScript) to the same IR, names and numbering included.
//
// Reading a statement runs an op builder, and a builder may create more than
// one Expr, Scalar or IterDomain; creation order decides every T/i number in
// the printed IR. So the writer emits one statement per object the *user* made
// (an input, a tensor Expr, a scalar Expr whose result is an operand), in
// creation order, and leaves out what the builders make on their own: the
// extent arithmetic of reshape/slice/pad/cat, slice's bound normalization and
// var_mean's division. Operands are spelled as literals where the reader
// recreates the constant in place, as `S<n> = T<k>.size(i)` for extents of
// tensors already written, and as `S<n>` variables otherwise; T and S numbers
// are the IR's, so the script and the printed IR name things alike.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/frontend/python_literals.h"
#include "core/frontend/script.h"
#include "core/frontend/statement_order.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ops/reduction_domain.h"

namespace fuserlab::frontend {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

constexpr int64_t kAfterEverything = std::numeric_limits<int64_t>::max();

//! The dtype a bare Python literal of this constant reads back as.
bool isLiteralDtype(DataType dtype) {
  return dtype == DataType::Int || dtype == DataType::Double || dtype == DataType::Bool;
}

std::string valueLiteral(const Scalar* s) { return scalarLiteral(s->value()); }

bool hasTensorOutput(const Expr* expr) {
  return std::any_of(expr->outputs().begin(), expr->outputs().end(),
                     [](const Val* v) { return v->isA<TensorView>(); });
}

//! A fused `fd.ops.var_mean`: the Welford, the division of its var_sum by
//! N - correction that the builder appends, and the correction.
struct VarMean {
  const Expr* division = nullptr;
  std::string correction;
};

//! Where a scalar can be read from with `T.size(i)`: the first named tensor
//! (in creation order) that has it as the extent of a logical axis.
struct ExtentSource {
  const TensorView* tv = nullptr;
  int64_t axis = 0;
};

class ScriptWriter {
 public:
  explicit ScriptWriter(const ir::Fusion& fusion);

  //! The statements of the definition function, each on its own line.
  std::vector<std::string> body();

 private:
  // --- deciding what to write -------------------------------------------
  void checkExpressible() const;
  void findVarMeans();
  std::optional<std::string> varMeanCorrection(const Expr* welford, const Expr* division) const;
  void findExtentSources();
  std::vector<Statement> statements() const;
  bool needsInputsFirst() const;
  //! Whether the statement at `anchor` comes after `tv`'s.
  bool writtenBefore(const TensorView* tv, int64_t anchor) const {
    return tv != nullptr && ((inputsFirst_ && tv->isFusionInput()) || tv->id() < anchor);
  }
  bool writesExpr(const Expr* expr) const;
  //! Marks what spelling `val` in a statement at `anchor` takes: a use of a
  //! constant, or a scalar Expr that must be written as its own statement.
  void need(const Val* val, int64_t anchor);
  bool isDefinedConstant(const Scalar* s) const;

  // --- writing ------------------------------------------------------------
  void write(const Statement& statement);
  void writeInputTensor(const TensorView* tv);
  void writeExpr(const Expr* expr);
  void writeOutputs();
  std::string call(const std::string& op, const std::string& args) const {
    return "fd.ops." + op + "(" + args + ")";
  }
  void assign(const std::vector<const Val*>& outputs, const std::string& rhs);
  //! The spelling of an operand (while planning: records what it needs).
  std::string operand(const Val* val);
  std::string operandList(const Expr* expr, size_t begin, size_t end);
  std::string sliceBound(const Expr* slice, size_t input, size_t axis);
  std::string scalarVar(const Val* s) const {
    return "S" + std::to_string(scalarOrdinal_[s->id()]);
  }
  std::string name(const Val* val) const {
    return val->isA<TensorView>() ? val->name() : scalarVar(val);
  }

  const ir::Fusion& fusion_;
  bool planning_ = true;
  int64_t anchor_ = 0;  // creation position of the statement being written
  bool inputsFirst_ = false;
  std::vector<int64_t> scalarOrdinal_;           // by Val id: the n of i<n>
  std::vector<bool> namedTensor_;                // by Val id
  std::vector<ExtentSource> extentSource_;       // by Val id
  std::vector<int> constantUses_;                // by Val id
  std::vector<bool> hasVariable_;                // by Val id: written as S<n>
  std::vector<bool> userScalarExpr_;             // by Expr id
  std::vector<bool> foldedExpr_;                 // by Expr id: var_mean's division
  std::vector<std::optional<VarMean>> varMean_;  // by Expr id of the Welford
  std::vector<std::string> lines_;
};

ScriptWriter::ScriptWriter(const ir::Fusion& fusion)
    : fusion_(fusion),
      scalarOrdinal_(fusion.vals().size(), 0),
      namedTensor_(fusion.vals().size(), false),
      extentSource_(fusion.vals().size()),
      constantUses_(fusion.vals().size(), 0),
      hasVariable_(fusion.vals().size(), false),
      userScalarExpr_(fusion.exprs().size(), false),
      foldedExpr_(fusion.exprs().size(), false),
      varMean_(fusion.exprs().size()) {}  // scalarOrdinal_ is numbered by body()

void ScriptWriter::checkExpressible() const {
  for (const auto& val : fusion_.vals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    const ir::TensorDomain& d = tv->domain();
    FL_CHECK(tv->deviceMesh().empty(), "writeScript: ", tv->toString(),
             " is placed on a device mesh; the FusionDefinition dialect this "
             "writer speaks cannot express device meshes yet");
    for (const auto* ids : {&d.logical, &d.allocation, &d.loop}) {
      for (const IterDomain* id : *ids) {
        FL_CHECK(!id->isDeviceDim(), "writeScript: ", tv->toString(),
                 " has the device-parallel (DID) axis ", id->toString(),
                 "; the FusionDefinition dialect cannot express sharded "
                 "tensors yet");
      }
    }
    if (tv->isFusionInput()) {
      // An expanded axis is written as its expanded extent with contiguity
      // None, which define_tensor reads back as an expanded broadcast.
      for (const IterDomain* id : d.logical) {
        FL_CHECK(id->isBroadcast() || !id->extent()->isConstInt(1), "writeScript: the input ",
                 tv->toString(), " has the axis ", id->toString(),
                 "; define_tensor declares size-1 axes as "
                 "broadcast");
      }
    }
    if (d.hasAllocation()) {
      FL_CHECK(!tv->strideOrder().empty(), "writeScript: ", tv->toString(),
               " has the allocation domain ", idList(d.allocation),
               " made by Split/Merge; the FusionDefinition dialect cannot "
               "express such allocation domains yet (only a stride order)");
      const Expr* def = tv->definition();
      FL_CHECK(tv->isFusionInput() || tv->isFusionOutput() ||
                   (def != nullptr && def->type() == ExprType::Set),
               "writeScript: ", tv->toString(),
               " has a permuted allocation domain but is neither an input, "
               "an output nor made by fd.ops.stride_order; the "
               "FusionDefinition dialect cannot express that");
    }
    FL_CHECK(d.loop == d.logical, "writeScript: ", tv->toString(),
             " has the scheduled loop domain ", idList(d.loop),
             "; the FusionDefinition dialect cannot express schedules");
  }
}

// Welford; [extent arithmetic]; var = var_sum / (N - correction) is what
// ops::varMean builds. When var_sum and N feed nothing else, one var_mean
// statement recreates exactly those Exprs (and their scalars).
void ScriptWriter::findVarMeans() {
  const auto& exprs = fusion_.exprs();
  for (size_t i = 0; i < exprs.size(); ++i) {
    const Expr* welford = exprs[i].get();
    if (welford->type() != ExprType::Welford) continue;
    const Expr* next = nullptr;
    for (size_t j = i + 1; j < exprs.size() && next == nullptr; ++j) {
      if (hasTensorOutput(exprs[j].get())) next = exprs[j].get();
    }
    const Val* varSum = welford->output(1);
    const Val* count = welford->output(2);
    if (next == nullptr || next->type() != ExprType::Binary ||
        next->attrs().binaryOp != BinaryOpType::Div || next->input(0) != varSum ||
        varSum->uses().size() != 1 || varSum->isFusionOutput() || !count->uses().empty() ||
        count->isFusionOutput()) {
      continue;
    }
    if (auto correction = varMeanCorrection(welford, next)) {
      varMean_[welford->id()] = VarMean{next, *correction};
      foldedExpr_[next->id()] = true;
    }
  }
}

// Replays the divisor ops::varMean computes (N as a product of the reduced
// extents with scalarBinary's folding, then N - correction) against the
// division's actual divisor, and returns the correction that gives it.
std::optional<std::string> ScriptWriter::varMeanCorrection(const Expr* welford,
                                                           const Expr* division) const {
  const auto* in = welford->input(0)->as<TensorView>();
  const auto* divisor = division->input(1)->as<Scalar>();
  if (in == nullptr || divisor == nullptr) return std::nullopt;
  const auto& logical = in->logicalNoReductions();
  // The product so far: a constant value, or a Scalar of the fusion.
  std::optional<int64_t> constCount = 1;
  const Scalar* count = nullptr;
  // The output of the Mul Expr scalarBinary made for lhs * rhs, where lhs is
  // `count`, or a fresh constant of value `constCount` when that is set.
  auto mulOutput = [&](const Scalar* rhs) -> const Scalar* {
    for (const Expr* use : rhs->uses()) {
      if (use->type() != ExprType::Binary || use->attrs().binaryOp != BinaryOpType::Mul ||
          use->input(1) != rhs) {
        continue;
      }
      const auto* lhs = use->input(0)->as<Scalar>();
      if (constCount ? lhs->constInt() == constCount : lhs == count) {
        return use->output(0)->as<Scalar>();
      }
    }
    return nullptr;
  };
  for (int64_t axis : welford->attrs().axes) {
    const Scalar* extent = logical.at(axis)->extentForIteration();
    auto constExtent = extent->constInt();
    if (constCount && constExtent) {
      constCount = *constCount * *constExtent;
    } else if (constCount == 1) {
      constCount.reset();
      count = extent;
    } else if (!constCount && constExtent == 1) {
      continue;
    } else {
      count = mulOutput(extent);
      constCount.reset();
      if (count == nullptr) return std::nullopt;
    }
  }
  const Expr* sub = divisor->definition();
  const bool isSub = sub != nullptr && sub->type() == ExprType::Binary &&
                     sub->attrs().binaryOp == BinaryOpType::Sub;
  if (constCount) {
    // An integral correction folds into a constant; a fractional one is a
    // Sub of the constant count and a Double.
    if (auto n = divisor->constInt(); n && divisor->dtype() == DataType::Int) {
      return std::to_string(*constCount - *n);
    }
    if (!isSub || sub->input(0)->as<Scalar>()->constInt() != constCount ||
        sub->input(1)->dtype() != DataType::Double) {
      return std::nullopt;
    }
    const auto* correction = sub->input(1)->as<Scalar>();
    if (!correction->isConst()) return std::nullopt;
    return doubleLiteral(*correction->constDouble());
  }
  if (divisor == count) return "0";
  if (!isSub || sub->input(0) != count) return std::nullopt;
  const auto* correction = sub->input(1)->as<Scalar>();
  if (correction == nullptr || !correction->isConst()) return std::nullopt;
  if (auto i = correction->constInt(); i && correction->dtype() == DataType::Int) {
    return std::to_string(*i);
  }
  return doubleLiteral(*correction->constDouble());
}

bool ScriptWriter::writesExpr(const Expr* expr) const {
  if (foldedExpr_[expr->id()]) return false;
  return hasTensorOutput(expr) || userScalarExpr_[expr->id()];
}

void ScriptWriter::findExtentSources() {
  for (Val* in : fusion_.inputs()) namedTensor_[in->id()] = true;
  for (const auto& expr : fusion_.exprs()) {
    if (!hasTensorOutput(expr.get()) || foldedExpr_[expr->id()]) continue;
    if (const auto& vm = varMean_[expr->id()]) {
      namedTensor_[vm->division->output(0)->id()] = true;
      namedTensor_[expr->output(0)->id()] = true;
      continue;
    }
    for (const Val* out : expr->outputs()) namedTensor_[out->id()] = true;
  }
  std::vector<bool> found(fusion_.vals().size(), false);
  // Written first, the inputs are the first sources when inputsFirst_.
  std::vector<const Val*> order;
  if (inputsFirst_) order.assign(fusion_.inputs().begin(), fusion_.inputs().end());
  for (const auto& val : fusion_.vals()) order.push_back(val.get());
  for (const Val* val : order) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || !namedTensor_[tv->id()]) continue;
    const auto& axes = tv->logicalNoReductions();
    for (size_t i = 0; i < axes.size(); ++i) {
      const Scalar* extent = axes[i]->extentForIteration();
      if (extent->isConst() || found[extent->id()]) continue;
      found[extent->id()] = true;
      extentSource_[extent->id()] = {tv, static_cast<int64_t>(i)};
    }
  }
}

bool ScriptWriter::isDefinedConstant(const Scalar* s) const {
  return s->isConst() && (constantUses_[s->id()] > 1 || !isLiteralDtype(s->dtype()));
}

void ScriptWriter::need(const Val* root, int64_t rootAnchor) {
  // Depth first on an explicit stack (inputs in order), not by recursion: a
  // scalar computed by a chain of 100,000 scalar ops needs no call stack.
  std::vector<std::pair<const Val*, int64_t>> pending = {{root, rootAnchor}};
  while (!pending.empty()) {
    const auto [val, anchor] = pending.back();
    pending.pop_back();
    const auto* s = val->as<Scalar>();
    if (s == nullptr) {
      FL_ASSERT(namedTensor_[val->id()], val->name(), " is used before the script names it");
      continue;
    }
    if (s->isConst()) {
      ++constantUses_[s->id()];
      continue;
    }
    if (s->isFusionInput() || hasVariable_[s->id()]) continue;
    const ExtentSource& source = extentSource_[s->id()];
    if (writtenBefore(source.tv, anchor)) continue;
    const Expr* def = s->definition();
    FL_CHECK(def != nullptr && !hasTensorOutput(def), "writeScript: the scalar ", s->name(),
             " is an operand but is neither an input, a constant, "
             "the extent of a tensor defined before its use nor computed from "
             "such scalars, so the script cannot name it");
    userScalarExpr_[def->id()] = true;
    for (const Val* out : def->outputs()) hasVariable_[out->id()] = true;
    const auto& inputs = def->inputs();
    for (auto in = inputs.rbegin(); in != inputs.rend(); ++in) {
      pending.emplace_back(*in, s->id());
    }
  }
}

std::vector<Statement> ScriptWriter::statements() const {
  std::vector<Statement> out;
  for (const auto& val : fusion_.vals()) {
    const auto* s = val->as<Scalar>();
    if (val->isFusionInput() || (s != nullptr && isDefinedConstant(s))) {
      out.push_back({val->id(), val.get(), nullptr});
    }
  }
  const auto& inputs = fusion_.inputs();
  for (const auto& expr : fusion_.exprs()) {
    if (!writesExpr(expr.get())) continue;
    int64_t anchor = kAfterEverything;
    for (const Val* v : expr->outputs()) anchor = std::min(anchor, v->id());
    out.push_back({anchor, nullptr, expr.get()});
  }
  for (Statement& statement : out) {
    const auto at = std::find(inputs.begin(), inputs.end(), statement.input);
    if (inputsFirst_ && at != inputs.end()) statement.anchor = at - inputs.end();
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Statement& a, const Statement& b) { return a.anchor < b.anchor; });
  return dependenciesFirst(std::move(out));
}

// A fusion with inputs made out of input order, or after an op that reads
// them (a segment's fusion), is written with its inputs first, in order: it
// reads back to the same ops, numbered anew.
bool ScriptWriter::needsInputsFirst() const {
  const auto& inputs = fusion_.inputs();
  if (!std::is_sorted(inputs.begin(), inputs.end(),
                      [](const Val* a, const Val* b) { return a->id() < b->id(); })) {
    return true;
  }
  for (const auto& expr : fusion_.exprs()) {
    for (const Val* in : expr->inputs()) {
      for (const Val* o : expr->outputs()) {
        if (in->isFusionInput() && in->id() > o->id()) return true;
      }
    }
  }
  return false;
}

std::vector<std::string> ScriptWriter::body() {
  checkExpressible();
  inputsFirst_ = needsInputsFirst();
  findVarMeans();
  findExtentSources();
  // A scalar op the script named and nothing reads (`a = fd.ops.tanh(2.0)`)
  // is written back too: left out, a re-read numbered the scalars after it
  // apart (the reader fuzzer's round trip). Scalars the op builders made
  // (extents) have no script name and stay implied by their tensor ops.
  for (const auto& expr : fusion_.exprs()) {
    if (hasTensorOutput(expr.get()) || foldedExpr_[expr->id()]) continue;
    bool dead = true;
    bool named = false;
    for (const Val* out : expr->outputs()) {
      dead = dead && out->uses().empty() && !out->isFusionOutput();
      named = named || !out->scriptName().empty();
    }
    if (!dead || !named) continue;
    userScalarExpr_[expr->id()] = true;
    for (const Val* out : expr->outputs()) hasVariable_[out->id()] = true;
  }
  // Planning pass: every statement asks for its operands, which decides the
  // user scalar Exprs and which constants need a define_scalar.
  planning_ = true;
  for (const Statement& statement : statements()) write(statement);
  writeOutputs();
  planning_ = false;
  // S<n> counts the non-literal scalars only: the constants written inline
  // differ between spellings of one fusion (broadcast_in_dim's shape makes
  // them, broadcast + expand fewer) and renumbered a re-read script's.
  int64_t scalars = 0;
  for (const auto& val : fusion_.vals()) {
    const auto* s = val->as<Scalar>();
    if (s == nullptr) continue;
    const bool inline_literal = s->isConst() && !isDefinedConstant(s) && !hasVariable_[s->id()];
    if (!inline_literal) scalarOrdinal_[s->id()] = scalars++;
  }
  lines_.clear();
  for (const Statement& statement : statements()) write(statement);
  writeOutputs();
  return lines_;
}

void ScriptWriter::write(const Statement& statement) {
  anchor_ = statement.anchor;
  if (statement.expr != nullptr) {
    writeExpr(statement.expr);
    return;
  }
  const Val* val = statement.input;
  if (const auto* tv = val->as<TensorView>()) {
    writeInputTensor(tv);
    return;
  }
  const auto* s = val->as<Scalar>();
  if (planning_) return;
  hasVariable_[s->id()] = true;
  const std::string value = s->isConst() ? valueLiteral(s) : "None";
  lines_.push_back(scalarVar(s) + " = fd.define_scalar(" + value +
                   ", dtype=" + dtypeArg(s->dtype()) + ")");
}

void ScriptWriter::writeInputTensor(const TensorView* tv) {
  if (planning_) return;
  std::vector<std::string> shape;
  for (const IterDomain* id : tv->logical()) {
    auto extent = id->extentForIteration()->constInt();
    if (id->isBroadcast() && !id->hasExpandedExtent()) {
      shape.push_back("1");
    } else {
      shape.push_back(extent ? std::to_string(*extent) : "-1");
    }
  }
  std::vector<std::string> contiguity;
  for (const auto& flag : tv->contiguity()) {
    contiguity.push_back(!flag ? "None" : (*flag ? "True" : "False"));
  }
  std::vector<int64_t> strideOrder = tv->strideOrder();
  if (strideOrder.empty()) {
    const int64_t rank = static_cast<int64_t>(tv->logical().size());
    for (int64_t i = 0; i < rank; ++i) strideOrder.push_back(rank - 1 - i);
  }
  lines_.push_back(tv->name() + " = fd.define_tensor(shape=" + listOf(shape) +
                   ", contiguity=" + listOf(contiguity) + ", dtype=" + dtypeArg(tv->dtype()) +
                   ", is_cpu=" + (tv->isCpuScalar() ? "True" : "False") +
                   ", stride_order=" + intList(strideOrder) + ")");
}

void ScriptWriter::assign(const std::vector<const Val*>& outputs, const std::string& rhs) {
  if (planning_) return;
  std::vector<std::string> names;
  for (const Val* out : outputs) names.push_back(name(out));
  lines_.push_back(joined(names) + " = " + rhs);
}

std::string ScriptWriter::operand(const Val* val) {
  if (planning_) {
    need(val, anchor_);
    return {};
  }
  if (val->isA<TensorView>()) return val->name();
  const auto* s = val->as<Scalar>();
  if (s->isConst() && !isDefinedConstant(s)) return valueLiteral(s);
  if (s->isConst() || s->isFusionInput() || hasVariable_[s->id()]) {
    return scalarVar(s);
  }
  const ExtentSource& source = extentSource_[s->id()];
  FL_ASSERT(writtenBefore(source.tv, anchor_), "no spelling was planned for ", s->name());
  hasVariable_[s->id()] = true;
  lines_.push_back(scalarVar(s) + " = " + source.tv->name() + ".size(" +
                   std::to_string(source.axis) + ")");
  return scalarVar(s);
}

std::string ScriptWriter::operandList(const Expr* expr, size_t begin, size_t end) {
  std::vector<std::string> items;
  for (size_t i = begin; i < end; ++i) items.push_back(operand(expr->input(i)));
  return listOf(items);
}

// ops::slice turns a negative constant bound on a symbolic extent into
// extent + bound; written as the constant, the builder makes that sum again.
std::string ScriptWriter::sliceBound(const Expr* slice, size_t input, size_t axis) {
  const Val* bound = slice->input(input);
  const Expr* def = bound->definition();
  const auto* x = slice->input(0)->as<TensorView>();
  if (def != nullptr && def->type() == ExprType::Binary &&
      def->attrs().binaryOp == BinaryOpType::Add &&
      def->input(0) == x->logicalNoReductions().at(axis)->extentForIteration()) {
    const auto* offset = def->input(1)->as<Scalar>();
    if (offset != nullptr && offset->constInt().value_or(0) < 0 &&
        offset->dtype() == DataType::Int) {
      return valueLiteral(offset);
    }
  }
  return operand(bound);
}

void ScriptWriter::writeExpr(const Expr* expr) {
  const auto& in = expr->inputs();
  const Val* out = expr->output(0);
  const ir::ExprAttrs& attrs = expr->attrs();
  switch (expr->type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Matmul:
    case ExprType::Linear: {
      std::vector<std::string> args;
      for (const Val* v : in) args.push_back(operand(v));
      assign({out}, call(expr->opName(), joined(args)));
      return;
    }
    case ExprType::Cast:
      assign({out}, call("cast", operand(in[0]) + ", dtype=" + dtypeArg(out->dtype())));
      return;
    case ExprType::Reduction: {
      const std::string dims =
          ", dims=" + intList(attrs.axes) + ", keepdim=False, dtype=DataType.Null";
      if (attrs.reductionOp != ir::ReductionOpType::LogSumExp) {
        assign({out}, call(expr->opName(), operand(in[0]) + dims));
        return;
      }
      // No fd.ops.logsumexp: the ops it stands for, which both readers take.
      const std::string x = operand(in[0]);
      if (planning_) return;
      const std::string max = name(out) + "_max";
      const std::string flags =
          boolList(ops::keepDimFlags(in[0]->as<TensorView>()->rank(), attrs.axes));
      lines_.push_back(max + " = " + call("max", x + dims));
      const std::string shifted =
          call("sub", x + ", " + call("broadcast", max + ", is_broadcast_dim=" + flags));
      assign({out},
             call("add", max + ", " + call("log", call("sum", call("exp", shifted) + dims))));
      return;
    }
    case ExprType::Welford: {
      const std::string args = operand(in[0]) + ", dims=" + intList(attrs.axes);
      if (const auto& vm = varMean_[expr->id()]) {
        assign({vm->division->output(0), expr->output(0)},
               call("var_mean", args + ", correction=" + vm->correction + ", keepdim=False"));
      } else {
        assign({expr->output(0), expr->output(1), expr->output(2)}, call("welford", args));
      }
      return;
    }
    case ExprType::Broadcast:
      assign({out}, call("broadcast",
                         operand(in[0]) + ", is_broadcast_dim=" + boolList(attrs.broadcastFlags)));
      return;
    case ExprType::Expand:
      assign({out}, call("expand", operand(in[0]) + ", shape=" + operandList(expr, 1, in.size())));
      return;
    case ExprType::Reshape:
      assign({out},
             call("reshape", operand(in[0]) + ", new_shape=" + operandList(expr, 1, in.size())));
      return;
    case ExprType::Permute:
      assign({out}, call("permute", operand(in[0]) + ", dims=" + intList(attrs.axes)));
      return;
    case ExprType::Squeeze: {
      bool expanded = false;
      const auto& axes = in[0]->as<ir::TensorView>()->logicalNoReductions();
      for (int64_t axis : attrs.axes) {
        expanded = expanded || axes.at(static_cast<size_t>(axis))->hasExpandedExtent();
      }
      assign({out}, call("squeeze", operand(in[0]) + ", dims=" + intList(attrs.axes) +
                                        (expanded ? ", squeeze_expanded=True" : "")));
      return;
    }
    case ExprType::Slice: {
      std::vector<std::string> starts, stops, steps;
      const std::string x = operand(in[0]);
      for (size_t axis = 0; 3 * axis + 3 < in.size(); ++axis) {
        starts.push_back(sliceBound(expr, 3 * axis + 1, axis));
        stops.push_back(sliceBound(expr, 3 * axis + 2, axis));
        steps.push_back(operand(in[3 * axis + 3]));
      }
      assign({out}, call("slice", x + ", start_indices=" + listOf(starts) + ", end_indices=" +
                                      listOf(stops) + ", strides=" + listOf(steps)));
      return;
    }
    case ExprType::Pad: {
      // The IR keeps (left, right) per axis in axis order; torch's pad list
      // starts with the last axis.
      const std::string x = operand(in[0]);
      std::vector<std::string> widths;
      const size_t rank = (in.size() - 2) / 2;
      for (size_t k = 0; k < rank; ++k) {
        const size_t axis = rank - 1 - k;
        widths.push_back(operand(in[2 + 2 * axis]));
        widths.push_back(operand(in[3 + 2 * axis]));
      }
      assign({out}, call("pad", x + ", " + listOf(widths) + ", " + operand(in[1])));
      return;
    }
    case ExprType::Cat:
      assign({out},
             call("cat", operandList(expr, 0, in.size()) + ", dim=" + std::to_string(attrs.dim)));
      return;
    case ExprType::Set: {
      const auto* tv = out->as<TensorView>();
      if (tv->domain().hasAllocation()) {
        assign({out}, call("stride_order",
                           operand(in[0]) + ", stride_order=" + intList(tv->strideOrder())));
      } else {
        assign({out}, call("set", operand(in[0])));
      }
      return;
    }
    case ExprType::SegmentSet: assign({out}, call("segment_set", operand(in[0]))); return;
    case ExprType::Full:
      assign({out}, call("full", "shape=" + operandList(expr, 0, in.size() - 1) + ", fill_value=" +
                                     operand(in.back()) + ", dtype=" + dtypeArg(attrs.dtype)));
      return;
    case ExprType::Iota:
      assign({out}, call("iota", operand(in[0]) + ", " + operand(in[1]) + ", " + operand(in[2]) +
                                     ", dtype=" + dtypeArg(attrs.dtype)));
      return;
    case ExprType::IndexSelect:
    case ExprType::Gather:
      assign({out}, call(expr->opName(), operand(in[0]) + ", " + operand(in[1]) +
                                             ", dim=" + std::to_string(attrs.dim)));
      return;
    case ExprType::Sdpa: {
      std::vector<std::string> args;
      for (size_t i = 0; i < 5; ++i) args.push_back(operand(in[i]));
      // A constant NaN scale is the builder's "1/sqrt(E)" default.
      const auto* scale = in[5]->as<Scalar>();
      const auto value = scale->constDouble();
      args.push_back(value && std::isnan(*value) ? "None" : operand(scale));
      std::vector<const Val*> outs(expr->outputs().begin(), expr->outputs().end());
      assign(outs, call("sdpfa_fwd", joined(args)));
      return;
    }
    case ExprType::Random: {
      // rand_like and randn_like are uniform(0, 1) and normal(0, 1) of their
      // input's shape: the same values.
      const size_t rank = in.size() - 4;
      assign({out}, call(expr->opName(), operand(in[rank]) + ", " + operand(in[rank + 1]) +
                                             ", shape=" + operandList(expr, 0, rank) +
                                             ", rng_seed=" + operand(in[rank + 2]) +
                                             ", rng_offset=" + operand(in[rank + 3]) +
                                             ", dtype=" + dtypeArg(attrs.dtype)));
      return;
    }
    case ExprType::SdpaBwd: {
      std::vector<std::string> args;
      for (size_t i = 0; i < 8; ++i) args.push_back(operand(in[i]));
      // Philox state given as no tensor is an Int placeholder: None.
      for (size_t i = 8; i < 10; ++i) {
        args.push_back(in[i]->isA<TensorView>() ? operand(in[i]) : "None");
      }
      const auto value = in[10]->as<Scalar>()->constDouble();
      args.push_back(value && std::isnan(*value) ? "None" : operand(in[10]));
      std::vector<const Val*> outs(expr->outputs().begin(), expr->outputs().end());
      assign(outs, call("sdpfa_bwd", joined(args)));
      return;
    }
    case ExprType::Scatter:
      assign({out}, call("scatter", operand(in[0]) + ", " + operand(in[1]) + ", " + operand(in[2]) +
                                        ", dim=" + std::to_string(attrs.dim)));
      return;
    case ExprType::IndexPutAccumulate:
      assign({out}, call("index_put_accumulate",
                         operand(in[0]) + ", " + operand(in[1]) + ", " + operand(in[2])));
      return;
    case ExprType::Embedding: {
      // [input, weight, normType, scaleGradByFreq, sparse, paddingIdx?,
      // maxNorm?]; an option not given is None.
      size_t next = 5;
      const std::string padding = attrs.flags.at(0) ? operand(in[next++]) : std::string("None");
      const std::string maxNorm = attrs.flags.at(1) ? operand(in[next++]) : std::string("None");
      assign({out},
             call("embedding_fwd",
                  operand(in[0]) + ", " + operand(in[1]) + ", padding_idx=" + padding +
                      ", max_norm=" + maxNorm + ", norm_type=" + operand(in[2]) +
                      ", scale_grad_by_freq=" + operand(in[3]) + ", sparse=" + operand(in[4])));
      return;
    }
    case ExprType::Argsort:
      assign({out}, call("argsort", operand(in[0]) + ", dim=" + std::to_string(attrs.dim) +
                                        ", descending=" + pythonBool(attrs.flags.at(0)) +
                                        ", stable=" + pythonBool(attrs.flags.at(1))));
      return;
    case ExprType::TopK:
      assign({expr->output(0), expr->output(1)},
             call("topk", operand(in[0]) + ", " + operand(in[1]) +
                              ", dim=" + std::to_string(attrs.dim) +
                              ", largest=" + pythonBool(attrs.flags.at(0)) +
                              ", sorted=" + pythonBool(attrs.flags.at(1))));
      return;
    case ExprType::Scan: {
      std::string args = operand(in[0]) + ", dim=" + std::to_string(attrs.dim);
      if (in.size() > 1) args += ", init=" + operand(in[1]);
      assign({out}, call(expr->opName(), args));
      return;
    }
  }
  FL_ASSERT(false, "writeScript does not know ", ir::toString(expr->type()));
}

void ScriptWriter::writeOutputs() {
  anchor_ = kAfterEverything;
  for (const ir::FusionOutput& output : fusion_.outputs()) {
    const Val* val = output.val;
    if (planning_ && val->isA<Scalar>() && val->as<Scalar>()->isConst()) {
      // A constant output needs a variable: count it as a second use.
      ++constantUses_[val->id()];
    }
    std::string line = "fd.add_output(" + operand(val);
    const auto* tv = val->as<TensorView>();
    if (output.aliasOf != nullptr) {
      line += ", alias_input=" + output.aliasOf->name();
    } else if (tv != nullptr && tv->domain().hasAllocation() && !tv->isFusionInput() &&
               (tv->definition() == nullptr || tv->definition()->type() != ExprType::Set)) {
      line += ", stride_order=" + intList(tv->strideOrder());
    }
    if (!planning_) lines_.push_back(line + ")");
  }
}

}  // namespace

std::string writeScript(const ir::Fusion& fusion, const std::string& functionName,
                        bool withBoilerplate) {
  std::vector<std::string> body = ScriptWriter(fusion).body();
  std::string out;
  if (withBoilerplate) {
    out += "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n";
  }
  out += "def " + functionName + "(fd : FusionDefinition) -> None :\n";
  if (body.empty()) body.push_back("pass");
  for (const std::string& line : body) out += "    " + line + "\n";
  if (withBoilerplate) {
    out += "\nwith FusionDefinition() as fd:\n    " + functionName + "(fd)\n";
  }
  return out;
}

}  // namespace fuserlab::frontend
