#include "core/scheduler/persistent/normalization_checks.h"

#include <unordered_set>

#include "core/ir/error.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/analysis/row_gather.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::scheduler {
namespace {

// Why a combined kernel cannot compute what reads the segment's column sums:
// it has them only after every row, so only ops of column sums alone (and
// scalars) may follow them; nullopt if none other does.
std::optional<std::string> rejectColumnSumUses(const ir::Fusion& segment,
                                               const ReductionPattern& pattern) {
  std::unordered_set<const ir::Val*> perColumn;
  for (const ReductionInfo& c : pattern.columnReductions) perColumn.insert(c.output);
  for (const ir::Expr* expr : liveExprs(segment)) {
    const ir::Val* sum = nullptr;
    const ir::Val* other = nullptr;
    for (const ir::Val* in : expr->inputs()) {
      if (in->as<ir::TensorView>() == nullptr) continue;
      (perColumn.count(in) != 0 ? sum : other) = in;
    }
    if (sum == nullptr) continue;
    const bool reduces =
        expr->type() == ir::ExprType::Reduction || expr->type() == ir::ExprType::Welford;
    if (other != nullptr || reduces) {
      return expr->output(0)->name() + " " +
             (reduces ? "reduces " + sum->name() + ", computed from column sums,"
                      : "combines " + sum->name() + ", computed from column sums, with " +
                            other->name() + ",") +
             " but a combined kernel has its column sums only after every row (they go in "
             "a segment of their own)";
    }
    for (const ir::Val* out : expr->outputs()) perColumn.insert(out);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> rejectNormalizationCompileTime(const ir::Fusion& segment,
                                                          bool innermost) {
  ReductionPatternResult result = analyzeReductionPattern(segment);
  if (!result.pattern) {
    return result.reason + (result.reason == "the segment has no reduction"
                                ? ", so nothing needs to stay resident (pointwise)"
                                : "");
  }
  const ReductionPattern& pattern = *result.pattern;
  if (!innermost) {
    if (auto reason = rejectColumnReductions(pattern, "outer_persistent")) return reason;
  }
  // An inner persistent kernel computes a row gather (cross-entropy's
  // take_along_axis of the label) in its row pass.
  std::vector<const ir::Expr*> rowGathers;
  if (innermost && pattern.innermost) {
    const RowGatherResult gathers = findRowGathers(segment, pattern);
    if (!gathers.reason.empty()) return gathers.reason;
    for (const RowGather& g : gathers.gathers) rowGathers.push_back(g.expr);
    if (auto reason = rejectColumnSumUses(segment, pattern)) return reason;
    if (!rowGathers.empty() && !pattern.columnReductions.empty()) {
      return "row gather " + gathers.gathers.front().output->name() + " and column sum " +
             pattern.columnReductions.front().output->name() +
             " in one segment: a combined kernel computes no row gather";
    }
  }
  if (auto reason = rejectUnsupportedReductionOps(segment, pattern, rowGathers)) {
    return reason;
  }
  if (pattern.innermost != innermost) {
    const char* self = innermost ? "inner_persistent" : "outer_persistent";
    const char* other = innermost ? "outer_persistent" : "inner_persistent";
    return "the reductions are over " + std::string(pattern.innermost ? "the innermost" : "outer") +
           " " + pattern.axesDescription() + " (" + pattern.reductions.front().output->name() +
           " reduces " + pattern.reference()->name() + "); " + self + " normalizes over " +
           (innermost ? "the innermost axes" : "outer axes") + " only (" + other + " takes these)";
  }
  const PersistentBufferInfo buffers = findPersistentBuffers(segment, pattern);
  if (!buffers.nonNormalizationBroadcast.empty()) {
    return buffers.nonNormalizationBroadcast;
  }
  if (buffers.buffers.empty()) {
    std::string reason =
        "no tensor is read both before and after a reduction, so nothing "
        "needs to stay resident: a plain reduction (the reduction scheduler)";
    if (buffers.fullRowAfterReduction != nullptr) {
      reason += "; " + buffers.fullRowAfterReduction->name() +
                " reads full rows only after reduction " + buffers.fullRowReduction->name() +
                ", which a reduction segment followed by a pointwise one does";
    }
    return reason;
  }
  return std::nullopt;
}

PersistentBufferAnalysis analyzeNormalization(const ir::Fusion& segment,
                                              const SegmentRuntimeInfo& info) {
  PersistentBufferAnalysis analysis = analyzePersistentBuffers(segment, info);
  FL_ASSERT(analysis.pattern.has_value(),
            "a persistent scheduler was asked about a segment without a "
            "reduction pattern: ",
            analysis.reason);
  return analysis;
}

std::optional<std::string> rejectNormalizationRunTime(const ir::Fusion& segment,
                                                      const SegmentRuntimeInfo& info,
                                                      const PersistentBufferAnalysis& analysis) {
  if (!analysis.reason.empty()) return analysis.reason;
  if (auto reason = rejectReshapeExtents(segment, *info.evaluator)) {
    return reason;
  }
  if (auto reason = rejectUntracedTensors(segment, *analysis.pattern, *info.evaluator)) {
    return reason;
  }
  return rejectBufferBudget(analysis);
}

std::optional<std::string> rejectBufferBudget(const PersistentBufferAnalysis& analysis) {
  const PersistentBufferSizes& sizes = analysis.sizes;
  const int64_t bytes = sizes.bytesPerRow(sizes.projectPersistentBuffers);
  if (analysis.budget.storageFor(bytes)) return std::nullopt;
  return "the persistent buffers need " + analysis.describeSizes() + "; " +
         analysis.budget.describe() +
         ": the rows are too long to keep resident (a reduction segment "
         "and a pointwise segment read them twice instead)";
}

std::optional<std::string> rejectCommonNormalizationParams(const ir::Fusion& segment,
                                                           const SegmentRuntimeInfo& info,
                                                           const PersistentBufferAnalysis& analysis,
                                                           const ReductionParams& params) {
  const ReductionPattern& pattern = *analysis.pattern;
  if (!params.persistentKernel) {
    return std::string("persistent_kernel is not set, but ") +
           analysis.info.buffers.front().tv->name() + " must stay resident across the reduction";
  }
  if (params.fastestDimReduction != pattern.innermost) {
    return std::string("fastest_dim_reduction is ") +
           (params.fastestDimReduction ? "true" : "false") + ", but " +
           pattern.reference()->name() + " is reduced over " +
           (pattern.innermost ? "its innermost" : "outer") + " " + pattern.axesDescription();
  }
  if (params.projectPersistentBuffers && !analysis.info.canProject()) {
    return "project_persistent_buffers is set, but no buffer can be "
           "recomputed from the segment's inputs (" +
           analysis.info.buffers.front().notProjectableReason + ")";
  }
  // Shifted rows (an inner persistent kernel in registers) allow a factor
  // that does not divide the row length.
  const int64_t maxFactor =
      shiftsRows(params) ? std::max(analysis.vectorize.factor, analysis.vectorize.shiftedRowsFactor)
                         : analysis.vectorize.factor;
  if (auto reason = rejectLaunchShape(params, *info.device, maxFactor)) {
    if (params.vectorizationFactor > maxFactor) {
      *reason += " (limited by " + analysis.vectorize.limitedBy + ")";
    }
    return reason;
  }
  if (params.useInt32Indexing && !fitsInt32Indexing(segment, *info.evaluator)) {
    return std::string(
        "use_int32_indexing is set, but a tensor of this "
        "segment has more than 2^31 - 1 elements");
  }
  return std::nullopt;
}

report::Json normalizationProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  if (info.device == nullptr || info.evaluator == nullptr) {
    return report::Json::object();
  }
  const PersistentBufferAnalysis analysis = analyzePersistentBuffers(segment, info);
  report::Json json = analysis.toJson();
  if (analysis.reason.empty()) {
    const int64_t bytes = analysis.sizes.bytesPerRow(analysis.sizes.projectPersistentBuffers);
    const auto storage = analysis.budget.storageFor(bytes);
    json.set("persistent_storage", storage ? std::string(toString(*storage)) : std::string("none"));
  }
  return json;
}

}  // namespace fuserlab::scheduler
