#include "core/scheduler/matmul/attention_choice.h"

namespace fuserlab::scheduler {

std::optional<std::string> tiledAttentionRefusal(ir::DataType q, ir::DataType k, ir::DataType v,
                                                 int64_t depth, int64_t valueDepth,
                                                 int computeCapability) {
  if (q != k || q != v) return std::string("q, k and v have different types");
  if (q != ir::DataType::BFloat16 && q != ir::DataType::Half) {
    return "the tensor cores take bf16 or half, not " + std::string(ir::toString(q));
  }
  if (computeCapability < 80) {
    return "sm_" + std::to_string(computeCapability) + " has no bf16 mma.sync (sm_80 and later)";
  }
  if (depth != valueDepth) {
    return "q's head dimension " + std::to_string(depth) + " differs from v's " +
           std::to_string(valueDepth);
  }
  if (depth % 16 != 0 || depth < 16 || depth > 128) {
    return "the head dimension " + std::to_string(depth) +
           " is not a multiple of 16 from 16 to 128";
  }
  return std::nullopt;
}

}  // namespace fuserlab::scheduler
