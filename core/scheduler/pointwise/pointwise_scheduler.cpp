#include "core/scheduler/pointwise/pointwise_scheduler.h"

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/analysis/vectorization.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"
#include "core/scheduler/pointwise/pointwise_heuristic.h"
#include "core/scheduler/pointwise/scan_segment.h"
#include "core/scheduler/pointwise/scatter_segment.h"
#include "core/scheduler/pointwise/sort_segment.h"

namespace fuserlab::scheduler {
namespace {

using ir::ExprType;

constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridY = 65535;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool isPowerOfTwoUpTo16(int64_t value) {
  return value == 1 || value == 2 || value == 4 || value == 8 || value == 16;
}

std::string paramsKindName(const HeuristicParams& params) {
  switch (params.index()) {
    case 0: return "no";
    case 1: return "pointwise";
    case 2: return "reduction";
    case 3: return "transpose";
    default: return "matmul";
  }
}

std::string str(int64_t value) { return std::to_string(value); }

// Grid checks for params that passed the shape checks.
std::optional<std::string> rejectGrid(const PointwiseParams& p, const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (int64_t extent : shape) elements *= extent;
  if (elements == 0) return std::nullopt;
  if (p.breakPoint == 0) {
    const int64_t grid =
        ceilDiv(elements, p.blockDimX * p.vectorizationFactor * p.unrollFactorInner);
    if (grid > kMaxGridX) {
      return "a 1-D grid of " + str(grid) + " blocks exceeds " + str(kMaxGridX) +
             ": raise block_dim_x or unroll_factor_inner";
    }
    return std::nullopt;
  }
  int64_t inner = 1;
  for (size_t k = static_cast<size_t>(p.breakPoint); k < shape.size(); ++k) {
    inner *= shape[k];
  }
  const int64_t outer = elements / inner;
  const int64_t gridInner =
      ceilDiv(inner, p.blockDimX * p.vectorizationFactor * p.unrollFactorInner);
  const int64_t gridOuter = ceilDiv(outer, p.blockDimY * p.unrollFactorOuter);
  const int64_t gridY = p.flipGrid ? gridInner : gridOuter;
  const int64_t gridX = p.flipGrid ? gridOuter : gridInner;
  if (gridY > kMaxGridY) {
    return "grid y would have " + str(gridY) + " blocks (the " + (p.flipGrid ? "inner" : "outer") +
           " part), more than " + str(kMaxGridY) + ": " +
           (p.flipGrid ? "unset flip_grid" : "set flip_grid") +
           ", or raise block_dim_y / unroll_factor_outer";
  }
  if (gridX > kMaxGridX) {
    return "grid x would have " + str(gridX) + " blocks, more than " + str(kMaxGridX);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> PointwiseScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  bool tensorOutput = false;
  for (const ir::Val* val : segment.outputVals()) {
    tensorOutput = tensorOutput || val->isA<ir::TensorView>();
  }
  if (!tensorOutput) {
    return "has no tensor output: there is nothing for a kernel to write";
  }
  const OwnKernelOps ops = ownKernelOps(segment);
  if (ops.scan != nullptr) return rejectScanSegment(segment, *ops.scan);
  if (ops.indexedWrite != nullptr) return rejectIndexedWriteSegment(segment, *ops.indexedWrite);
  if (ops.sort != nullptr) return rejectSortSegment(segment, *ops.sort);
  for (const ir::Expr* expr : liveExprs(segment)) {
    switch (expr->type()) {
      case ExprType::Reduction:
      case ExprType::Welford:
        return "has a reduction: " + exprSummary(*expr) +
               "; the reduction and normalization schedulers take reductions";
      case ExprType::Matmul:
      case ExprType::Linear:
      case ExprType::Sdpa:
        return "has a " + expr->opName() + ": " + exprSummary(*expr) +
               "; matmul, linear and sdpa run as library calls (expr_eval "
               "or matmul)";
      default: break;
    }
  }
  return std::nullopt;
}

std::optional<std::string> PointwiseScheduler::rejectRunTime(const ir::Fusion& segment,
                                                             const SegmentRuntimeInfo& info) const {
  const OwnKernelOps ops = ownKernelOps(segment);
  if (ops.scan != nullptr) return std::nullopt;          // the scan kernel takes any sizes
  if (ops.indexedWrite != nullptr) return std::nullopt;  // so does an indexed write
  if (ops.sort != nullptr) return sortRowTooLong(*ops.sort, info);
  const ir::TensorView* reference = largestOutput(segment, info.evaluator);
  if (reference == nullptr) return "has no tensor output";
  const AxisTrace trace(segment, reference, info.evaluator);
  for (const ir::TensorView* tv : inputsAndOutputs(segment)) {
    const std::string why = trace.uncoveredAxis(tv);
    if (!why.empty()) {
      return "the largest output " + reference->name() +
             " cannot be the reference every tensor is indexed from: " + why;
    }
  }
  for (const ir::Val* val : segment.outputVals()) {
    const auto* tv = val->as<ir::TensorView>();
    if (tv == nullptr) continue;
    const std::string why = trace.partiallyWrittenAxis(tv);
    if (!why.empty()) return why;
    // Every output is written at an index the kernel computes from the
    // reference's (ReferenceWalk::outputAccess); one the trace loses (a
    // slice with a step, a reshape that regroups unevenly) or reaches
    // through a gather's index cannot be, and the segment is split instead
    // of failing in code generation (the differential tester's seed 100125).
    if (tv == reference) continue;
    const TensorTrace* traced = trace.find(tv);
    if (traced == nullptr) continue;
    for (size_t k = 0; k < traced->axes.size(); ++k) {
      for (const AxisPiece& piece : traced->axes[k]) {
        if (piece.kind == PieceKind::Lost) {
          return "output " + tv->name() + " cannot be indexed from the reference " +
                 reference->name() +
                 (traced->lostReason.empty() ? std::string() : ": " + traced->lostReason);
        }
        if (piece.kind == PieceKind::Indexed) {
          return "output " + tv->name() + " is reached from the reference " + reference->name() +
                 " only through a gather's index";
        }
      }
    }
  }
  return std::nullopt;
}

HeuristicParams PointwiseScheduler::computeHeuristics(const ir::Fusion& segment,
                                                      const SegmentRuntimeInfo& info) const {
  const OwnKernelOps ops = ownKernelOps(segment);
  if (ops.scan != nullptr) return scanParams(segment, info);
  if (ops.indexedWrite != nullptr) return indexedWriteParams(segment, info);
  if (ops.sort != nullptr) return sortParams(segment, info);
  return decidePointwise(segment, info).params;
}

std::optional<std::string> PointwiseScheduler::rejectParams(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info,
                                                            const HeuristicParams& params) const {
  const auto* p = std::get_if<PointwiseParams>(&params);
  if (p == nullptr) {
    return "expected pointwise params, got " + paramsKindName(params) + " params";
  }
  const OwnKernelOps ops = ownKernelOps(segment);
  if (ops.scan != nullptr) return rejectScanParams(segment, info, *p);
  if (ops.indexedWrite != nullptr) return rejectIndexedWriteParams(segment, info, *p);
  if (ops.sort != nullptr) return rejectSortParams(segment, info, *p);
  if (!isPowerOfTwoUpTo16(p->vectorizationFactor)) {
    return "vectorization_factor " + str(p->vectorizationFactor) + " is not 1, 2, 4, 8 or 16";
  }
  if (p->unrollFactorInner < 1 || p->unrollFactorOuter < 1) {
    return "unroll factors must be at least 1, got unroll_factor_inner " +
           str(p->unrollFactorInner) + " and unroll_factor_outer " + str(p->unrollFactorOuter);
  }
  const DeviceSpec& device = *info.device;
  if (p->blockDimX < 1 || p->blockDimY < 1 ||
      p->blockDimX * p->blockDimY > device.maxThreadsPerBlock) {
    return "a block of " + str(p->blockDimX) + " x " + str(p->blockDimY) +
           " threads does not fit the " + str(device.maxThreadsPerBlock) +
           " threads per block of the " + device.name;
  }

  const ir::TensorView* reference = largestOutput(segment, info.evaluator);
  if (reference == nullptr) return "has no tensor output";
  const AxisTrace trace(segment, reference, info.evaluator);
  const std::vector<int64_t>& shape = trace.referenceExtents();
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (p->breakPoint < 0 || (p->breakPoint > 0 && p->breakPoint >= rank)) {
    return "break_point " + str(p->breakPoint) + " is outside the reference " + reference->name() +
           " of rank " + str(rank) +
           (rank > 1 ? ": use 0 for a 1-D schedule or 1 to " + str(rank - 1)
                     : ": only 0 (a 1-D schedule) fits");
  }
  if (p->breakPoint == 0 && (p->blockDimY > 1 || p->unrollFactorOuter > 1)) {
    return "block_dim_y " + str(p->blockDimY) + " and unroll_factor_outer " +
           str(p->unrollFactorOuter) +
           " need a 2-D schedule (break_point > 0); a 1-D schedule takes 1";
  }
  if (p->breakPoint > 0) {
    const std::string split = breakPointSplitsReshape(segment, info, reference, p->breakPoint);
    if (!split.empty()) return "break_point " + str(p->breakPoint) + ": " + split;
  }

  VectorizationQuery query;
  query.reference = reference;
  query.splitWideAccesses = true;
  query.breakPoint = p->breakPoint;
  const VectorizationAnalysis vectorization = analyzeVectorization(segment, info, query);
  if (vectorization.factor % p->vectorizationFactor != 0) {
    return "vectorization_factor " + str(p->vectorizationFactor) + " is more than the " +
           str(vectorization.factor) + " the tensors allow at break point " + str(p->breakPoint) +
           " (" + vectorization.reason() + ")";
  }
  if (auto grid = rejectGrid(*p, shape)) return grid;

  if (p->useInt32Indexing) {
    if (auto why = rejectInt32Indexing(segment, info)) return why;
  }
  return std::nullopt;
}

report::Json PointwiseScheduler::properties(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info) const {
  const OwnKernelOps ops = ownKernelOps(segment);
  if (ops.scan != nullptr) return scanProperties(segment, info);
  if (ops.indexedWrite != nullptr) return indexedWriteProperties(segment, info);
  if (ops.sort != nullptr) return sortProperties(segment, info);
  return decidePointwise(segment, info).toJson();
}

}  // namespace fuserlab::scheduler
