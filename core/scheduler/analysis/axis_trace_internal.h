// What axis_trace.cpp shares with the files that answer questions about a
// trace (axis_trace_two_positions.cpp): carrying a trace across one expr.
#pragma once

#include <cstddef>
#include <optional>

#include "core/scheduler/analysis/axis_trace.h"

namespace fuserlab::scheduler::detail {

//! `from`'s trace carried across `expr` to its producer (towardProducer) or
//! its consumer; nullopt where the expr's axes cannot be paired.
std::optional<TensorTrace> traceAcrossExpr(const TensorTrace& from, const ir::Expr* expr,
                                           size_t inputIndex, const ir::TensorView* producer,
                                           const ir::TensorView* consumer, bool towardProducer,
                                           const ir::ExpressionEvaluator* evaluator);

}  // namespace fuserlab::scheduler::detail
