#include "core/scheduler/transpose/transpose_scheduler.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/analysis/vectorization.h"
#include "core/scheduler/pointwise/pointwise_scheduler.h"

namespace fuserlab::scheduler {
namespace {

using ir::IterDomain;
using ir::TensorView;

// Below this inner extent a tile is mostly empty: pointwise does better.
constexpr int64_t kMinInnerExtent = 32;
constexpr int64_t kTile = 32;
constexpr int64_t kLargeTile = 64;
constexpr int64_t kThreads = 128;
constexpr int64_t kLargeTileThreads = 256;

std::string str(int64_t value) { return std::to_string(value); }

bool isVectorizationFactor(int64_t value) {
  return value == 1 || value == 2 || value == 4 || value == 8 || value == 16;
}

bool isPowerOfTwo(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

std::string nameList(const std::vector<const TensorView*>& tensors) {
  std::string out;
  for (const TensorView* tv : tensors) out += (out.empty() ? "" : ", ") + tv->name();
  return out;
}

report::Json nameArray(const std::vector<const TensorView*>& tensors) {
  report::Json array = report::Json::array();
  for (const TensorView* tv : tensors) array.push(tv->name());
  return array;
}

// The innermost axis `tv` moves along in memory: from the bound strides when
// there is runtime info, else from its allocation domain.
const IterDomain* innermostAxis(const ir::Fusion& segment, const TensorView* tv,
                                const SegmentRuntimeInfo* info) {
  if (info != nullptr) {
    const MemoryLayout layout = memoryLayout(segment, tv, *info);
    const int64_t k = layout.innermostMovingAxis();
    return k < 0 ? nullptr : layout.axes[k];
  }
  const auto axes = ir::noReductions(tv->maybeAllocation());
  for (size_t k = axes.size(); k-- > 0;) {
    if (axes[k]->isBroadcast() || axes[k]->extent()->isConstInt(1)) continue;
    return axes[k];
  }
  return nullptr;
}

// The reference axis that walks `axis` of a tensor from its start (the piece
// with step 1); -1 if none does.
int64_t referenceAxisWalking(const TensorTrace& trace, const IterDomain* axis) {
  for (size_t k = 0; k < trace.axes.size(); ++k) {
    for (const AxisPiece& piece : trace.axes[k]) {
      if (piece.kind == PieceKind::Axis && piece.id == axis && piece.step == 1) {
        return static_cast<int64_t>(k);
      }
    }
  }
  return -1;
}

// Tensors grouped by their innermost axis, as reference axes.
struct Groups {
  const TensorView* reference = nullptr;
  std::vector<int64_t> referenceExtents;  // -1 where unknown
  int64_t innerAxis2 = -1;                // the reference's innermost axis (group 2)
  int64_t innerAxis1 = -1;                // group 1's innermost axis
  std::vector<const TensorView*> group1;
  std::vector<const TensorView*> group2;
  std::string refusal;  // why this is not a transpose

  int64_t extent1() const { return referenceExtents[innerAxis1]; }
  int64_t extent2() const { return referenceExtents[innerAxis2]; }
};

Groups findGroups(const ir::Fusion& segment, const SegmentRuntimeInfo* info) {
  Groups g;
  const ir::ExpressionEvaluator* evaluator = info ? info->evaluator : nullptr;
  g.reference = largestOutput(segment, evaluator);
  if (g.reference == nullptr) {
    g.refusal = "has no tensor output";
    return g;
  }
  const AxisTrace trace(segment, g.reference, evaluator);
  g.referenceExtents = trace.referenceExtents();
  const TensorTrace* refTrace = trace.find(g.reference);
  g.innerAxis2 = referenceAxisWalking(*refTrace, innermostAxis(segment, g.reference, info));
  if (g.innerAxis2 < 0) {
    g.refusal = "no transpose: the reference " + g.reference->name() +
                " has no axis it moves along in memory";
    return g;
  }
  std::vector<std::string> others;
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    const TensorTrace* t = trace.find(tv);
    const IterDomain* inner = innermostAxis(segment, tv, info);
    if (t == nullptr || inner == nullptr) continue;
    const int64_t k = referenceAxisWalking(*t, inner);
    if (k < 0) continue;  // broadcast or untraceable: read either way
    // A tensor that does not move along the reference's innermost axis
    // (e.g. a [16] weight broadcast along it) is read once per row, not
    // transposed: it belongs to neither group.
    if (k != g.innerAxis2 && !t->moves(g.innerAxis2)) continue;
    if (k == g.innerAxis2) {
      g.group2.push_back(tv);
    } else if (g.innerAxis1 < 0 || k == g.innerAxis1) {
      g.innerAxis1 = k;
      g.group1.push_back(tv);
    } else {
      g.refusal = "no transpose the tiles can do: " + g.group1.front()->name() + ", " + tv->name() +
                  " and " + g.reference->name() +
                  " each have another innermost axis (reference axes " + str(g.innerAxis1) + ", " +
                  str(k) + " and " + str(g.innerAxis2) + "); a tile transposes two";
      return g;
    }
  }
  if (g.group1.empty()) {
    g.refusal =
        "no transpose: every input and output has the same innermost "
        "axis";
  }
  return g;
}

// The tensor group 1 is analysed from: its first input, else its first.
const TensorView* groupReference(const ir::Fusion& segment,
                                 const std::vector<const TensorView*>& group) {
  for (const TensorView* tv : group) {
    if (segment.isInput(tv)) return tv;
  }
  return group.front();
}

int64_t stagedBytes(const Groups& g) {
  int64_t bytes = 0;
  for (const TensorView* tv : g.group1) bytes += ir::sizeInBytes(tv->dtype());
  return bytes;
}

// Each group vectorized along its own innermost axis, within a tile.
VectorizationAnalysis groupVectorization(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                         const std::vector<const TensorView*>& group,
                                         int64_t maxFactor) {
  VectorizationQuery query;
  query.reference = groupReference(segment, group);
  query.tensors = group;
  query.maxFactor = maxFactor;
  const MemoryLayout layout = memoryLayout(segment, query.reference, info);
  query.breakPoint = std::max<int64_t>(0, layout.innermostMovingAxis());
  if (!allocationIsPermutation(query.reference)) query.breakPoint = 0;
  return analyzeVectorization(segment, info, query);
}

struct Decision {
  Groups groups;
  TransposeParams params;
  VectorizationAnalysis vectorization1;
  VectorizationAnalysis vectorization2;
  std::string tileReason;
  int64_t sharedMemoryBytes = 0;
  LargestSpan span;
};

Decision decide(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  FL_ASSERT(info.device != nullptr && info.evaluator != nullptr,
            "the transpose heuristic needs a device and bound sizes");
  Decision d;
  d.groups = findGroups(segment, &info);
  FL_ASSERT(d.groups.refusal.empty(),
            "the transpose heuristic was asked about a segment it refused: ", d.groups.refusal);
  const Groups& g = d.groups;
  const DeviceSpec& device = *info.device;
  int64_t widest = 0;
  for (const auto* group : {&g.group1, &g.group2}) {
    for (const TensorView* tv : *group) {
      widest = std::max(widest, ir::sizeInBytes(tv->dtype()));
    }
  }
  const int64_t staged = stagedBytes(g);
  const int64_t largeTileBytes = kLargeTile * kLargeTile * staged;
  TransposeParams& p = d.params;
  p.tileSize1 = p.tileSize2 = kTile;
  p.blockDim = kThreads;
  if (widest > 2) {
    d.tileReason = "32x32 tiles: the widest dtype has " + str(widest) +
                   " bytes (64x64 tiles are for 2-byte dtypes)";
  } else if (g.extent1() < kLargeTile || g.extent2() < kLargeTile) {
    d.tileReason = "32x32 tiles: inner extents " + str(g.extent1()) + " and " + str(g.extent2()) +
                   " do not both fill a 64-wide tile";
  } else if (largeTileBytes > device.sharedMemoryPerBlockBytes) {
    d.tileReason = "32x32 tiles: 64x64 tiles of the staged tensors need " + str(largeTileBytes) +
                   " bytes of shared memory, more than " + str(device.sharedMemoryPerBlockBytes) +
                   " per block";
  } else {
    p.tileSize1 = p.tileSize2 = kLargeTile;
    p.blockDim = kLargeTileThreads;
    d.tileReason =
        "64x64 tiles of 256 threads: 2-byte dtypes and inner "
        "extents " +
        str(g.extent1()) + " and " + str(g.extent2());
  }
  d.sharedMemoryBytes = p.tileSize1 * p.tileSize2 * staged;
  const int64_t maxFactor = std::min(p.tileSize1, p.tileSize1 * p.tileSize2 / p.blockDim);
  d.vectorization1 = groupVectorization(segment, info, g.group1, maxFactor);
  d.vectorization2 = groupVectorization(segment, info, g.group2, maxFactor);
  p.vectorizationFactor1 = d.vectorization1.factor;
  p.vectorizationFactor2 = d.vectorization2.factor;
  d.span = largestSpan(segment, info);
  p.useInt32Indexing = d.span.fitsInt32();
  return d;
}

}  // namespace

std::optional<std::string> TransposeScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  if (auto pointwise = PointwiseScheduler().rejectCompileTime(segment)) {
    return pointwise;
  }
  const Groups g = findGroups(segment, nullptr);
  if (!g.refusal.empty()) return g.refusal;
  return std::nullopt;
}

std::optional<std::string> TransposeScheduler::rejectRunTime(const ir::Fusion& segment,
                                                             const SegmentRuntimeInfo& info) const {
  const Groups g = findGroups(segment, &info);
  if (!g.refusal.empty()) return g.refusal;
  if (auto coverage = PointwiseScheduler().rejectRunTime(segment, info)) {
    return coverage;
  }
  if (g.extent1() < kMinInnerExtent || g.extent2() < kMinInnerExtent) {
    return "small transpose: the innermost axes of " + nameList(g.group1) + " (" +
           str(g.extent1()) + " elements) and of " + nameList(g.group2) + " (" + str(g.extent2()) +
           " elements) do not both fill a " + str(kMinInnerExtent) +
           "-wide tile; the pointwise scheduler "
           "handles small transposes";
  }
  return std::nullopt;
}

HeuristicParams TransposeScheduler::computeHeuristics(const ir::Fusion& segment,
                                                      const SegmentRuntimeInfo& info) const {
  return decide(segment, info).params;
}

std::optional<std::string> TransposeScheduler::rejectParams(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info,
                                                            const HeuristicParams& params) const {
  const auto* p = std::get_if<TransposeParams>(&params);
  if (p == nullptr) {
    return std::string("expected transpose params, got ") +
           (std::holds_alternative<PointwiseParams>(params)   ? "pointwise"
            : std::holds_alternative<ReductionParams>(params) ? "reduction"
                                                              : "no") +
           " params";
  }
  for (const auto& [tile, name] :
       {std::pair{p->tileSize1, "tile_size1"}, std::pair{p->tileSize2, "tile_size2"}}) {
    if (!isPowerOfTwo(tile) || tile > 128) {
      return std::string(name) + " " + str(tile) + " is not a power of two from 1 to 128";
    }
  }
  for (const auto& [vect, tile, group] : {std::tuple{p->vectorizationFactor1, p->tileSize1, 1},
                                          std::tuple{p->vectorizationFactor2, p->tileSize2, 2}}) {
    if (!isVectorizationFactor(vect)) {
      return "vectorization_factor" + str(group) + " " + str(vect) + " is not 1, 2, 4, 8 or 16";
    }
    if (tile % vect != 0) {
      return "vectorization_factor" + str(group) + " " + str(vect) + " does not divide tile_size" +
             str(group) + " " + str(tile);
    }
  }
  const DeviceSpec& device = *info.device;
  if (p->blockDim < 1 || p->blockDim > device.maxThreadsPerBlock ||
      p->blockDim % device.warpSize != 0) {
    return "block_dim " + str(p->blockDim) +
           " is not a multiple of the warp "
           "size " +
           str(device.warpSize) + " up to " + str(device.maxThreadsPerBlock) + " threads";
  }
  const int64_t tileElements = p->tileSize1 * p->tileSize2;
  const int64_t widestVector = std::max(p->vectorizationFactor1, p->vectorizationFactor2);
  if (tileElements % p->blockDim != 0 || tileElements / p->blockDim < widestVector) {
    return "a " + str(p->tileSize1) + "x" + str(p->tileSize2) + " tile over " + str(p->blockDim) +
           " threads does not give every thread a whole "
           "vector of " +
           str(widestVector) + " elements";
  }

  const Groups g = findGroups(segment, &info);
  if (!g.refusal.empty()) return g.refusal;
  const int64_t smem = tileElements * stagedBytes(g);
  if (smem > device.sharedMemoryPerBlockBytes) {
    return str(p->tileSize1) + "x" + str(p->tileSize2) + " tiles of " + nameList(g.group1) +
           " need " + str(smem) + " bytes of shared memory; the " + device.name + " gives " +
           str(device.sharedMemoryPerBlockBytes) + " per block";
  }
  const int64_t maxFactor = 16;
  for (const auto& [vect, group, index] : {std::tuple{p->vectorizationFactor1, &g.group1, 1},
                                           std::tuple{p->vectorizationFactor2, &g.group2, 2}}) {
    const VectorizationAnalysis allowed = groupVectorization(segment, info, *group, maxFactor);
    if (allowed.factor % vect != 0) {
      return "vectorization_factor" + str(index) + " " + str(vect) + " is more than the " +
             str(allowed.factor) + " group " + str(index) + " (" + nameList(*group) + ") allows (" +
             allowed.reason() + ")";
    }
  }
  if (p->useInt32Indexing) {
    if (auto why = rejectInt32Indexing(segment, info)) return why;
  }
  return std::nullopt;
}

report::Json TransposeScheduler::properties(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info) const {
  const Decision d = decide(segment, info);
  const Groups& g = d.groups;
  report::Json json = report::Json::object();
  json.set("reference", g.reference->name());
  json.set("reference_shape", report::Json::arrayOf(g.referenceExtents));
  json.set("group1", nameArray(g.group1));
  json.set("group2", nameArray(g.group2));
  json.set("group1_inner_reference_axis", g.innerAxis1);
  json.set("group2_inner_reference_axis", g.innerAxis2);
  json.set("group1_inner_extent", g.extent1());
  json.set("group2_inner_extent", g.extent2());
  json.set("tile_reason", d.tileReason);
  json.set("shared_memory_bytes", d.sharedMemoryBytes);
  json.set("shared_memory_per_block_bytes", info.device->sharedMemoryPerBlockBytes);
  json.set("max_allowed_vectorize_factor1", d.vectorization1.factor);
  json.set("max_allowed_vectorize_factor2", d.vectorization2.factor);
  json.set("vectorization1", d.vectorization1.toJson());
  json.set("vectorization2", d.vectorization2.toJson());
  json.set("index_type", d.params.useInt32Indexing ? "int32" : "int64");
  json.set("largest_span_tensor", d.span.tensor);
  json.set("largest_span_elements", d.span.elements);
  return json;
}

}  // namespace fuserlab::scheduler
