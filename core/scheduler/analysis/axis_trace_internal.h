// What axis_trace.cpp shares with the files that answer questions about a
// trace (axis_trace_two_positions.cpp, axis_trace_coverage.cpp): carrying a
// trace across one expr, an axis's extent where known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/scheduler/analysis/axis_trace.h"

namespace fuserlab::scheduler::detail {

//! The extent of `id` at the bound sizes; -1 where unknown.
int64_t extentOrUnknown(const ir::ExpressionEvaluator* evaluator, const ir::IterDomain* id);

//! `from`'s trace carried across `expr` to its producer (towardProducer) or
//! its consumer; nullopt where the expr's axes cannot be paired.
std::optional<TensorTrace> traceAcrossExpr(const TensorTrace& from, const ir::Expr* expr,
                                           size_t inputIndex, const ir::TensorView* producer,
                                           const ir::TensorView* consumer, bool towardProducer,
                                           const ir::ExpressionEvaluator* evaluator);

}  // namespace fuserlab::scheduler::detail
