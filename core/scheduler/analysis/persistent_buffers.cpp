#include "core/scheduler/analysis/persistent_buffers.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/analysis/analysis_cache.h"

namespace fuserlab::scheduler {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

// For each non-reduction axis of `input`, the non-reduction axis of `expr`'s
// outputs it becomes (-1 where it has none: reduced, squeezed); nullopt when
// the op does not keep axes apart (reshape, slice, pad, cat, gather, ...).
std::optional<std::vector<int64_t>> inputToOutputAxes(const Expr& expr,
                                                      const TensorView& input) {
  const int64_t inRank = input.rank();
  const auto* out = expr.output(0)->as<TensorView>();
  if (out == nullptr) return std::nullopt;
  const int64_t outRank = out->rank();
  std::vector<int64_t> map(inRank, -1);
  const auto& attrs = expr.attrs();
  switch (expr.type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Expand:
      // Equal ranks pair by position; a 0-dim operand has no axes.
      if (inRank != 0 && inRank != outRank) return std::nullopt;
      for (int64_t i = 0; i < inRank; ++i) map[i] = i;
      return map;
    case ExprType::Broadcast: {
      int64_t next = 0;
      for (int64_t o = 0; o < static_cast<int64_t>(attrs.broadcastFlags.size());
           ++o) {
        if (!attrs.broadcastFlags[o] && next < inRank) map[next++] = o;
      }
      return map;
    }
    case ExprType::Squeeze:
    case ExprType::Reduction:
    case ExprType::Welford: {
      int64_t next = 0;
      for (int64_t i = 0; i < inRank; ++i) {
        const bool removed = std::find(attrs.axes.begin(), attrs.axes.end(),
                                       i) != attrs.axes.end();
        map[i] = removed ? -1 : next++;
      }
      return map;
    }
    case ExprType::Permute:
      for (int64_t o = 0; o < static_cast<int64_t>(attrs.axes.size()); ++o) {
        const int64_t i = attrs.axes[o];
        if (i >= 0 && i < inRank) map[i] = o;
      }
      return map;
    default:
      return std::nullopt;
  }
}

// Ops a projected buffer may be recomputed through: cheap, one output
// element from the matching input elements.
bool isRecomputable(ExprType type) {
  switch (type) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Permute:
    case ExprType::Squeeze:
    case ExprType::Full:
    case ExprType::Iota:
      return true;
    default:
      return false;
  }
}

// The live exprs of a segment in topological order and their tensors, with
// index lookups (only looked up, never iterated: results follow `exprs`).
struct Dataflow {
  std::vector<const Expr*> exprs;
  std::vector<const TensorView*> tensors;  // segment inputs, then outputs
  std::vector<std::vector<size_t>> consumers;  // per tensor: expr indices

  explicit Dataflow(const ir::Fusion& segment)
      : segment_(&segment),
        exprSlots_(segment.exprs().size(), -1),
        tensorSlots_(segment.vals().size(), -1) {
    for (const Expr* e : liveExprs(segment)) {
      exprSlots_[ownId(e, segment.exprs())] = static_cast<int64_t>(exprs.size());
      exprs.push_back(e);
    }
    auto addTensor = [&](const ir::Val* val) {
      const auto* tv = val->as<TensorView>();
      if (tv == nullptr || tensorIndex(tv)) return;
      tensorSlots_[ownId(tv, segment_->vals())] =
          static_cast<int64_t>(tensors.size());
      tensors.push_back(tv);
    };
    for (const ir::Val* val : segment.inputs()) addTensor(val);
    for (const Expr* e : exprs) {
      for (const ir::Val* val : e->inputs()) addTensor(val);
      for (const ir::Val* val : e->outputs()) addTensor(val);
    }
    consumers.resize(tensors.size());
    for (size_t i = 0; i < exprs.size(); ++i) {
      for (const ir::Val* val : exprs[i]->inputs()) {
        const auto t = tensorIndex(val);
        if (!t) continue;
        auto& list = consumers[*t];
        if (list.empty() || list.back() != i) list.push_back(i);
      }
    }
  }

  //! Position in `exprs` / `tensors`; none for a statement not listed.
  std::optional<size_t> exprIndex(const Expr* e) const {
    return slot(e, segment_->exprs(), exprSlots_);
  }
  std::optional<size_t> tensorIndex(const ir::Val* val) const {
    return slot(val, segment_->vals(), tensorSlots_);
  }
  //! As above, for a statement that must be listed.
  size_t exprAt(const Expr* e) const {
    const auto i = exprIndex(e);
    FL_ASSERT(i.has_value(), e->toString(), " is not a live expr of the segment");
    return *i;
  }
  size_t tensorAt(const ir::Val* val) const {
    const auto i = tensorIndex(val);
    FL_ASSERT(i.has_value(), val->name(), " is not a tensor of the segment");
    return *i;
  }

  template <typename F>
  void forEachTensorInput(const Expr* e, F&& f) const {
    for (const ir::Val* val : e->inputs()) {
      if (const auto t = tensorIndex(val)) f(*t);
    }
  }
  template <typename F>
  void forEachTensorOutput(const Expr* e, F&& f) const {
    for (const ir::Val* val : e->outputs()) {
      if (const auto t = tensorIndex(val)) f(*t);
    }
  }

 private:
  // Lookups by the statements' ids in the segment (ids are positions in its
  // exprs() and vals()), checked to be the segment's own.
  template <typename T, typename Owned>
  static size_t ownId(const T* x, const std::vector<Owned>& owned) {
    const auto id = static_cast<size_t>(x->id());
    FL_ASSERT(id < owned.size() && owned[id].get() == x,
              "a statement of another fusion in the segment's dataflow");
    return id;
  }
  template <typename T, typename Owned>
  static std::optional<size_t> slot(const T* x, const std::vector<Owned>& owned,
                                    const std::vector<int64_t>& slots) {
    const auto id = static_cast<size_t>(x->id());
    if (id >= owned.size() || owned[id].get() != x || slots[id] < 0) {
      return std::nullopt;
    }
    return static_cast<size_t>(slots[id]);
  }

  const ir::Fusion* segment_;
  std::vector<int64_t> exprSlots_;    // by expr id: index into exprs, -1
  std::vector<int64_t> tensorSlots_;  // by val id: index into tensors, -1
};

// What one reduction's neighbourhood looks like: which exprs and tensors feed
// it (with the axes of each that run along its reduced axes), and which exprs
// come after it.
struct ReductionFlow {
  std::vector<bool> feedsExpr;     // the expr is the reduction or leads to it
  std::vector<bool> feedsTensor;   // the tensor leads to the reduction
  std::vector<bool> afterExpr;     // the expr reads the reduction's result
  std::vector<bool> reachesAfter;  // the expr or one downstream is after it
  std::vector<std::vector<bool>> rowAxes;  // per tensor feeding it
  std::vector<bool> rowAxesUnknown;

  ReductionFlow(const Dataflow& flow, const ReductionInfo& reduction) {
    const size_t nExprs = flow.exprs.size();
    const size_t nTensors = flow.tensors.size();
    feedsExpr.assign(nExprs, false);
    feedsTensor.assign(nTensors, false);
    afterExpr.assign(nExprs, false);
    reachesAfter.assign(nExprs, false);
    rowAxes.assign(nTensors, {});
    rowAxesUnknown.assign(nTensors, false);
    const size_t r = flow.exprAt(reduction.expr);

    // Backwards from the reduced tensor, carrying its reduced axes.
    const size_t x = flow.tensorAt(reduction.input);
    feedsExpr[r] = true;
    feedsTensor[x] = true;
    rowAxes[x].assign(reduction.input->rank(), false);
    for (int64_t axis : reduction.axes) rowAxes[x][axis] = true;
    for (size_t i = r; i-- > 0;) {
      const Expr* e = flow.exprs[i];
      std::vector<size_t> fed;
      flow.forEachTensorOutput(e, [&](size_t o) {
        if (feedsTensor[o]) fed.push_back(o);
      });
      if (fed.empty()) continue;
      feedsExpr[i] = true;
      flow.forEachTensorInput(e, [&](size_t p) {
        const TensorView* producer = flow.tensors[p];
        feedsTensor[p] = true;
        if (rowAxes[p].empty()) rowAxes[p].assign(producer->rank(), false);
        const auto map = inputToOutputAxes(*e, *producer);
        for (size_t o : fed) {
          if (!map || rowAxesUnknown[o]) {
            rowAxesUnknown[p] = true;
            continue;
          }
          for (size_t j = 0; j < map->size(); ++j) {
            const int64_t oAxis = (*map)[j];
            if (oAxis >= 0 && oAxis < static_cast<int64_t>(rowAxes[o].size()) &&
                rowAxes[o][oAxis]) {
              rowAxes[p][j] = true;
            }
          }
        }
      });
    }

    // Forwards from the reduction's outputs.
    std::vector<bool> afterTensor(nTensors, false);
    flow.forEachTensorOutput(reduction.expr,
                             [&](size_t o) { afterTensor[o] = true; });
    for (size_t i = r + 1; i < nExprs; ++i) {
      bool reads = false;
      flow.forEachTensorInput(
          flow.exprs[i], [&](size_t p) { reads = reads || afterTensor[p]; });
      if (!reads) continue;
      afterExpr[i] = true;
      flow.forEachTensorOutput(flow.exprs[i],
                               [&](size_t o) { afterTensor[o] = true; });
    }
    for (size_t i = nExprs; i-- > 0;) {
      bool reaches = afterExpr[i];
      flow.forEachTensorOutput(flow.exprs[i], [&](size_t o) {
        for (size_t c : flow.consumers[o]) reaches = reaches || reachesAfter[c];
      });
      reachesAfter[i] = reaches;
    }
  }

  // A tensor that holds full rows: it moves along some reduced axis and is
  // not broadcast along any of them. Unknown axes count as full rows.
  bool holdsRows(const Dataflow& flow, size_t t) const {
    if (rowAxesUnknown[t]) return true;
    const std::vector<IterDomain*>& axes =
        flow.tensors[t]->logicalNoReductions();
    bool any = false;
    for (size_t j = 0; j < rowAxes[t].size() && j < axes.size(); ++j) {
      if (!rowAxes[t][j]) continue;
      if (axes[j]->isBroadcast()) return false;
      any = true;
    }
    return any;
  }

  std::vector<bool> axesOf(size_t t) const {
    return rowAxesUnknown[t] ? std::vector<bool>{} : rowAxes[t];
  }
};

// Whether `expr` evaluates a transcendental function (a libdevice call or a
// MUFU sequence of tens of instructions), as opposed to arithmetic,
// comparisons, casts and data movement.
bool isTranscendental(const Expr& expr) {
  using ir::UnaryOpType;
  if (expr.type() == ir::ExprType::Binary) {
    const ir::BinaryOpType op = expr.attrs().binaryOp;
    return op == ir::BinaryOpType::Pow || op == ir::BinaryOpType::Atan2;
  }
  if (expr.type() != ir::ExprType::Unary) return false;
  switch (expr.attrs().unaryOp) {
    case UnaryOpType::Exp: case UnaryOpType::Exp2: case UnaryOpType::Expm1:
    case UnaryOpType::Log: case UnaryOpType::Log1p: case UnaryOpType::Log2:
    case UnaryOpType::Log10: case UnaryOpType::Sin: case UnaryOpType::Cos:
    case UnaryOpType::Tan: case UnaryOpType::Asin: case UnaryOpType::Acos:
    case UnaryOpType::Atan: case UnaryOpType::Sinh: case UnaryOpType::Cosh:
    case UnaryOpType::Tanh: case UnaryOpType::Asinh: case UnaryOpType::Acosh:
    case UnaryOpType::Atanh: case UnaryOpType::Sigmoid: case UnaryOpType::Silu:
    case UnaryOpType::Erf: case UnaryOpType::Erfc: case UnaryOpType::Erfinv:
    case UnaryOpType::Lgamma:
      return true;
    default:
      return false;
  }
}

// Walks back from `buffer` to the segment inputs it can be recomputed from.
void project(const Dataflow& flow, const ReductionFlow& reduction,
             size_t buffer, PersistentBuffer& out) {
  const TensorView* tv = flow.tensors[buffer];
  if (tv->isFusionInput()) {
    out.notProjectableReason = tv->name() + " is an input of the segment";
    return;
  }
  std::vector<bool> visited(flow.tensors.size(), false);
  std::vector<size_t> stack{buffer};
  std::vector<size_t> found;
  visited[buffer] = true;
  while (!stack.empty()) {
    const size_t t = stack.back();
    stack.pop_back();
    const TensorView* current = flow.tensors[t];
    if (!reduction.holdsRows(flow, t)) continue;  // per-row values are free
    if (current->isFusionInput()) {
      found.push_back(t);
      continue;
    }
    const Expr* definition = current->definition();
    if (definition == nullptr || !flow.exprIndex(definition)) {
      out.notProjectableReason =
          current->name() + " has no definition in the segment";
      return;
    }
    if (!isRecomputable(definition->type())) {
      out.notProjectableReason = current->name() + " is computed by " +
                                 definition->opName() +
                                 ", which a projection does not recompute";
      return;
    }
    if (isTranscendental(*definition)) out.recomputesTranscendental = true;
    flow.forEachTensorInput(definition, [&](size_t p) {
      if (!visited[p]) {
        visited[p] = true;
        stack.push_back(p);
      }
    });
  }
  out.projectable = true;
  std::sort(found.begin(), found.end());  // tensor indices: input order first
  for (size_t t : found) out.projectedTo.push_back(flow.tensors[t]);
}

int64_t rowBytes(const TensorView* tv, const std::vector<bool>& rowAxes,
                 int64_t reductionExtent,
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
  for (const TensorView* tv : tvs)
    out += (out.empty() ? "" : ", ") + tv->name();
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
  PersistentBufferInfo info;
  const Dataflow flow(segment);
  std::vector<bool> isBuffer(flow.tensors.size(), false);
  for (const ReductionInfo& reduction : pattern.reductions) {
    const ReductionFlow rf(flow, reduction);
    for (size_t t = 0; t < flow.tensors.size(); ++t) {
      if (!rf.feedsTensor[t] || isBuffer[t]) continue;
      const Expr* laterUse = nullptr;
      for (size_t c : flow.consumers[t]) {
        if (!rf.feedsExpr[c] && rf.reachesAfter[c]) {
          laterUse = flow.exprs[c];
          break;
        }
      }
      if (laterUse == nullptr || !rf.holdsRows(flow, t)) continue;
      isBuffer[t] = true;
      PersistentBuffer buffer;
      buffer.tv = flow.tensors[t];
      buffer.reduction = reduction.output;
      buffer.usedAfterBy = laterUse->output(0)->as<TensorView>();
      buffer.rowAxes = rf.axesOf(t);
      project(flow, rf, t, buffer);
      for (const TensorView* input : buffer.projectedTo) {
        const size_t i = flow.tensorAt(input);
        if (std::none_of(
                info.projectionInputs.begin(), info.projectionInputs.end(),
                [&](const ProjectionInput& p) { return p.tv == input; })) {
          info.projectionInputs.push_back({input, rf.axesOf(i)});
        }
      }
      info.buffers.push_back(std::move(buffer));
    }

    // After the reduction: full rows combined with its broadcast result, and
    // broadcasts of its result along other axes than the reduced ones.
    for (size_t i = 0; i < flow.exprs.size(); ++i) {
      if (!rf.afterExpr[i]) continue;
      const Expr* e = flow.exprs[i];
      const auto* out = e->output(0)->as<TensorView>();
      if (out == nullptr) continue;
      const std::vector<IterDomain*>& axes = out->logicalNoReductions();
      if (info.fullRowAfterReduction == nullptr &&
          static_cast<int64_t>(axes.size()) == pattern.rank &&
          std::all_of(pattern.axes.begin(), pattern.axes.end(),
                      [&](int64_t a) { return !axes[a]->isBroadcast(); })) {
        info.fullRowAfterReduction = out;
        info.fullRowReduction = reduction.output;
      }
      if (e->type() != ExprType::Broadcast ||
          !info.nonNormalizationBroadcast.empty()) {
        continue;
      }
      const auto& flags = e->attrs().broadcastFlags;
      bool matches = static_cast<int64_t>(axes.size()) <= pattern.rank;
      if (static_cast<int64_t>(axes.size()) == pattern.rank) {
        for (size_t a = 0; a < flags.size(); ++a) {
          if (flags[a] &&
              std::find(pattern.axes.begin(), pattern.axes.end(),
                        static_cast<int64_t>(a)) == pattern.axes.end()) {
            matches = false;
          }
        }
      }
      if (!matches) {
        info.nonNormalizationBroadcast =
            "the result of reduction " + reduction.output->name() +
            " is broadcast by " + out->name() +
            " along other axes than its reduced " + pattern.axesDescription() +
            ", which is not a normalization; the reduction and what follows "
            "belong in separate segments";
      }
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

PersistentBufferAnalysis computePersistentBufferAnalysis(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  FL_ASSERT(info.device != nullptr && info.evaluator != nullptr,
            "the persistent buffer analysis needs a device and sizes");
  PersistentBufferAnalysis analysis;
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  if (!pattern.pattern) {
    analysis.reason = pattern.reason;
    return analysis;
  }
  analysis.pattern = std::move(pattern.pattern);
  ReductionExtentsResult extents =
      reductionExtents(*analysis.pattern, *info.evaluator);
  if (!extents.reason.empty()) {
    analysis.reason = extents.reason;
    return analysis;
  }
  analysis.extents = extents.extents;
  analysis.info = findPersistentBuffers(segment, *analysis.pattern);
  analysis.sizes =
      persistentBufferSizes(analysis.info, analysis.extents, *info.evaluator);
  analysis.budget = persistentBufferBudget(*info.device);
  analysis.vectorize =
      maxVectorizeFactor(segment, *analysis.pattern, analysis.extents, info);
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

PersistentBufferSizes persistentBufferSizes(
    const PersistentBufferInfo& info, const ReductionExtents& extents,
    const ir::ExpressionEvaluator& evaluator) {
  PersistentBufferSizes sizes;
  for (const PersistentBuffer& buffer : info.buffers) {
    const int64_t bytes =
        rowBytes(buffer.tv, buffer.rowAxes, extents.reductionExtent, evaluator);
    sizes.bufferBytes.push_back(bytes);
    sizes.persistentBufferBytes += bytes;
    if (!buffer.projectable) sizes.projectedPersistentBufferBytes += bytes;
  }
  for (const ProjectionInput& input : info.projectionInputs) {
    const int64_t bytes =
        rowBytes(input.tv, input.rowAxes, extents.reductionExtent, evaluator);
    sizes.inputBytes.push_back(bytes);
    // A buffer that is itself an input is already counted.
    const bool alsoBuffer = std::any_of(
        info.buffers.begin(), info.buffers.end(),
        [&](const PersistentBuffer& b) { return b.tv == input.tv; });
    if (!alsoBuffer) sizes.projectedPersistentBufferBytes += bytes;
  }
  sizes.projectPersistentBuffers =
      info.canProject() &&
      sizes.projectedPersistentBufferBytes < sizes.persistentBufferBytes;
  return sizes;
}

std::optional<PersistentStorage> PersistentBufferBudget::storageFor(
    int64_t bytes) const {
  if (bytes <= registerBytes) return PersistentStorage::Registers;
  if (bytes <= sharedMemoryBytes) return PersistentStorage::SharedMemory;
  return std::nullopt;
}

std::string PersistentBufferBudget::describe() const {
  return "the register budget on " + deviceKey + " is " +
         std::to_string(registerBytes) + " bytes per block (half of its " +
         std::to_string(registersPerBlock) +
         " registers) and the shared memory budget " +
         std::to_string(sharedMemoryBytes) + " bytes per block (" +
         std::to_string(sharedMemoryOptinBytes) + " opt-in, less " +
         std::to_string(sharedMemoryReserveBytes) +
         " for the block reduction's workspace)";
}

PersistentBufferBudget persistentBufferBudget(const DeviceSpec& device) {
  PersistentBufferBudget budget;
  budget.deviceKey = device.key.empty() ? device.name : device.key;
  budget.registersPerBlock = device.registersPerBlock;
  budget.registerBytes = int64_t{device.registersPerBlock} * 4 / 2;
  budget.sharedMemoryOptinBytes = std::max(
      device.sharedMemoryPerBlockOptinBytes, device.sharedMemoryPerBlockBytes);
  budget.sharedMemoryReserveBytes = int64_t{device.maxThreadsPerBlock} * 4;
  budget.sharedMemoryBytes = std::max<int64_t>(
      0, budget.sharedMemoryOptinBytes - budget.sharedMemoryReserveBytes);
  return budget;
}

std::string PersistentBufferAnalysis::describeSizes() const {
  std::string out = std::to_string(sizes.persistentBufferBytes) +
                    " bytes per reduction row (";
  for (size_t i = 0; i < info.buffers.size(); ++i) {
    const PersistentBuffer& b = info.buffers[i];
    if (i) out += ", ";
    out += b.tv->name() + ": " + std::string(ir::toString(b.tv->dtype())) +
           ", " + std::to_string(sizes.bufferBytes[i]);
  }
  if (sizes.projectPersistentBuffers) {
    std::vector<const TensorView*> inputs;
    for (const ProjectionInput& p : info.projectionInputs)
      inputs.push_back(p.tv);
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
  json.set("projected_persistent_buffer_bytes",
           sizes.projectedPersistentBufferBytes);
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
    entry.set("dtype",
              std::string(ir::toString(info.projectionInputs[i].tv->dtype())));
    entry.set("bytes_per_row", sizes.inputBytes[i]);
    inputs.push(std::move(entry));
  }
  json.set("projection_inputs", std::move(inputs));
  return json;
}

PersistentBufferAnalysis analyzePersistentBuffers(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  auto* cache = analysis_cache::find(segment, &info);
  if (cache == nullptr) return computePersistentBufferAnalysis(segment, info);
  if (const auto* cached = analysis_cache::persistentBufferAnalysis(*cache)) {
    return *cached;
  }
  PersistentBufferAnalysis analysis =
      computePersistentBufferAnalysis(segment, info);
  analysis_cache::setPersistentBufferAnalysis(*cache, analysis);
  return analysis;
}

}  // namespace fuserlab::scheduler
