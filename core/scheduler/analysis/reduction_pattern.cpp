#include "core/scheduler/analysis/reduction_pattern.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/analysis/row_gather.h"
#include "core/scheduler/analysis/vectorization.h"

namespace fuserlab::scheduler {
namespace {

using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

std::string axesList(const std::vector<int64_t>& axes) {
  std::string out = "[";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(axes[i]);
  }
  return out + "]";
}

std::string describe(const ReductionInfo& r) {
  return r.output->name() + " (axes " + axesList(r.axes) + " of " + r.input->name() + ", rank " +
         std::to_string(r.input->rank()) + ")";
}

// The reference's non-reduction axes in allocation order (logical order when
// the allocation is split or merged), as positions among its logical axes.
std::vector<int64_t> allocationOrder(const TensorView* tv) {
  const std::vector<IterDomain*>& logical = tv->logicalNoReductions();
  std::vector<int64_t> order;
  if (allocationIsPermutation(tv)) {
    for (const IterDomain* id : ir::noReductions(tv->maybeAllocation())) {
      auto it = std::find(logical.begin(), logical.end(), id);
      order.push_back(it - logical.begin());
    }
  }
  if (order.size() != logical.size()) {
    order.clear();
    for (size_t i = 0; i < logical.size(); ++i) {
      order.push_back(static_cast<int64_t>(i));
    }
  }
  return order;
}

bool contains(const std::vector<int64_t>& axes, int64_t axis) {
  return std::find(axes.begin(), axes.end(), axis) != axes.end();
}

// Where an unsupported op belongs, for the refusal.
std::optional<std::string> unsupportedOp(const ir::Expr& expr, const ReductionPattern& pattern) {
  // Most exprs are supported: the name is made only for a refusal.
  auto outputName = [&] { return expr.outputs().empty() ? std::string() : expr.output(0)->name(); };
  switch (expr.type()) {
    case ExprType::SegmentSet:
      return "segment_set " + outputName() +
             " forces a segment boundary, so no kernel scheduler takes it "
             "together with other ops";
    case ExprType::Reshape:
      if (pattern.innermost && pattern.axes.size() == 1 && pattern.axes[0] == pattern.rank - 1) {
        return std::nullopt;  // rejectReshapeExtents checks it at run time
      }
      return "reshape " + outputName() + " is in a segment reducing " + pattern.axesDescription() +
             "; the reduction schedulers replay a reshape only around rows "
             "that are the innermost axis alone, so it belongs in a segment "
             "of its own";
    case ExprType::Slice:
    case ExprType::Pad:
    case ExprType::Cat:
      return std::string(toString(expr.type())) + " " + outputName() +
             " resizes an axis, which the reduction schedulers do not "
             "support; it belongs in a pointwise segment";
    case ExprType::Gather:
    case ExprType::IndexSelect:
      return std::string(toString(expr.type())) + " " + outputName() +
             " reads through an index tensor, which the reduction "
             "schedulers do not support; it belongs in a pointwise segment";
    case ExprType::Matmul:
    case ExprType::Linear:
    case ExprType::Sdpa:
      return std::string(toString(expr.type())) + " " + outputName() +
             " is a library call (expr_eval or matmul), not part of a "
             "reduction kernel";
    default: return std::nullopt;
  }
}

}  // namespace

std::string ReductionPattern::axesDescription() const {
  return "axes " + axesList(axes) + " of a rank-" + std::to_string(rank) + " tensor";
}

namespace {

// Why the reductions, whose axes are at the same positions, still reduce
// different axes: a permute moves axes between them, and a reduced axis of
// one, followed to the first reduction's input, is an axis the first does
// not reduce. nullopt where none is (or no permute is live: positions are
// axes; or the walk cannot follow an axis, which keeps the positions'
// answer).
std::optional<std::string> reducedAxesDiffer(const ir::Fusion& segment,
                                             const std::vector<ReductionInfo>& reductions) {
  const ir::Expr* permute = nullptr;
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr->type() == ExprType::Permute) permute = expr;
  }
  if (permute == nullptr) return std::nullopt;
  const ReductionInfo& first = reductions.front();
  const AxisTrace trace(segment, first.input, nullptr);
  const std::vector<const IterDomain*>& referenceAxes = trace.referenceAxes();
  const std::vector<IterDomain*>& firstAxes = first.input->logicalNoReductions();
  for (size_t r = 1; r < reductions.size(); ++r) {
    const ReductionInfo& other = reductions[r];
    const TensorTrace* walked = trace.find(other.input);
    if (walked == nullptr) continue;
    const std::vector<IterDomain*>& otherAxes = other.input->logicalNoReductions();
    for (size_t k = 0; k < walked->axes.size() && k < referenceAxes.size(); ++k) {
      const auto ref = std::find(firstAxes.begin(), firstAxes.end(), referenceAxes[k]);
      if (ref == firstAxes.end() || contains(first.axes, ref - firstAxes.begin())) continue;
      for (const AxisPiece& piece : walked->axes[k]) {
        if (piece.kind != PieceKind::Axis) continue;
        const auto at = std::find(otherAxes.begin(), otherAxes.end(), piece.id);
        if (at == otherAxes.end() || !contains(other.axes, at - otherAxes.begin())) continue;
        return "reductions " + describe(first) + " and " + describe(other) +
               " reduce different axes through permute " + permute->output(0)->name() +
               " (the same positions, other axes: the second reduces axis " +
               std::to_string(ref - firstAxes.begin()) + " of the first's input); one " +
               "reduction kernel follows one set of reduced axes, so they belong in "
               "different segments";
      }
    }
  }
  return std::nullopt;
}

// Moves the column sums of a combined normalization backward out of
// `pattern.reductions` into `pattern.columnReductions`: where every
// reduction reduces either the row axes (those of the reductions over the
// innermost allocated axis) or exactly the other axes, of tensors of one
// rank with one allocation order, the latter are all sums, and no permute
// is live (positions then name the same axes in every reduction). Leaves
// the pattern as it is otherwise, to be refused as before.
void splitColumnReductions(const ir::Fusion& segment, ReductionPattern& pattern) {
  const std::vector<ReductionInfo>& all = pattern.reductions;
  const TensorView* firstInput = all.front().input;
  const int64_t rank = firstInput->rank();
  if (rank < 2) return;
  const std::vector<int64_t> order = allocationOrder(firstInput);
  const int64_t innermostAxis = order.back();
  const ReductionInfo* row = nullptr;
  for (const ReductionInfo& r : all) {
    if (r.input->rank() != rank || allocationOrder(r.input) != order) return;
    if (row == nullptr && contains(r.axes, innermostAxis)) row = &r;
  }
  if (row == nullptr) return;
  std::vector<int64_t> columnAxes;
  for (int64_t a = 0; a < rank; ++a) {
    if (!contains(row->axes, a)) columnAxes.push_back(a);
  }
  if (columnAxes.empty()) return;
  std::vector<ReductionInfo> rows;
  std::vector<ReductionInfo> columns;
  for (const ReductionInfo& r : all) {
    if (r.axes == row->axes) {
      rows.push_back(r);
    } else if (r.axes == columnAxes && r.expr->type() == ExprType::Reduction &&
               r.expr->attrs().reductionOp == ir::ReductionOpType::Sum) {
      columns.push_back(r);
    } else {
      return;
    }
  }
  if (columns.empty()) return;
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr->type() == ExprType::Permute) return;
  }
  pattern.reductions = std::move(rows);
  pattern.columnReductions = std::move(columns);
}

ReductionPatternResult computeReductionPattern(const ir::Fusion& segment) {
  ReductionPatternResult result;
  ReductionPattern pattern;
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr->type() != ExprType::Reduction && expr->type() != ExprType::Welford) {
      continue;
    }
    const auto* input = expr->input(0)->as<TensorView>();
    const auto* output = expr->output(0)->as<TensorView>();
    FL_ASSERT(input != nullptr && output != nullptr,
              "a reduction reads and writes tensors: ", expr->toString());
    ReductionInfo info{expr, input, output, expr->attrs().axes};
    std::sort(info.axes.begin(), info.axes.end());
    pattern.reductions.push_back(std::move(info));
  }
  if (pattern.reductions.empty()) {
    result.reason = "the segment has no reduction";
    return result;
  }
  splitColumnReductions(segment, pattern);
  const ReductionInfo& first = pattern.reductions.front();
  for (const ReductionInfo& other : pattern.reductions) {
    if (other.input->rank() != first.input->rank() || other.axes != first.axes) {
      result.reason = "reductions " + describe(first) + " and " + describe(other) +
                      " reduce different axes; one reduction kernel follows "
                      "one set of reduced axes, so they belong in different "
                      "segments";
      return result;
    }
  }
  // The positions above name the same axes only where no permute moves
  // axes between the reductions: a sum over axis 0 and a max over axis 0
  // of a permute([1, 0, ...]) of its result reduce different axes (the
  // differential tester's seed 632936: an outer persistent kernel took
  // both as one and was wrong in 15,797 of 16,384 elements on an H200).
  // With a permute in the segment, each reduction's axes are followed to
  // the first one's input and compared there.
  if (pattern.reductions.size() > 1) {
    if (auto mismatch = reducedAxesDiffer(segment, pattern.reductions)) {
      result.reason = *mismatch;
      return result;
    }
  }
  pattern.axes = first.axes;
  pattern.rank = first.input->rank();

  const std::vector<IterDomain*>& logical = first.input->logicalNoReductions();
  const std::vector<int64_t> order = allocationOrder(first.input);
  pattern.innermost = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (logical[*it]->isBroadcast() && !contains(pattern.axes, *it)) continue;
    pattern.innermost = contains(pattern.axes, *it);
    break;
  }
  if (!pattern.columnReductions.empty() && !pattern.innermost) {
    result.reason = "reductions " + describe(first) + " and " +
                    describe(pattern.columnReductions.front()) +
                    " reduce different axes, and the first's are not the innermost "
                    "non-broadcast ones; one reduction kernel follows one set of "
                    "reduced axes, so they belong in different segments";
    return result;
  }
  result.pattern = std::move(pattern);
  return result;
}

}  // namespace

ReductionPatternResult analyzeReductionPattern(const ir::Fusion& segment) {
  auto* cache = analysis_cache::find(segment);
  if (cache == nullptr) return computeReductionPattern(segment);
  if (const auto* cached = analysis_cache::reductionPattern(*cache)) {
    return *cached;
  }
  ReductionPatternResult result = computeReductionPattern(segment);
  analysis_cache::setReductionPattern(*cache, result);
  return result;
}

std::optional<std::string> rejectColumnReductions(const ReductionPattern& pattern,
                                                  const std::string& self) {
  if (pattern.columnReductions.empty()) return std::nullopt;
  const ReductionInfo& column = pattern.columnReductions.front();
  return "column sum " + describe(column) + " reduces every axis row reduction " +
         pattern.reductions.front().output->name() + " keeps; " + self +
         " follows one set of reduced axes (inner_persistent's combined kernel "
         "computes both, or they go in separate segments)";
}

std::optional<std::string> rejectUnsupportedReductionOps(
    const ir::Fusion& segment, const ReductionPattern& pattern,
    const std::vector<const ir::Expr*>& supported) {
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (std::find(supported.begin(), supported.end(), expr) != supported.end()) {
      continue;
    }
    if (auto reason = unsupportedOp(*expr, pattern)) return reason;
  }
  return std::nullopt;
}

std::optional<std::string> rejectReshapeExtents(const ir::Fusion& segment,
                                                const ir::ExpressionEvaluator& evaluator) {
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (expr->type() != ExprType::Reshape) continue;
    const auto* in = expr->input(0)->as<TensorView>();
    const auto* out = expr->output(0)->as<TensorView>();
    const std::vector<IterDomain*>& inAxes = in->logicalNoReductions();
    const std::vector<IterDomain*>& outAxes = out->logicalNoReductions();
    const int64_t inExtent = inAxes.empty() ? 1 : evaluator.evaluateExtent(inAxes.back());
    const int64_t outExtent = outAxes.empty() ? 1 : evaluator.evaluateExtent(outAxes.back());
    if (inAxes.empty() || outAxes.empty() || inExtent != outExtent) {
      return "reshape " + out->name() + " changes the innermost extent (" + in->name() + "'s " +
             std::to_string(inExtent) + " to " + std::to_string(outExtent) +
             "), so it regroups the rows a reduction kernel walks; it "
             "belongs in a segment of its own";
    }
  }
  return std::nullopt;
}

namespace {

// Whether `tv`'s value comes in part from an iota or a random op of the
// segment: the reduction kernels compute those at each element's own
// index, never as a per-row value.
bool fromAnIndexOp(const TensorView* tv) {
  std::vector<const ir::Val*> stack{tv};
  std::vector<const ir::Val*> seen;
  while (!stack.empty()) {
    const ir::Val* val = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), val) != seen.end()) continue;
    seen.push_back(val);
    const ir::Expr* def = val->definition();
    if (def == nullptr) continue;
    if (def->type() == ExprType::Iota || def->type() == ExprType::Random) return true;
    for (const ir::Val* in : def->inputs()) {
      if (in->as<TensorView>() != nullptr) stack.push_back(in);
    }
  }
  return false;
}

}  // namespace

namespace {

std::optional<std::string> computeUntracedTensors(const ir::Fusion& segment,
                                                  const ReductionPattern& pattern,
                                                  const ir::ExpressionEvaluator& evaluator) {
  const TensorView* reference = pattern.reference();
  const AxisTrace trace(segment, reference, &evaluator);
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    if (tv->isCpuScalar()) continue;
    const std::string why = trace.uncoveredAxis(tv);
    if (!why.empty()) {
      return "the reduction kernels index every tensor from the reduced "
             "tensor " +
             reference->name() + ", but " + why;
    }
  }
  for (const ir::Val* val : segment.outputVals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    const std::string why = trace.partiallyWrittenAxis(tv);
    if (!why.empty()) return why;
  }
  // An output from an iota or a random op is computed at each element, so
  // it must be written per element: one that does not walk every reduced
  // axis has no per-row value to write (the differential tester's seeds
  // 200139 and 202725 reached code generation).
  const auto& referenceLogical = reference->logicalNoReductions();
  for (const ir::Val* val : segment.outputVals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || !fromAnIndexOp(tv)) continue;
    const TensorTrace* traced = trace.find(tv);
    bool walked = false;  // some reduced axis longer than 1
    bool everyOne = true;
    for (int64_t a : pattern.axes) {
      const IterDomain* id = referenceLogical.at(static_cast<size_t>(a));
      const auto& axes = trace.referenceAxes();
      const auto k = static_cast<size_t>(std::find(axes.begin(), axes.end(), id) - axes.begin());
      if (k >= axes.size() || trace.referenceExtents()[k] == 1) continue;
      walked = true;
      everyOne = everyOne && traced != nullptr && traced->moves(k);
    }
    if (!walked || !everyOne) {
      return "output " + tv->name() +
             " comes from an iota or a random op, which the "
             "reduction kernels compute per element, but it does not vary along every "
             "reduced axis of " +
             reference->name() + " longer than 1 (" + pattern.axesDescription() +
             "), so it has no per-row value to write";
    }
  }
  // The reduction kernels load each input and compute each value once per
  // position of the reduced tensor (seed 104723 on an H200: logical_and(T0,
  // permute(T0)) read T0's loaded vector for both; seed 104387: a row max
  // times its own transpose read the max at the wrong rows).
  if (std::string why = trace.readAtTwoPositions(); !why.empty()) {
    return "the reduction kernels load and compute each tensor once per "
           "position, but " +
           why;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> rejectUntracedTensors(const ir::Fusion& segment,
                                                 const ReductionPattern& pattern,
                                                 const ir::ExpressionEvaluator& evaluator) {
  // The reduction, inner and outer persistent schedulers each ask this of
  // the same segment at the same sizes (the trace is the largest part of
  // their run-time checks): once per scope.
  auto* cache = analysis_cache::find(segment);
  if (cache == nullptr || !analysis_cache::evaluatesWith(*cache, evaluator)) {
    return computeUntracedTensors(segment, pattern, evaluator);
  }
  if (const auto* cached = analysis_cache::untracedTensors(*cache, pattern)) return *cached;
  std::optional<std::string> result = computeUntracedTensors(segment, pattern, evaluator);
  analysis_cache::setUntracedTensors(*cache, pattern, result);
  return result;
}

ReductionExtentsResult reductionExtents(const ReductionPattern& pattern,
                                        const ir::ExpressionEvaluator& evaluator) {
  ReductionExtentsResult result;
  auto reducedExtent = [&](const ReductionInfo& r) {
    const std::vector<IterDomain*>& logical = r.input->logicalNoReductions();
    int64_t extent = 1;
    for (int64_t axis : r.axes) extent *= evaluator.evaluateExtent(logical[axis]);
    return extent;
  };
  const ReductionInfo& first = pattern.reductions.front();
  ReductionExtents& extents = result.extents;
  extents.reductionExtent = reducedExtent(first);
  for (const ReductionInfo& other : pattern.reductions) {
    const int64_t extent = reducedExtent(other);
    if (extent != extents.reductionExtent) {
      result.reason = "reductions " + first.output->name() + " and " + other.output->name() +
                      " combine " + std::to_string(extents.reductionExtent) + " and " +
                      std::to_string(extent) +
                      " elements per row at these sizes; one reduction "
                      "kernel needs rows of one length";
      return result;
    }
  }
  const std::vector<IterDomain*>& logical = first.input->logicalNoReductions();
  extents.iterationExtent = 1;
  for (int64_t axis = 0; axis < static_cast<int64_t>(logical.size()); ++axis) {
    if (contains(pattern.axes, axis)) continue;
    extents.iterationExtent *= evaluator.evaluateExtent(logical[axis]);
  }
  // The innermost run of axes of the vectorized kind, in allocation order;
  // size-1 axes neither end nor extend it.
  const std::vector<int64_t> order = allocationOrder(first.input);
  extents.vectorizedExtent = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int64_t extent = evaluator.evaluateExtent(logical[*it]);
    if (extent == 1) continue;
    if (contains(pattern.axes, *it) != pattern.innermost) break;
    extents.vectorizedExtent *= extent;
  }
  return result;
}

namespace {

// Rows shorter than this many chunks are not worth shifting: their head and
// tail would be a large share of them.
constexpr int64_t kMinShiftedRowChunks = 16;

// `factor`, halved until every contiguous input of rank >= 2 that the
// kernel reads by vectors (the tensors laid out as rows) has its data
// pointer aligned to it.
template <typename ReadByVectors>
int64_t shiftedRowsFactor(const ir::Fusion& segment, const SegmentRuntimeInfo& info, int64_t factor,
                          const ReadByVectors& readByVectors) {
  const auto& inputs = segment.inputs();
  for (size_t i = 0; i < inputs.size() && i < info.inputs.size(); ++i) {
    const auto* tv = inputs[i]->as<TensorView>();
    const TensorInputInfo& in = info.inputs[i];
    if (tv == nullptr || tv->isCpuScalar() || in.sizes.size() < 2 || !readByVectors(tv)) continue;
    int64_t expected = 1;
    bool contiguous = true;
    for (size_t k = in.sizes.size(); k-- > 0;) {
      if (in.sizes[k] != 1 && in.strides[k] != expected) contiguous = false;
      expected *= in.sizes[k];
    }
    if (!contiguous) continue;
    const int64_t bytes = ir::sizeInBytes(tv->dtype());
    while (factor > 1 && in.alignmentBytes < factor * bytes) factor /= 2;
  }
  return factor;
}

}  // namespace

VectorizeLimit maxVectorizeFactor(const ir::Fusion& segment, const ReductionPattern& pattern,
                                  const ReductionExtents& extents, const SegmentRuntimeInfo& info) {
  VectorizeLimit limit;
  // The kernel walks the reference's vectorized run: its trailing reduced
  // axes (inner) or trailing kept axes (outer), in allocation order.
  const std::vector<int64_t> order = allocationOrder(pattern.reference());
  const std::vector<IterDomain*>& logical = pattern.reference()->logicalNoReductions();
  int64_t breakPoint = static_cast<int64_t>(order.size());
  for (int64_t k = breakPoint - 1; k >= 0; --k) {
    const bool reduced = contains(pattern.axes, order[k]);
    if (logical[order[k]]->isBroadcast() && !reduced) {
      breakPoint = k;
      continue;
    }
    if (reduced != pattern.innermost) break;
    breakPoint = k;
  }

  // Every input, and every output that holds the run (reduction results
  // broadcast back, or reduced away, are written element by element):
  // contiguity, strides, alignment, traced through reshape, permute,
  // broadcast and expand.
  VectorizationQuery query;
  query.reference = pattern.reference();
  query.breakPoint = breakPoint;
  for (const ir::Val* val : segment.inputs()) {
    const auto* tv = val->as<TensorView>();
    if (tv != nullptr && !tv->isCpuScalar() && !val->uses().empty()) {
      query.tensors.push_back(tv);
    }
  }
  for (const ir::Val* val : segment.outputVals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || tv->isFusionInput() || tv->rank() != pattern.rank ||
        std::find(query.tensors.begin(), query.tensors.end(), tv) != query.tensors.end()) {
      continue;
    }
    const std::vector<IterDomain*>& axes = tv->logicalNoReductions();
    bool holdsRun = true;
    for (size_t k = breakPoint; k < order.size(); ++k) {
      holdsRun = holdsRun && !axes[order[k]]->isBroadcast();
    }
    if (holdsRun) query.tensors.push_back(tv);
  }
  // The widest input element decides how many elements 16 bytes hold
  // (nvFuser's max_input_dtype_size rule), but for an inner reduction's
  // inputs read once per row rather than by vectors: a row gather's index
  // (one int64 label per row) and inputs constant along the row (a float
  // [rows, 1] rstd beside bf16 rows), as the pointwise scheduler counts
  // only vectorized tensors. (H200, bench of the norm backwards' dx
  // kernels, docs/performance.md: bf16 8191x1023 LayerNorm 23.5 -> 22.4
  // us, RMSNorm 20.0 -> 19.7, the aligned 8192x4096 ones unchanged.) Not
  // for outer reductions: their column sums of bf16 [8192, 4096] beside a
  // float rstd ran 44.2 us in chunks of 4 and 51.8 in chunks of 8, each
  // thread accumulating a float per column of its chunk.
  // An inner reduction's analysis therefore runs first, at the widest
  // factor (16): its flags say which inputs are read once per row, and a
  // tensor's limits below the final factor do not depend on the factor
  // asked for.
  std::optional<VectorizationAnalysis> analysis;
  std::vector<const TensorView*> readOncePerRun;
  if (pattern.innermost) {
    readOncePerRun = rowGatherIndexInputs(segment, findRowGathers(segment, pattern).gathers);
    analysis = analyzeVectorization(segment, info, query);
    for (size_t i = 0; i < analysis->tensors.size(); ++i) {
      const TensorVectorization& t = analysis->tensors[i];
      if (t.isInput && t.constantAlongRun) readOncePerRun.push_back(query.tensors[i]);
    }
  }
  const auto readByVectors = [&](const TensorView* tv) {
    return std::find(readOncePerRun.begin(), readOncePerRun.end(), tv) == readOncePerRun.end();
  };
  int64_t widest = 0;
  ir::DataType widestType = ir::DataType::Float;
  for (const ir::Val* val : segment.inputs()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || tv->isCpuScalar() || val->uses().empty() || !readByVectors(tv)) continue;
    if (ir::sizeInBytes(tv->dtype()) > widest) {
      widest = ir::sizeInBytes(tv->dtype());
      widestType = tv->dtype();
    }
  }
  if (widest == 0) {
    widest = 4;
    widestType = ir::DataType::Float;
  }
  limit.dtypeFactor = 1;
  while (limit.dtypeFactor * 2 * widest <= 16) limit.dtypeFactor *= 2;
  limit.factor = limit.dtypeFactor;
  limit.limitedBy = "16-byte accesses of " + std::to_string(widest) + "-byte (" +
                    std::string(ir::toString(widestType)) + ") inputs";

  if (pattern.innermost && extents.vectorizedExtent % limit.factor != 0 &&
      extents.vectorizedExtent >= kMinShiftedRowChunks * limit.dtypeFactor) {
    // 16-byte chunks, as for aligned rows. (H100, a harness of the
    // generated masked softmax 8192x2050, docs/performance.md: 64 threads x
    // 4 chunks of 8, 28.8 us; 64 x 8 chunks of 4, 38.3; the old 8-byte
    // rule's 192 x 3 of 4, 37.8. The tuner had measured chunks of 4 ahead
    // only because it gave chunks of 8 one idle chunk more per thread.)
    limit.shiftedRowsFactor = shiftedRowsFactor(segment, info, limit.dtypeFactor, readByVectors);
  }
  if (extents.vectorizedExtent % limit.factor != 0) {
    while (extents.vectorizedExtent % limit.factor != 0) limit.factor /= 2;
    limit.limitedBy = std::string("the innermost ") + (pattern.innermost ? "reduced" : "kept") +
                      " extent " + std::to_string(extents.vectorizedExtent) +
                      " is not divisible by " + std::to_string(limit.factor * 2);
  }
  if (limit.factor == 1) return limit;
  if (!analysis) {
    query.maxFactor = limit.factor;
    analysis = analyzeVectorization(segment, info, query);
  }
  if (analysis->factor < limit.factor) {
    limit.factor = analysis->factor;
    limit.limitedBy = analysis->reason();
  }
  return limit;
}

bool fitsInt32Indexing(const ir::Fusion& segment, const ir::ExpressionEvaluator& evaluator) {
  constexpr int64_t kLimit = std::numeric_limits<int32_t>::max();
  for (const auto& val : segment.vals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    int64_t elements = 1;
    for (const IterDomain* id : tv->logical()) {
      const std::optional<int64_t> extent = evaluatedExtent(&evaluator, id);
      if (!extent) return false;
      if (*extent == 0) break;  // an empty tensor fits whatever its other extents
      if (elements > kLimit / std::max<int64_t>(*extent, 1)) return false;
      elements *= std::max<int64_t>(*extent, 1);
    }
  }
  return true;
}

}  // namespace fuserlab::scheduler
