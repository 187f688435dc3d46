#include "core/passes/consecutive_cast.h"

#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::DataType;
using ir::Expr;
using ir::ExprType;
using ir::TensorView;

std::string castText(const Expr* cast) {
  return cast->output(0)->name() + " = cast(" + cast->input(0)->name() + ", " +
         std::string(ir::toString(cast->output(0)->dtype())) + ")";
}

// The cast feeding `cast` if the pair can be folded: the middle tensor is a
// tensor cast of a tensor, used only here, not an output, and its dtype
// holds every value of its source exactly.
Expr* foldableProducer(const ir::Fusion& fusion, const Expr* cast) {
  if (cast->type() != ExprType::Cast || !cast->output(0)->isA<TensorView>()) {
    return nullptr;
  }
  ir::Val* middle = cast->input(0);
  Expr* producer = middle->definition();
  if (producer == nullptr || producer->type() != ExprType::Cast || !middle->isA<TensorView>() ||
      !producer->input(0)->isA<TensorView>() || middle->uses().size() != 1 ||
      fusion.isOutput(middle)) {
    return nullptr;
  }
  return representsExactly(middle->dtype(), producer->input(0)->dtype()) ? producer : nullptr;
}

// Folds one pair; returns the rewrite's description.
std::string fold(ir::Fusion& fusion, Expr* producer, Expr* cast) {
  ir::Val* source = producer->input(0);
  ir::Val* middle = producer->output(0);
  ir::Val* result = cast->output(0);
  const std::string pair = castText(producer) + " -> " + castText(cast);
  const std::string why = std::string(ir::toString(middle->dtype())) + " holds every " +
                          std::string(ir::toString(source->dtype())) + " value exactly";
  if (source->dtype() == result->dtype()) {
    std::string line = "removed cast pair " + pair + ": " + why + ", so " + result->name() +
                       " equals " + source->name();
    if (fusion.isOutput(result)) {
      // The output keeps its own tensor, now a plain copy of the source.
      fusion.removeExpr(cast);
      fusion.newExpr(ExprType::Set, {source}, {result});
      line += " (the output " + result->name() + " = set(" + source->name() + "))";
    } else {
      fusion.replaceAllUsesWith(result, source);
    }
    removeDeadDefinitions(fusion, {result, middle});
    return line;
  }
  fusion.replaceExprInput(cast, middle, source);
  removeDeadDefinitions(fusion, {middle});
  return "merged casts " + pair + " into " + castText(cast) + ": " + why;
}

}  // namespace

bool representsExactly(DataType wide, DataType narrow) {
  if (wide == narrow) return true;
  switch (narrow) {
    case DataType::Bool: return wide != DataType::Null;
    case DataType::Int32: return wide == DataType::Int || wide == DataType::Double;
    case DataType::Half:
    case DataType::BFloat16: return wide == DataType::Float || wide == DataType::Double;
    case DataType::Float: return wide == DataType::Double;
    default: return false;
  }
}

std::string_view ConsecutiveCastPass::description() const {
  return "Folds chains of casts whose middle dtype holds every value of the "
         "source exactly (removing round trips such as float -> double -> "
         "float); casts that round, such as float -> bf16 -> float, stay.";
}

void ConsecutiveCastPass::run(ir::Fusion& fusion, const PassOptions& options,
                              PassRecord& record) const {
  // One pair at a time, producers first, until no pair folds: folding a pair
  // can make the next cast of a longer chain foldable.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Expr* expr : fusion.exprsForOutputs()) {
      if (Expr* producer = foldableProducer(fusion, expr)) {
        record.rewrites.push_back(fold(fusion, producer, expr));
        changed = true;
        break;
      }
    }
  }
}

}  // namespace fuserlab::passes
