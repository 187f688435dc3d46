#include "core/multidevice/axis_mapping.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/ir/elementwise.h"

namespace fuserlab::multidevice {
namespace {

using ir::ExprType;

int64_t positionOf(const std::vector<ir::IterDomain*>& ids, const ir::IterDomain* id) {
  auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : it - ids.begin();
}

bool isPointwise(ExprType type) {
  return ir::isElementwiseMath(type) || type == ExprType::Set || type == ExprType::SegmentSet;
}

// Reshape with constant extents: groups of input and output axes whose
// products match, scanned left to right. Returns, for input axis `j`, the
// output axis it maps to: itself when its group is 1 -> 1, the first output
// axis when it alone is split, the merged axis when it is the outermost of a
// merge; -1 otherwise. `forward` false maps output axis j back instead.
int64_t reshapeMap(const std::vector<int64_t>& in, const std::vector<int64_t>& out, int64_t j,
                   bool forward) {
  size_t i0 = 0, o0 = 0;
  while (i0 < in.size() || o0 < out.size()) {
    size_t i1 = i0, o1 = o0;
    int64_t pi = 1, po = 1;
    // Extend the groups until their products agree (size-1 axes pair alone).
    if (i1 < in.size()) pi *= in[i1++];
    if (o1 < out.size()) po *= out[o1++];
    while (pi != po) {
      if (pi < po && i1 < in.size()) {
        pi *= in[i1++];
      } else if (po < pi && o1 < out.size()) {
        po *= out[o1++];
      } else {
        return -1;
      }
    }
    const bool inGroup = forward ? (static_cast<size_t>(j) >= i0 && static_cast<size_t>(j) < i1)
                                 : (static_cast<size_t>(j) >= o0 && static_cast<size_t>(j) < o1);
    if (inGroup) {
      const size_t nIn = i1 - i0, nOut = o1 - o0;
      if (forward) {
        if (nIn == 1) return static_cast<int64_t>(o0);             // kept or split
        if (nOut == 1 && static_cast<size_t>(j) == i0) return o0;  // merge
      } else {
        if (nOut == 1) return static_cast<int64_t>(i0);           // kept or merged
        if (nIn == 1 && static_cast<size_t>(j) == o0) return i0;  // split
      }
      return -1;
    }
    i0 = i1;
    o0 = o1;
  }
  return -1;
}

std::optional<std::vector<int64_t>> constShape(const std::vector<ir::IterDomain*>& ids) {
  std::vector<int64_t> shape;
  for (const ir::IterDomain* id : ids) {
    std::optional<int64_t> e = id->extent()->constInt();
    if (!e) return std::nullopt;
    shape.push_back(*e);
  }
  return shape;
}

ir::IterDomain* trailingReduction(const ir::TensorView* out) {
  const auto& logical = out->logical();
  if (!logical.empty() && logical.back()->isReduction()) return logical.back();
  return nullptr;
}

// Whether `slice` keeps axis `axis` (extent `id`) whole: start 0, step 1
// and a stop at or past the extent, all constants (or the stop the extent
// itself).
bool slicesWhole(const ir::Expr* slice, size_t axis, const ir::IterDomain* id) {
  if (slice->inputs().size() < 3 * axis + 4) return false;
  const auto* start = slice->input(3 * axis + 1)->as<ir::Scalar>();
  const auto* stop = slice->input(3 * axis + 2)->as<ir::Scalar>();
  const auto* step = slice->input(3 * axis + 3)->as<ir::Scalar>();
  if (start == nullptr || stop == nullptr || step == nullptr) return false;
  if (!start->isConstInt(0) || !step->isConstInt(1)) return false;
  if (stop == id->extent()) return true;
  const auto stopValue = stop->constInt();
  const auto extent = id->extent()->constInt();
  return stopValue && extent && *stopValue >= *extent;
}

}  // namespace

ir::IterDomain* mapToConsumer(const ir::Expr* expr, size_t inputIndex,
                              const ir::IterDomain* inputAxis) {
  const auto* in = expr->input(inputIndex)->as<ir::TensorView>();
  const auto* out = expr->output(0)->as<ir::TensorView>();
  if (in == nullptr || out == nullptr) return nullptr;
  const std::vector<ir::IterDomain*>& inAxes = in->logicalNoReductions();
  const std::vector<ir::IterDomain*>& outAxes = out->logicalNoReductions();
  const int64_t j = positionOf(inAxes, inputAxis);
  if (j < 0) return nullptr;
  const size_t uj = static_cast<size_t>(j);
  const ExprType type = expr->type();
  if (isPointwise(type)) {
    return inAxes.size() == outAxes.size() ? outAxes[uj] : nullptr;
  }
  switch (type) {
    case ExprType::Reduction:
    case ExprType::Welford: return uj < out->logical().size() ? out->logical()[uj] : nullptr;
    case ExprType::Broadcast: {
      const auto& flags = expr->attrs().broadcastFlags;
      size_t seen = 0;
      for (size_t k = 0; k < flags.size() && k < outAxes.size(); ++k) {
        if (flags[k]) continue;
        if (seen++ == uj) return outAxes[k];
      }
      return nullptr;
    }
    case ExprType::Squeeze: {
      const auto& removed = expr->attrs().axes;
      if (std::count(removed.begin(), removed.end(), j)) return nullptr;
      int64_t before =
          std::count_if(removed.begin(), removed.end(), [&](int64_t r) { return r < j; });
      return outAxes[uj - static_cast<size_t>(before)];
    }
    case ExprType::Permute: {
      const auto& axes = expr->attrs().axes;
      for (size_t k = 0; k < axes.size(); ++k) {
        if (axes[k] == j) return outAxes[k];
      }
      return nullptr;
    }
    case ExprType::Linear: {
      const size_t rank = inAxes.size();
      if (inputIndex == 0) {
        return uj + 1 < rank ? outAxes[uj] : trailingReduction(out);
      }
      if (inputIndex == 1) {
        if (rank == 2 && uj == 0) return outAxes.back();
        return uj + 1 == rank ? trailingReduction(out) : nullptr;
      }
      return inAxes.size() == 1 ? outAxes.back() : nullptr;  // bias [N]
    }
    case ExprType::Reshape: {
      auto inShape = constShape(inAxes);
      auto outShape = constShape(outAxes);
      if (!inShape || !outShape || inputIndex != 0) return nullptr;
      int64_t k = reshapeMap(*inShape, *outShape, j, /*forward=*/true);
      return k < 0 ? nullptr : outAxes[static_cast<size_t>(k)];
    }
    case ExprType::Slice:
      // Only an axis the slice keeps whole (start 0, step 1, stop at or past
      // the end): each device's block is then its block of the output.
      return inputIndex == 0 && slicesWhole(expr, uj, inAxes[uj]) ? outAxes[uj] : nullptr;
    case ExprType::Sdpa:
      // q, k, v [b, h, s, e]: batch and heads are independent problems.
      return inputIndex <= 2 && uj <= 1 && outAxes.size() == inAxes.size() ? outAxes[uj] : nullptr;
    default: return nullptr;
  }
}

ir::IterDomain* mapToProducer(const ir::Expr* expr, size_t inputIndex,
                              const ir::IterDomain* outputAxis) {
  const auto* in = expr->input(inputIndex)->as<ir::TensorView>();
  const auto* out = expr->output(0)->as<ir::TensorView>();
  if (in == nullptr || out == nullptr) return nullptr;
  const std::vector<ir::IterDomain*>& inAxes = in->logicalNoReductions();
  if (expr->type() == ExprType::Reshape) {
    const std::vector<ir::IterDomain*>& outAxes = out->logicalNoReductions();
    auto inShape = constShape(inAxes);
    auto outShape = constShape(outAxes);
    const int64_t j = positionOf(outAxes, outputAxis);
    if (!inShape || !outShape || j < 0 || inputIndex != 0) return nullptr;
    int64_t k = reshapeMap(*inShape, *outShape, j, /*forward=*/false);
    return k < 0 ? nullptr : inAxes[static_cast<size_t>(k)];
  }
  // Everything else: the input axis whose forward mapping is `outputAxis`.
  for (ir::IterDomain* id : inAxes) {
    if (mapToConsumer(expr, inputIndex, id) == outputAxis) return id;
  }
  return nullptr;
}

}  // namespace fuserlab::multidevice
