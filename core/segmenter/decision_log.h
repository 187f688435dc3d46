// The segmenter's decision log: every decision in the order taken, as plain
// data (SegmenterDecision) for the report, with the text helpers that name
// exprs and groups the way a user reads them: an expr by its outputs and
// operands ("T5 = add(T2, T4)"), a group by the tensors it computes
// ("{T1, T2, T3}").
#pragma once

#include <string>
#include <vector>

#include "core/ir/expr.h"
#include "core/scheduler/registry.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::segmenter {

//! Appends decisions to a caller's log; a null log records nothing.
class DecisionLog {
 public:
  explicit DecisionLog(std::vector<SegmenterDecision>* sink) : sink_(sink) {}

  void add(std::string kind, std::vector<int> groups, bool accepted, std::string reason) const;

 private:
  std::vector<SegmenterDecision>* sink_;
};

//! "T5 = add(T2, T4)": output names, op name, operand names.
std::string exprSummary(const ir::Expr& expr);

//! "{T1, T2, T3}": the first output of each expr, in the given order.
std::string groupSummary(const std::vector<ir::Expr*>& exprs);

//! "reduction: <reason>; pointwise: <reason>", in the order tried.
std::string rejectionsSummary(const std::vector<scheduler::Rejection>& rejected);

}  // namespace fuserlab::segmenter
