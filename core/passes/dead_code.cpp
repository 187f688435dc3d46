#include "core/passes/dead_code.h"

#include <algorithm>

namespace fuserlab::passes {
namespace {

bool isDead(const ir::Fusion& fusion, const ir::Expr* expr) {
  return std::all_of(expr->outputs().begin(), expr->outputs().end(), [&](const ir::Val* out) {
    return out->isA<ir::TensorView>() && out->uses().empty() && !fusion.isOutput(out);
  });
}

}  // namespace

int removeDeadDefinitions(ir::Fusion& fusion, std::vector<ir::Val*> vals) {
  // A worklist of Vals, not Exprs: Vals are never freed, while an Expr
  // pointer dangles once the expr is removed through another path.
  int removed = 0;
  while (!vals.empty()) {
    ir::Val* val = vals.back();
    vals.pop_back();
    ir::Expr* def = val->definition();
    if (def == nullptr || !isDead(fusion, def)) continue;
    const std::vector<ir::Val*> inputs = def->inputs();
    fusion.removeExpr(def);
    ++removed;
    vals.insert(vals.end(), inputs.begin(), inputs.end());
  }
  return removed;
}

}  // namespace fuserlab::passes
