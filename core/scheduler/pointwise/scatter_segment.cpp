#include "core/scheduler/pointwise/scatter_segment.h"

#include <algorithm>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"

namespace fuserlab::scheduler {
namespace {

constexpr int64_t kThreadsPerBlock = 256;

std::string str(int64_t value) { return std::to_string(value); }

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
  return ownKernelOps(segment).indexedWrite;
}

std::string indexedWriteRefusal(const ir::Expr& write) {
  return ownKernelOpRefusal(write, write.opName(), "indexed-write kernel");
}

std::optional<std::string> rejectIndexedWriteSegment(const ir::Fusion& segment,
                                                     const ir::Expr& write) {
  return rejectBesideOwnKernelOp(segment, write, write.opName(), "an indexed-write kernel");
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
  if (auto why = rejectVectorsUnrollingOrSplit(
          params, "an indexed-write kernel runs a grid-stride loop of single elements")) {
    return why;
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
