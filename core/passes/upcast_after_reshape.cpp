#include "core/passes/upcast_after_reshape.h"

#include <vector>

#include "core/ir/data_type.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::TensorView;

// The upcast feeding `reshape` if the pair can be swapped.
Expr* movableUpcast(const ir::Fusion& fusion, const Expr* reshape) {
  if (reshape->type() != ExprType::Reshape) return nullptr;
  auto* y = reshape->output(0)->as<TensorView>();
  auto* widened = reshape->input(0)->as<TensorView>();
  if (y == nullptr || widened == nullptr || fusion.isOutput(y) || fusion.isOutput(widened) ||
      widened->uses().size() != 1) {
    return nullptr;
  }
  Expr* cast = widened->definition();
  if (cast == nullptr || cast->type() != ExprType::Cast) return nullptr;
  const auto* x = cast->input(0)->as<TensorView>();
  if (x == nullptr || !ir::isFloatingPoint(x->dtype()) || !ir::isFloatingPoint(widened->dtype()) ||
      ir::sizeInBytes(widened->dtype()) <= ir::sizeInBytes(x->dtype())) {
    return nullptr;
  }
  return cast;
}

}  // namespace

std::string_view UpcastAfterReshapePass::description() const {
  return "Moves an upcast after the reshape that reads it (reshape(cast(x)) -> "
         "cast(reshape(x))), so the reshape of an input stays a view and segments "
         "pass the narrow dtype.";
}

void UpcastAfterReshapePass::run(ir::Fusion& fusion, const PassOptions& /*options*/,
                                 PassRecord& record) const {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Expr* reshape : fusion.exprsForOutputs()) {
      Expr* cast = movableUpcast(fusion, reshape);
      if (cast == nullptr) continue;
      auto* x = cast->input(0)->as<TensorView>();
      ir::Val* widened = cast->output(0);
      ir::Val* y = reshape->output(0);
      std::vector<ir::Scalar*> shape;
      for (size_t i = 1; i < reshape->inputs().size(); ++i) {
        shape.push_back(reshape->input(i)->as<ir::Scalar>());
      }
      TensorView* narrow = ops::reshape(x, shape);
      ir::Val* result = ops::cast(narrow, y->dtype());
      record.rewrites.push_back("moved " + widened->name() + " = cast(" + x->name() + ", " +
                                std::string(ir::toString(widened->dtype())) + ") after " +
                                y->name() + " = reshape(" + widened->name() +
                                "): " + result->name() + " = cast(" + narrow->name() +
                                " = reshape(" + x->name() + ")) replaces " + y->name());
      fusion.replaceAllUsesWith(y, result);
      removeDeadDefinitions(fusion, {y, widened});
      changed = true;
      break;
    }
  }
}

}  // namespace fuserlab::passes
