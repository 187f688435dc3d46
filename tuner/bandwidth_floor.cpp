#include "tuner/bandwidth_floor.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/ir/expr.h"
#include "core/ir/tensor_view.h"
#include "measure/benchmark.h"

namespace fuserlab::tuner {
namespace {

// Ops that read every element of each tensor input they take. Anything else
// (slice, gather, index_select, embedding, scatter, matmul, ...) may read a
// part of an input, or read it more cleverly than once.
bool readsAllOfItsInputs(ir::ExprType type) {
  switch (type) {
    case ir::ExprType::Unary:
    case ir::ExprType::Binary:
    case ir::ExprType::Ternary:
    case ir::ExprType::Cast:
    case ir::ExprType::Reduction:
    case ir::ExprType::Welford:
    case ir::ExprType::Broadcast:
    case ir::ExprType::Expand:
    case ir::ExprType::Reshape:
    case ir::ExprType::Permute:
    case ir::ExprType::Squeeze:
    case ir::ExprType::Pad:
    case ir::ExprType::Cat:
    case ir::ExprType::Set:
    case ir::ExprType::SegmentSet:
    case ir::ExprType::Full:
    case ir::ExprType::Iota:
    case ir::ExprType::Random: return true;
    default: return false;
  }
}

}  // namespace

int64_t segmentBytesMoved(const TuningTarget& target) {
  const ir::Fusion& segment = target.segmentFusion();
  bool wholeInputs = true;
  for (const auto& expr : segment.exprs())
    wholeInputs = wholeInputs && readsAllOfItsInputs(expr->type());
  runtime::Arguments inputs;
  if (wholeInputs) inputs = target.bound.arguments;
  // Outputs: distinct values that the kernel writes (not an input passed
  // through), laid out densely, an expanded axis with stride 0.
  std::vector<runtime::Tensor> outputs;
  std::set<const ir::Val*> seen;
  const auto& segmentInputs = segment.inputs();
  for (const ir::FusionOutput& output : segment.outputs()) {
    const auto* tv = output.val->as<ir::TensorView>();
    if (tv == nullptr || !seen.insert(output.val).second) continue;
    if (std::find(segmentInputs.begin(), segmentInputs.end(), output.val) != segmentInputs.end()) {
      continue;
    }
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    int64_t stride = 1;
    const auto& axes = tv->logicalNoReductions();
    sizes.resize(axes.size());
    strides.resize(axes.size());
    for (size_t d = axes.size(); d-- > 0;) {
      sizes[d] = target.bound.evaluator->evaluateExtent(axes[d]);
      const bool expanded = axes[d]->isBroadcast() && axes[d]->hasExpandedExtent();
      strides[d] = expanded ? 0 : stride;
      if (!expanded) stride *= std::max<int64_t>(sizes[d], 1);
    }
    outputs.push_back(runtime::metadataOnly(tv->dtype(), sizes, strides));
  }
  return runtime::fusionBytes(inputs, outputs);
}

std::optional<BandwidthFloor> bandwidthFloor(int64_t bytes, double copyBytesPerSecond,
                                             double factor) {
  if (bytes <= 0 || copyBytesPerSecond <= 0 || factor <= 0) return std::nullopt;
  BandwidthFloor floor;
  floor.bytes = bytes;
  floor.copyBytesPerSecond = copyBytesPerSecond;
  floor.factor = factor;
  floor.floorNs = double(bytes) / (copyBytesPerSecond * factor) * 1e9;
  return floor;
}

std::optional<EarlyStop> earlyStopAt(const BandwidthFloor& floor, size_t variant, double medianNs,
                                     double noiseNs, double margin) {
  if (floor.floorNs <= 0 || medianNs < floor.floorNs) return std::nullopt;
  if (medianNs - floor.floorNs > margin * medianNs + noiseNs) return std::nullopt;
  EarlyStop stop;
  stop.variant = variant;
  stop.bestNs = medianNs;
  stop.floorNs = floor.floorNs;
  stop.abovePercent = (medianNs / floor.floorNs - 1) * 100;
  char text[200];
  std::snprintf(text, sizeof text,
                "early stop: best %.2f us (variant %zu) is within %.1f%% of the bandwidth floor "
                "%.2f us",
                medianNs / 1000, variant, stop.abovePercent, floor.floorNs / 1000);
  stop.message = text;
  return stop;
}

}  // namespace fuserlab::tuner
