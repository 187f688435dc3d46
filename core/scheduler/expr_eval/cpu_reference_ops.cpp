#include "core/scheduler/expr_eval/cpu_reference_ops.h"

#include "core/scheduler/expr_summary.h"

namespace fuserlab::scheduler {

bool isCpuReferenceOnly(ir::ExprType type) {
  switch (type) {
    case ir::ExprType::Embedding:
    case ir::ExprType::SdpaBwd: return true;
    default: return false;
  }
}

std::string noGpuKernelMessage(const ir::Expr& expr) {
  return "fd.ops." + expr.opName() + " (" + exprSummary(expr) +
         ") has no GPU kernel in FuserLab yet; it runs on the CPU reference "
         "backend (run --backend cpu)";
}

std::optional<std::string> cpuReferenceOnlyRefusal(const ir::Fusion& segment) {
  // A plain walk over the segment's exprs (it holds only its group's).
  for (const auto& owned : segment.exprs()) {
    if (!isCpuReferenceOnly(owned->type())) continue;
    return exprSummary(*owned) +
           " has no GPU kernel (it runs on the CPU reference only): expr_eval "
           "takes it alone, in a segment of its own";
  }
  return std::nullopt;
}

}  // namespace fuserlab::scheduler
