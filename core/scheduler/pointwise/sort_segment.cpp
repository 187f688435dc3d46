#include "core/scheduler/pointwise/sort_segment.h"

#include <algorithm>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"

namespace fuserlab::scheduler {
namespace {

constexpr int64_t kMaxThreadsPerBlock = 512;

std::string str(int64_t value) { return std::to_string(value); }

// The number of lines `sort` orders (the product of its input's other
// extents) at the bound sizes.
int64_t lineCount(const ir::Expr& sort, const SegmentRuntimeInfo& info) {
  const auto* x = sort.input(0)->as<ir::TensorView>();
  const auto& axes = x->logicalNoReductions();
  int64_t lines = 1;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (static_cast<int64_t>(k) != sort.attrs().dim) {
      lines *= info.evaluator->evaluateExtent(axes[k]);
    }
  }
  return lines;
}

int64_t nextPowerOfTwo(int64_t value) {
  int64_t p = 1;
  while (p < value) p *= 2;
  return p;
}

}  // namespace

bool isSortOp(ir::ExprType type) {
  return type == ir::ExprType::Argsort || type == ir::ExprType::TopK;
}

const ir::Expr* sortOf(const ir::Fusion& segment) { return ownKernelOps(segment).sort; }

int64_t sortRowLength(const ir::Expr& sort, const SegmentRuntimeInfo& info) {
  const auto* x = sort.input(0)->as<ir::TensorView>();
  const auto& axes = x->logicalNoReductions();
  if (axes.empty()) return 1;  // a 0-dim tensor: one line of one
  return info.evaluator->evaluateExtent(axes[static_cast<size_t>(sort.attrs().dim)]);
}

std::string sortRefusal(const ir::Expr& sort) {
  return ownKernelOpRefusal(
      sort, sort.opName(), "sort kernel",
      " (expr_eval, on the CPU reference, where a line is longer than " + str(kMaxSortRow) + ")");
}

std::optional<std::string> rejectSortSegment(const ir::Fusion& segment, const ir::Expr& sort) {
  return rejectBesideOwnKernelOp(segment, sort, sort.opName(), "a sort kernel");
}

std::optional<std::string> sortRowTooLong(const ir::Expr& sort, const SegmentRuntimeInfo& info) {
  const int64_t length = sortRowLength(sort, info);
  if (length <= kMaxSortRow) return std::nullopt;
  return sort.opName() + " (" + exprSummary(sort) + ") sorts lines of " + str(length) +
         " elements; the GPU sort kernel holds a line in shared memory, at most " +
         str(kMaxSortRow) + " elements";
}

std::string noSortKernelMessage(const ir::Expr& sort, int64_t lineLength) {
  return "fd.ops." + sort.opName() + " (" + exprSummary(sort) + ") sorts lines of " +
         str(lineLength) + " elements, more than the " + str(kMaxSortRow) +
         " that FuserLab's GPU sort kernel holds in shared memory; it runs on the CPU reference "
         "backend (run --backend cpu)";
}

PointwiseParams sortParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  PointwiseParams params;
  const ir::Expr* sort = sortOf(segment);
  if (sort != nullptr) {
    // One thread per compare-exchange of the padded line: half of it.
    const int64_t padded = nextPowerOfTwo(std::max<int64_t>(sortRowLength(*sort, info), 1));
    params.blockDimX = std::clamp<int64_t>(padded / 2, 32, kMaxThreadsPerBlock);
  }
  params.useInt32Indexing = largestSpan(segment, info).fitsInt32();
  return params;
}

std::optional<std::string> rejectSortParams(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info,
                                            const PointwiseParams& params) {
  if (auto why = rejectVectorsUnrollingOrSplit(params, "a sort kernel runs one block per line")) {
    return why;
  }
  if (params.blockDimX < 32 || params.blockDimX % 32 != 0 ||
      params.blockDimX > info.device->maxThreadsPerBlock) {
    return "block_dim_x " + str(params.blockDimX) +
           ": a sort kernel takes a multiple of 32 up to the " +
           str(info.device->maxThreadsPerBlock) + " threads per block of the " + info.device->name;
  }
  if (params.useInt32Indexing) {
    if (auto why = rejectInt32Indexing(segment, info)) return why;
  }
  return std::nullopt;
}

report::Json sortProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  report::Json json = report::Json::object();
  const ir::Expr* sort = sortOf(segment);
  if (sort == nullptr) return json;
  json.set("sort", exprSummary(*sort));
  json.set("sort_axis", sort->attrs().dim);
  json.set("line_length", sortRowLength(*sort, info));
  json.set("lines", lineCount(*sort, info));
  json.set("schedule", std::string("one block per line: the line in shared memory, a bitonic "
                                   "sort of (value, position) pairs"));
  return json;
}

}  // namespace fuserlab::scheduler
