#include "core/scheduler/expr_summary.h"

#include "core/ir/val.h"

namespace fuserlab::scheduler {

std::string exprSummary(const ir::Expr& expr) {
  std::string out;
  for (size_t i = 0; i < expr.outputs().size(); ++i) {
    out += (i ? ", " : "") + expr.output(i)->name();
  }
  out += " = " + expr.opName() + "(";
  for (size_t i = 0; i < expr.inputs().size(); ++i) {
    out += (i ? ", " : "") + expr.input(i)->name();
  }
  return out + ")";
}

}  // namespace fuserlab::scheduler
