#include "core/segmenter/decision_log.h"

#include "core/ir/val.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::segmenter {

void DecisionLog::add(std::string kind, std::vector<int> groups, bool accepted,
                      std::string reason) const {
  if (sink_ == nullptr) return;
  sink_->push_back({std::move(kind), std::move(groups), accepted, std::move(reason)});
}

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

std::string groupSummary(const std::vector<ir::Expr*>& exprs) {
  std::string out = "{";
  out.reserve(2 + 6 * exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) out += ", ";
    out += exprs[i]->output(0)->name();
  }
  out += '}';
  return out;
}

std::string rejectionsSummary(const std::vector<scheduler::Rejection>& rejected) {
  std::string out;
  for (const auto& rejection : rejected) {
    if (!out.empty()) out += "; ";
    out += std::string(scheduler::toString(rejection.scheduler)) + ": " + rejection.reason;
  }
  return out;
}

}  // namespace fuserlab::segmenter
