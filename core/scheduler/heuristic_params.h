// HeuristicParams: the parameters a scheduler chose (or was given by the
// tuner or the heuristics database) for one segment. Deciding params and
// applying them are separate: code generation reads only this.
#pragma once

#include <variant>

#include "core/report/json.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/transpose/transpose_params.h"

namespace fuserlab::scheduler {

//! monostate for schedulers without parameters (no_op, expr_eval).
using HeuristicParams =
    std::variant<std::monostate, PointwiseParams, ReductionParams,
                 TransposeParams>;

report::Json paramsToJson(const HeuristicParams& params);
std::string paramsToString(const HeuristicParams& params);
uint64_t paramsHash(const HeuristicParams& params);

}  // namespace fuserlab::scheduler
