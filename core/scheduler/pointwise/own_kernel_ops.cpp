#include "core/scheduler/pointwise/own_kernel_ops.h"

#include <algorithm>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/sort_segment.h"

namespace fuserlab::scheduler {
namespace {

bool hasTensorOutput(const ir::Expr& expr) {
  return std::any_of(expr.outputs().begin(), expr.outputs().end(),
                     [](const ir::Val* val) { return val->isA<ir::TensorView>(); });
}

}  // namespace

OwnKernelOps ownKernelOps(const ir::Fusion& segment) {
  OwnKernelOps ops;
  for (const ir::Expr* expr : liveExprs(segment)) {
    const ir::ExprType type = expr->type();
    if (type == ir::ExprType::Scan && ops.scan == nullptr) ops.scan = expr;
    if ((type == ir::ExprType::Scatter || type == ir::ExprType::IndexPutAccumulate) &&
        ops.indexedWrite == nullptr) {
      ops.indexedWrite = expr;
    }
    if (isSortOp(type) && ops.sort == nullptr) ops.sort = expr;
  }
  return ops;
}

std::optional<std::string> rejectBesideOwnKernelOp(const ir::Fusion& segment, const ir::Expr& op,
                                                   std::string_view noun, std::string_view kernel) {
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr == &op || !hasTensorOutput(*expr)) continue;
    return "holds a " + std::string(noun) + " (" + exprSummary(op) + ") beside " +
           exprSummary(*expr) + ": " + std::string(kernel) + " runs the " + std::string(noun) +
           " alone";
  }
  return std::nullopt;
}

std::string ownKernelOpRefusal(const ir::Expr& op, std::string_view noun, std::string_view kernel,
                               std::string_view more) {
  return "holds a " + std::string(noun) + " (" + exprSummary(op) + "): the pointwise scheduler's " +
         std::string(kernel) + " runs it, in a segment of its own" + std::string(more);
}

std::optional<std::string> rejectVectorsUnrollingOrSplit(const PointwiseParams& params,
                                                         std::string_view kernel) {
  if (params.vectorizationFactor == 1 && params.unrollFactorInner == 1 &&
      params.unrollFactorOuter == 1 && params.breakPoint == 0 && params.blockDimY == 1 &&
      !params.flipGrid) {
    return std::nullopt;
  }
  return std::string(kernel) +
         ": it takes vectorization_factor 1, unroll factors 1, break_point 0, block_dim_y 1 and "
         "no flip_grid";
}

}  // namespace fuserlab::scheduler
