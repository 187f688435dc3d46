#include "core/scheduler/analysis/persistent_buffers.h"

#include <algorithm>
#include <optional>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/persistent_buffer_flow.h"

namespace fuserlab::scheduler {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

int64_t rowBytes(const TensorView* tv, const std::vector<bool>& rowAxes, int64_t reductionExtent,
                 const ir::ExpressionEvaluator& evaluator) {
  const int64_t elementBytes = ir::sizeInBytes(tv->dtype());
  if (rowAxes.empty()) return reductionExtent * elementBytes;
  const std::vector<IterDomain*>& axes = tv->logicalNoReductions();
  int64_t elements = 1;
  for (size_t j = 0; j < rowAxes.size() && j < axes.size(); ++j) {
    if (rowAxes[j]) elements *= evaluator.evaluateExtent(axes[j]);
  }
  return elements * elementBytes;
}

std::string namesOf(const std::vector<const TensorView*>& tvs) {
  std::string out;
  for (const TensorView* tv : tvs) out += (out.empty() ? "" : ", ") + tv->name();
  return out;
}

}  // namespace

bool PersistentBufferInfo::canProject() const {
  return std::any_of(buffers.begin(), buffers.end(),
                     [](const PersistentBuffer& b) { return b.projectable; });
}

namespace {

PersistentBufferInfo computePersistentBuffers(const ir::Fusion& segment,
                                              const ReductionPattern& pattern) {
  using namespace persistent_flow;
  PersistentBufferInfo info;
  const Dataflow flow(segment);
  BelowCuts below(flow);
  Workspace work(flow);
  const size_t nExprs = flow.exprs.size();

  // After a reduction: a tensor that combines its result, broadcast back
  // along the reduced axes, with full rows (a normalization), and a
  // broadcast of it along other axes than the reduced ones. Which exprs
  // could be either does not depend on the reduction; for each expr, the
  // first of each at or after it (past a cut, a reduction reaches these
  // through its readers).
  std::vector<char> fullRow(nExprs, 0), otherBroadcast(nExprs, 0);
  for (size_t i = 0; i < nExprs; ++i) {
    const Expr* e = flow.exprs[i];
    const auto* out = e->output(0)->as<TensorView>();
    if (out == nullptr) continue;
    const std::vector<IterDomain*>& axes = out->logicalNoReductions();
    fullRow[i] = static_cast<int64_t>(axes.size()) == pattern.rank &&
                 std::all_of(pattern.axes.begin(), pattern.axes.end(),
                             [&](int64_t a) { return !axes[a]->isBroadcast(); });
    if (e->type() != ExprType::Broadcast) continue;
    const auto& flags = e->attrs().broadcastFlags;
    bool matches = static_cast<int64_t>(axes.size()) <= pattern.rank;
    if (static_cast<int64_t>(axes.size()) == pattern.rank) {
      for (size_t a = 0; a < flags.size(); ++a) {
        if (flags[a] && std::find(pattern.axes.begin(), pattern.axes.end(),
                                  static_cast<int64_t>(a)) == pattern.axes.end()) {
          matches = false;
        }
      }
    }
    otherBroadcast[i] = !matches;
  }
  constexpr int64_t kNone = -1;
  const auto firstDownstream = [&](const std::vector<char>& marked) {
    std::vector<int64_t> first(nExprs, kNone);
    for (size_t i = nExprs; i-- > 0;) {
      if (marked[i]) {
        first[i] = static_cast<int64_t>(i);
        continue;
      }
      for (size_t o : flow.outputsOf[i]) {
        for (size_t d : flow.consumers[o]) {
          if (first[d] != kNone && (first[i] == kNone || first[d] < first[i])) first[i] = first[d];
        }
      }
    }
    return first;
  };
  const std::vector<int64_t> firstFullRow = firstDownstream(fullRow);
  const std::vector<int64_t> firstOtherBroadcast = firstDownstream(otherBroadcast);

  std::vector<bool> isBuffer(flow.tensors.size(), false);
  for (const ReductionInfo& reduction : pattern.reductions) {
    ReductionFlow rf(flow, below, work, reduction);
    for (size_t t : rf.candidates()) {
      if (isBuffer[t]) continue;
      const std::optional<size_t> laterUse = rf.laterUse(t);
      if (!laterUse || !rf.holdsRows(t)) continue;
      isBuffer[t] = true;
      PersistentBuffer buffer;
      buffer.tv = flow.tensors[t];
      buffer.reduction = reduction.output;
      buffer.usedAfterBy = flow.exprs[*laterUse]->output(0)->as<TensorView>();
      buffer.rowAxes = rf.axesOf(t);
      project(flow, rf, below, work, t, buffer);
      for (const TensorView* input : buffer.projectedTo) {
        if (std::none_of(info.projectionInputs.begin(), info.projectionInputs.end(),
                         [&](const ProjectionInput& p) { return p.tv == input; })) {
          info.projectionInputs.push_back({input, rf.axesOf(flow.tensorAt(input))});
        }
      }
      info.buffers.push_back(std::move(buffer));
    }

    // The first of each among the exprs that read the reduction's result:
    // those up to the cut after it, then those past it.
    int64_t fullRowAt = kNone, otherBroadcastAt = kNone;
    for (size_t i : rf.afterExprs()) {
      if (fullRowAt == kNone && fullRow[i]) fullRowAt = static_cast<int64_t>(i);
      if (otherBroadcastAt == kNone && otherBroadcast[i])
        otherBroadcastAt = static_cast<int64_t>(i);
    }
    // Those past the cut come after all those up to it.
    if (fullRowAt == kNone || otherBroadcastAt == kNone) {
      const auto earliest = [](int64_t current, int64_t candidate) {
        return candidate != kNone && (current == kNone || candidate < current) ? candidate
                                                                               : current;
      };
      int64_t fullRowBeyond = kNone, otherBroadcastBeyond = kNone;
      for (size_t d : rf.afterBeyond()) {
        fullRowBeyond = earliest(fullRowBeyond, firstFullRow[d]);
        otherBroadcastBeyond = earliest(otherBroadcastBeyond, firstOtherBroadcast[d]);
      }
      if (fullRowAt == kNone) fullRowAt = fullRowBeyond;
      if (otherBroadcastAt == kNone) otherBroadcastAt = otherBroadcastBeyond;
    }
    if (info.fullRowAfterReduction == nullptr && fullRowAt != kNone) {
      info.fullRowAfterReduction = flow.exprs[fullRowAt]->output(0)->as<TensorView>();
      info.fullRowReduction = reduction.output;
    }
    if (info.nonNormalizationBroadcast.empty() && otherBroadcastAt != kNone) {
      info.nonNormalizationBroadcast =
          "the result of reduction " + reduction.output->name() + " is broadcast by " +
          flow.exprs[otherBroadcastAt]->output(0)->as<TensorView>()->name() +
          " along other axes than its reduced " + pattern.axesDescription() +
          ", which is not a normalization; the reduction and what follows "
          "belong in separate segments";
    }
  }
  // Buffers in topological order of their definitions (inputs first).
  std::sort(info.buffers.begin(), info.buffers.end(),
            [&](const PersistentBuffer& a, const PersistentBuffer& b) {
              return flow.tensorAt(a.tv) < flow.tensorAt(b.tv);
            });
  std::sort(info.projectionInputs.begin(), info.projectionInputs.end(),
            [&](const ProjectionInput& a, const ProjectionInput& b) {
              return flow.tensorAt(a.tv) < flow.tensorAt(b.tv);
            });
  return info;
}

PersistentBufferAnalysis computePersistentBufferAnalysis(const ir::Fusion& segment,
                                                         const SegmentRuntimeInfo& info) {
  FL_ASSERT(info.device != nullptr && info.evaluator != nullptr,
            "the persistent buffer analysis needs a device and sizes");
  PersistentBufferAnalysis analysis;
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  if (!pattern.pattern) {
    analysis.reason = pattern.reason;
    return analysis;
  }
  analysis.pattern = std::move(pattern.pattern);
  ReductionExtentsResult extents = reductionExtents(*analysis.pattern, *info.evaluator);
  if (!extents.reason.empty()) {
    analysis.reason = extents.reason;
    return analysis;
  }
  analysis.extents = extents.extents;
  analysis.info = findPersistentBuffers(segment, *analysis.pattern);
  analysis.sizes = persistentBufferSizes(analysis.info, analysis.extents, *info.evaluator);
  analysis.budget = persistentBufferBudget(*info.device);
  analysis.vectorize = maxVectorizeFactor(segment, *analysis.pattern, analysis.extents, info);
  return analysis;
}

}  // namespace

PersistentBufferInfo findPersistentBuffers(const ir::Fusion& segment,
                                           const ReductionPattern& pattern) {
  auto* cache = analysis_cache::find(segment);
  if (cache == nullptr) return computePersistentBuffers(segment, pattern);
  if (const auto* cached = analysis_cache::persistentBuffers(*cache, pattern)) {
    return *cached;
  }
  PersistentBufferInfo info = computePersistentBuffers(segment, pattern);
  analysis_cache::setPersistentBuffers(*cache, pattern, info);
  return info;
}

bool PersistentBufferInfo::projectionRecomputesTranscendental() const {
  return std::any_of(buffers.begin(), buffers.end(), [](const PersistentBuffer& b) {
    return b.projectable && b.recomputesTranscendental;
  });
}

PersistentBufferSizes persistentBufferSizes(const PersistentBufferInfo& info,
                                            const ReductionExtents& extents,
                                            const ir::ExpressionEvaluator& evaluator) {
  PersistentBufferSizes sizes;
  for (const PersistentBuffer& buffer : info.buffers) {
    const int64_t bytes = rowBytes(buffer.tv, buffer.rowAxes, extents.reductionExtent, evaluator);
    sizes.bufferBytes.push_back(bytes);
    sizes.persistentBufferBytes += bytes;
    if (!buffer.projectable) sizes.projectedPersistentBufferBytes += bytes;
  }
  for (const ProjectionInput& input : info.projectionInputs) {
    const int64_t bytes = rowBytes(input.tv, input.rowAxes, extents.reductionExtent, evaluator);
    sizes.inputBytes.push_back(bytes);
    // A buffer that is itself an input is already counted.
    const bool alsoBuffer =
        std::any_of(info.buffers.begin(), info.buffers.end(),
                    [&](const PersistentBuffer& b) { return b.tv == input.tv; });
    if (!alsoBuffer) sizes.projectedPersistentBufferBytes += bytes;
  }
  sizes.projectPersistentBuffers =
      info.canProject() && sizes.projectedPersistentBufferBytes < sizes.persistentBufferBytes;
  return sizes;
}

std::optional<PersistentStorage> PersistentBufferBudget::storageFor(int64_t bytes) const {
  if (bytes <= registerBytes) return PersistentStorage::Registers;
  if (bytes <= sharedMemoryBytes) return PersistentStorage::SharedMemory;
  return std::nullopt;
}

std::string PersistentBufferBudget::describe() const {
  return "the register budget on " + deviceKey + " is " + std::to_string(registerBytes) +
         " bytes per block (half of its " + std::to_string(registersPerBlock) +
         " registers) and the shared memory budget " + std::to_string(sharedMemoryBytes) +
         " bytes per block (" + std::to_string(sharedMemoryOptinBytes) + " opt-in, less " +
         std::to_string(sharedMemoryReserveBytes) + " for the block reduction's workspace)";
}

PersistentBufferBudget persistentBufferBudget(const DeviceSpec& device) {
  PersistentBufferBudget budget;
  budget.deviceKey = device.key.empty() ? device.name : device.key;
  budget.registersPerBlock = device.registersPerBlock;
  budget.registerBytes = int64_t{device.registersPerBlock} * 4 / 2;
  budget.sharedMemoryOptinBytes =
      std::max(device.sharedMemoryPerBlockOptinBytes, device.sharedMemoryPerBlockBytes);
  budget.sharedMemoryReserveBytes = int64_t{device.maxThreadsPerBlock} * 4;
  budget.sharedMemoryBytes =
      std::max<int64_t>(0, budget.sharedMemoryOptinBytes - budget.sharedMemoryReserveBytes);
  return budget;
}

std::string PersistentBufferAnalysis::describeSizes() const {
  std::string out = std::to_string(sizes.persistentBufferBytes) + " bytes per reduction row (";
  for (size_t i = 0; i < info.buffers.size(); ++i) {
    const PersistentBuffer& b = info.buffers[i];
    if (i) out += ", ";
    out += b.tv->name() + ": " + std::string(ir::toString(b.tv->dtype())) + ", " +
           std::to_string(sizes.bufferBytes[i]);
  }
  if (sizes.projectPersistentBuffers) {
    std::vector<const TensorView*> inputs;
    for (const ProjectionInput& p : info.projectionInputs) inputs.push_back(p.tv);
    out += "; projected to " + namesOf(inputs) + ": " +
           std::to_string(sizes.projectedPersistentBufferBytes);
  } else if (info.canProject()) {
    out += "; projecting to the inputs would keep " +
           std::to_string(sizes.projectedPersistentBufferBytes) + ", no fewer";
  } else {
    for (const PersistentBuffer& b : info.buffers) {
      if (!b.notProjectableReason.empty()) {
        out += "; not projectable: " + b.notProjectableReason;
        break;
      }
    }
  }
  return out + ")";
}

report::Json PersistentBufferAnalysis::toJson() const {
  report::Json json = report::Json::object();
  if (!reason.empty()) {
    json.set("persistent_buffer_analysis", reason);
    return json;
  }
  json.set("reduction_extent", extents.reductionExtent);
  json.set("iteration_extent", extents.iterationExtent);
  json.set("fastest_dim_reduction", pattern->innermost);
  json.set("reduced_axes", report::Json::arrayOf(pattern->axes));
  json.set("persistent_buffer_bytes", sizes.persistentBufferBytes);
  json.set("projected_persistent_buffer_bytes", sizes.projectedPersistentBufferBytes);
  json.set("project_persistent_buffers", sizes.projectPersistentBuffers);
  json.set("persistent_buffer_budget_bytes", budget.budgetBytes());
  json.set("register_budget_bytes", budget.registerBytes);
  json.set("shared_memory_budget_bytes", budget.sharedMemoryBytes);
  json.set("max_allowed_vectorize_factor", vectorize.factor);
  json.set("vectorize_limited_by", vectorize.limitedBy);
  if (vectorize.shiftedRowsFactor > vectorize.factor) {
    // The inner persistent kernel's shifted rows (registers only).
    json.set("shifted_rows_vectorize_factor", vectorize.shiftedRowsFactor);
  }
  report::Json buffers = report::Json::array();
  for (size_t i = 0; i < info.buffers.size(); ++i) {
    const PersistentBuffer& b = info.buffers[i];
    report::Json entry = report::Json::object();
    entry.set("name", b.tv->name());
    entry.set("dtype", std::string(ir::toString(b.tv->dtype())));
    entry.set("bytes_per_row", sizes.bufferBytes[i]);
    entry.set("reduction", b.reduction->name());
    entry.set("used_after_by", b.usedAfterBy->name());
    entry.set("projectable", b.projectable);
    report::Json targets = report::Json::array();
    for (const TensorView* tv : b.projectedTo) targets.push(tv->name());
    entry.set("projected_to", std::move(targets));
    if (!b.notProjectableReason.empty()) {
      entry.set("not_projectable_because", b.notProjectableReason);
    }
    buffers.push(std::move(entry));
  }
  json.set("persistent_buffers", std::move(buffers));
  report::Json inputs = report::Json::array();
  for (size_t i = 0; i < info.projectionInputs.size(); ++i) {
    report::Json entry = report::Json::object();
    entry.set("name", info.projectionInputs[i].tv->name());
    entry.set("dtype", std::string(ir::toString(info.projectionInputs[i].tv->dtype())));
    entry.set("bytes_per_row", sizes.inputBytes[i]);
    inputs.push(std::move(entry));
  }
  json.set("projection_inputs", std::move(inputs));
  return json;
}

PersistentBufferAnalysis analyzePersistentBuffers(const ir::Fusion& segment,
                                                  const SegmentRuntimeInfo& info) {
  auto* cache = analysis_cache::find(segment, &info);
  if (cache == nullptr) return computePersistentBufferAnalysis(segment, info);
  if (const auto* cached = analysis_cache::persistentBufferAnalysis(*cache)) {
    return *cached;
  }
  PersistentBufferAnalysis analysis = computePersistentBufferAnalysis(segment, info);
  analysis_cache::setPersistentBufferAnalysis(*cache, analysis);
  return analysis;
}

}  // namespace fuserlab::scheduler
