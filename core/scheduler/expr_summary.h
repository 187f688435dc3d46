// One-line summaries of exprs for refusal reasons: "T3 = add(T1, T2)",
// without the tensors' domains that Expr::toString prints, so a reason
// reads as one sentence.
#pragma once

#include <string>

#include "core/ir/expr.h"

namespace fuserlab::scheduler {

//! "T3 = add(T1, T2)", "T5, T6 = var_mean(T2)": the outputs' and inputs'
//! names around the op name.
std::string exprSummary(const ir::Expr& expr);

}  // namespace fuserlab::scheduler
