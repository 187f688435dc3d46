// HeuristicParams: the parameters a scheduler chose (or was given by the
// tuner or the heuristics database) for one segment. Deciding params and
// applying them are separate: code generation reads only this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "core/report/json.h"
#include "core/scheduler/matmul/matmul_params.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/scheduler_type.h"
#include "core/scheduler/transpose/transpose_params.h"

namespace fuserlab::scheduler {

//! monostate for schedulers without parameters (no_op, expr_eval).
using HeuristicParams =
    std::variant<std::monostate, PointwiseParams, ReductionParams, TransposeParams, MatmulParams>;

//! The struct's toJson; null for monostate.
report::Json paramsToJson(const HeuristicParams& params);
//! The struct's nvFuser-style dump; "no parameters" for monostate.
std::string paramsToString(const HeuristicParams& params);
//! The struct's stable hash; a fixed value for monostate.
uint64_t paramsHash(const HeuristicParams& params);

//! "none", "pointwise", "reduction", "transpose" or "matmul", for messages.
std::string_view paramsKind(const HeuristicParams& params);

//! Reads the params a scheduler of `type` takes from their JSON (the
//! persistent schedulers take ReductionParams, matmul MatmulParams; no_op,
//! expr_eval and communication take none and expect null). UserError naming the field if
//! the JSON does not fit.
HeuristicParams paramsFromJson(SchedulerType type, const report::Json& json);

}  // namespace fuserlab::scheduler
