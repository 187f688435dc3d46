// SchedulerType: the kinds of segment schedulers, their report names and the
// fixed priority order the segmenter tries them in.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fuserlab::scheduler {

enum class SchedulerType : uint8_t {
  NoOp,             //!< nothing to compute (empty tensors, pure aliases of inputs)
  ExprEval,         //!< evaluated on the host: alias-only segments, matmul/sdpa
  Matmul,           //!< a library call (cuBLASLt) with a fused epilogue
  Reduction,        //!< reductions without persistent buffers
  Transpose,        //!< tiled transposes through shared memory
  Pointwise,        //!< elementwise, broadcast, no reductions
  InnerPersistent,  //!< normalization over the innermost axes
  OuterPersistent,  //!< normalization over outer axes
  Communication,    //!< multi-GPU collectives
};

//! The names the report and --dump use: "no_op", "inner_persistent", ...
std::string_view toString(SchedulerType type);
std::optional<SchedulerType> parseSchedulerType(std::string_view name);

//! The order schedulers are tried in: expr_eval, no_op, matmul, reduction,
//! transpose, pointwise, inner_persistent, outer_persistent, communication.
//! Reduction comes before the persistent schedulers because it refuses any
//! segment that needs a persistent buffer; transpose before pointwise
//! because pointwise accepts transposes too, only slower.
const std::vector<SchedulerType>& schedulerPriority();

//! False for no_op and expr_eval: their segments launch no kernel.
bool launchesKernel(SchedulerType type);

}  // namespace fuserlab::scheduler
