#include "core/scheduler/pointwise/scatter_segment.h"

#include <algorithm>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/expr_summary.h"

namespace fuserlab::scheduler {
namespace {

constexpr int64_t kThreadsPerBlock = 256;

std::string str(int64_t value) { return std::to_string(value); }

bool hasTensorOutput(const ir::Expr& expr) {
  return std::any_of(expr.outputs().begin(), expr.outputs().end(),
                     [](const ir::Val* val) { return val->isA<ir::TensorView>(); });
}

bool isIndexedWrite(const ir::Expr& expr) {
  return expr.type() == ir::ExprType::Scatter || expr.type() == ir::ExprType::IndexPutAccumulate;
}

// The number of index positions at the bound sizes.
int64_t indexPositions(const ir::Expr& write, const SegmentRuntimeInfo& info) {
  int64_t positions = 1;
  for (const ir::IterDomain* id : write.input(1)->as<ir::TensorView>()->logicalNoReductions()) {
    positions *= info.evaluator->evaluateExtent(id);
  }
  return positions;
}

}  // namespace

const ir::Expr* indexedWriteOf(const ir::Fusion& segment) {
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (isIndexedWrite(*expr)) return expr;
  }
  return nullptr;
}

std::optional<std::string> indexedWriteRefusal(const ir::Fusion& segment) {
  const ir::Expr* write = indexedWriteOf(segment);
  if (write == nullptr) return std::nullopt;
  return "holds a " + write->opName() + " (" + exprSummary(*write) +
         "): the pointwise scheduler's indexed-write kernel runs it, in a segment of its own";
}

std::optional<std::string> rejectIndexedWriteSegment(const ir::Fusion& segment,
                                                     const ir::Expr& write) {
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr == &write || !hasTensorOutput(*expr)) continue;
    return "holds a " + write.opName() + " (" + exprSummary(write) + ") beside " +
           exprSummary(*expr) + ": an indexed-write kernel runs the " + write.opName() + " alone";
  }
  return std::nullopt;
}

PointwiseParams indexedWriteParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  PointwiseParams params;
  params.blockDimX = kThreadsPerBlock;
  params.useInt32Indexing = largestSpan(segment, info).fitsInt32();
  return params;
}

std::optional<std::string> rejectIndexedWriteParams(const ir::Fusion& segment,
                                                    const SegmentRuntimeInfo& info,
                                                    const PointwiseParams& params) {
  if (params.vectorizationFactor != 1 || params.unrollFactorInner != 1 ||
      params.unrollFactorOuter != 1 || params.breakPoint != 0 || params.blockDimY != 1 ||
      params.flipGrid) {
    return "an indexed-write kernel runs a grid-stride loop of single elements: it takes "
           "vectorization_factor 1, unroll factors 1, break_point 0, block_dim_y 1 and no "
           "flip_grid";
  }
  if (params.blockDimX < 32 || params.blockDimX > kThreadsPerBlock || params.blockDimX % 32 != 0) {
    return "block_dim_x " + str(params.blockDimX) +
           ": an indexed-write kernel takes a multiple of 32 up to " + str(kThreadsPerBlock) +
           " (its grid barrier needs every block resident, two an SM)";
  }
  if (params.useInt32Indexing) {
    if (auto why = rejectInt32Indexing(segment, info)) return why;
  }
  return std::nullopt;
}

report::Json indexedWriteProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  report::Json json = report::Json::object();
  const ir::Expr* write = indexedWriteOf(segment);
  if (write == nullptr) return json;
  const bool accumulate = write->type() == ir::ExprType::IndexPutAccumulate;
  json.set("indexed_write", exprSummary(*write));
  json.set("axis", accumulate ? int64_t{0} : write->attrs().dim);
  json.set("index_positions", indexPositions(*write, info));
  json.set("schedule",
           std::string("copy the input to the output, a grid barrier, then one thread per index "
                       "position and element ") +
               (accumulate ? "atomically adding its value" : "writing its value"));
  return json;
}

}  // namespace fuserlab::scheduler
