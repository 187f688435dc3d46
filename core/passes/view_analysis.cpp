#include "core/passes/view_analysis.h"

#include "core/multidevice/communication.h"

#include <algorithm>

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::Scalar;
using ir::TensorView;

// Positions of `order` renumbered through `newPosition` (old -> new).
void renumber(ViewLayout& layout, const std::vector<int64_t>& newPosition) {
  for (int64_t& pos : layout.order) pos = newPosition.at(pos);
}

int64_t positionInOrder(const ViewLayout& layout, int64_t axis) {
  auto it = std::find(layout.order.begin(), layout.order.end(), axis);
  return it == layout.order.end() ? -1 : it - layout.order.begin();
}

ViewLayout broadcastLayout(ViewLayout layout, const Expr* expr) {
  std::vector<int64_t> newPosition;
  const auto& flags = expr->attrs().broadcastFlags;
  for (size_t j = 0; j < flags.size(); ++j) {
    if (!flags[j]) newPosition.push_back(static_cast<int64_t>(j));
  }
  renumber(layout, newPosition);
  return layout;
}

// Removing an axis of extent 1 joins its neighbours' strides: the axis
// before it is contiguous with the one after only if both links were.
ViewLayout squeezeLayout(ViewLayout layout, const Expr* expr, int64_t rank) {
  const auto& removed = expr->attrs().axes;
  for (int64_t axis : removed) {
    const int64_t p = positionInOrder(layout, axis);
    if (p < 0) continue;  // a broadcast axis has no stride to join
    if (p > 0) {
      layout.contiguous[p - 1] = layout.contiguous[p - 1] && layout.contiguous[p];
    }
    layout.order.erase(layout.order.begin() + p);
    layout.contiguous.erase(layout.contiguous.begin() + p);
  }
  std::vector<int64_t> newPosition(rank, -1);
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::find(removed.begin(), removed.end(), i) == removed.end()) {
      newPosition[i] = next++;
    }
  }
  renumber(layout, newPosition);
  return layout;
}

ViewLayout permuteLayout(ViewLayout layout, const Expr* expr) {
  const auto& axes = expr->attrs().axes;  // output i = input axes[i]
  std::vector<int64_t> newPosition(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) newPosition[axes[i]] = static_cast<int64_t>(i);
  renumber(layout, newPosition);
  return layout;
}

// A sliced axis keeps its stride, but the axis outside it no longer steps
// over exactly its extent; a step other than 1 also spreads the axis itself.
ViewLayout sliceLayout(ViewLayout layout, const Expr* expr, const TensorView* in,
                       const TensorView* out) {
  const auto& inAxes = in->logicalNoReductions();
  const auto& outAxes = out->logical();
  for (size_t i = 0; i < inAxes.size(); ++i) {
    if (outAxes[i]->extentForIteration() == inAxes[i]->extentForIteration()) {
      continue;  // kept whole
    }
    const int64_t p = positionInOrder(layout, static_cast<int64_t>(i));
    if (p < 0) continue;
    if (p > 0) layout.contiguous[p - 1] = false;
    const auto* step = expr->input(1 + 3 * i + 2)->as<Scalar>();
    if (step == nullptr || !step->isConstInt(1)) layout.contiguous[p] = false;
  }
  return layout;
}

bool sameExtent(const Scalar* a, const Scalar* b) {
  if (a == b) return true;
  auto ca = a->constInt();
  auto cb = b->constInt();
  return ca && cb && *ca == *cb;
}

std::vector<int64_t> nonBroadcastPositions(const std::vector<IterDomain*>& ids) {
  std::vector<int64_t> positions;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i]->isBroadcast()) positions.push_back(static_cast<int64_t>(i));
  }
  return positions;
}

// The layout of a reshape's output if it can alias its input. The input's
// non-broadcast axes and the output's are matched in groups of equal element
// count (one to one where the extents are the same scalar or constant,
// otherwise by constant products); inside a group the input axes are merged,
// which needs each of them (but the last) contiguous with the next.
std::optional<ViewLayout> reshapeLayout(const ViewLayout& in, const TensorView* x,
                                        const TensorView* y) {
  const auto& inAxes = x->logicalNoReductions();
  for (const IterDomain* id : inAxes) {
    // An expanded axis has stride 0; merging it needs a copy.
    if (id->isBroadcast() && !id->extentForIteration()->isConstInt(1)) {
      return std::nullopt;
    }
  }
  if (!std::is_sorted(in.order.begin(), in.order.end())) return std::nullopt;
  const auto& outAxes = y->logical();
  ViewLayout out;
  out.order = nonBroadcastPositions(outAxes);
  out.contiguous.assign(out.order.size(), true);
  if (in.dense()) return out;

  std::vector<const Scalar*> inExtents;
  for (int64_t pos : in.order) inExtents.push_back(inAxes[pos]->extent());
  std::vector<const Scalar*> outExtents;
  for (int64_t pos : out.order) outExtents.push_back(outAxes[pos]->extent());
  const size_t nIn = inExtents.size();
  const size_t nOut = outExtents.size();
  auto constPositive = [](const Scalar* s) -> std::optional<int64_t> {
    auto c = s->constInt();
    return c && *c > 0 ? c : std::nullopt;
  };
  size_t i = 0;
  size_t j = 0;
  while (i < nIn && j < nOut) {
    if (sameExtent(inExtents[i], outExtents[j])) {
      out.contiguous[j++] = in.contiguous[i++];
      continue;
    }
    auto a = constPositive(inExtents[i]);
    auto b = constPositive(outExtents[j]);
    if (!a || !b) return std::nullopt;
    int64_t inProduct = *a;
    int64_t outProduct = *b;
    const size_t firstIn = i++;
    const size_t firstOut = j++;
    while (inProduct != outProduct) {
      const bool takeIn = inProduct < outProduct;
      if ((takeIn && i >= nIn) || (!takeIn && j >= nOut)) return std::nullopt;
      auto c = constPositive(takeIn ? inExtents[i++] : outExtents[j++]);
      int64_t& product = takeIn ? inProduct : outProduct;
      if (!c || __builtin_mul_overflow(product, *c, &product)) return std::nullopt;
    }
    for (size_t k = firstIn; k + 1 < i; ++k) {
      if (!in.contiguous[k]) return std::nullopt;
    }
    for (size_t k = firstOut; k + 1 < j; ++k) out.contiguous[k] = true;
    out.contiguous[j - 1] = in.contiguous[i - 1];
  }
  if (i != nIn || j != nOut) return std::nullopt;
  return out;
}

// The layout a tensor is declared with: its allocation domain (a
// permutation of its logical axes) and contiguity flags.
std::optional<ViewLayout> declaredLayout(const TensorView* tv) {
  const auto& logical = tv->logicalNoReductions();
  const auto& allocation = tv->maybeAllocation();
  const auto& flags = tv->contiguity();
  if (flags.size() != allocation.size()) return std::nullopt;
  ViewLayout layout;
  for (size_t k = 0; k < allocation.size(); ++k) {
    const IterDomain* id = allocation[k];
    if (id->isReduction() || id->isBroadcast()) continue;
    auto it = std::find(logical.begin(), logical.end(), id);
    if (it == logical.end()) return std::nullopt;  // split/merge allocation
    layout.order.push_back(it - logical.begin());
    layout.contiguous.push_back(flags[k].value_or(true));
  }
  return layout;
}

}  // namespace

bool ViewLayout::dense() const {
  return std::is_sorted(order.begin(), order.end()) &&
         std::all_of(contiguous.begin(), contiguous.end(), [](bool c) { return c; });
}

bool isMetaOpType(ExprType type) {
  switch (type) {
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Reshape:
    case ExprType::Permute:
    case ExprType::Squeeze:
    case ExprType::Slice:
    case ExprType::Set:
    case ExprType::SegmentSet: return true;
    default: return false;
  }
}

ViewAnalysis::ViewAnalysis(const ir::Fusion& fusion)
    : layouts_(fusion.vals().size()), liveExprs_(fusion.exprsForOutputs()) {
  for (const TensorView* tv : fusion.tensorInputs()) {
    layouts_[tv->id()] = declaredLayout(tv);
  }
  // Producers come before consumers, so each expr sees its input's layout.
  live_.reserve(liveExprs_.size());
  for (Expr* expr : liveExprs_) {
    live_.insert(expr);
    if (!isView(expr)) {
      for (ir::Val* val : expr->outputs()) {
        if (const auto* tv = val->as<TensorView>()) {
          layouts_[tv->id()] = declaredLayout(tv);
        }
      }
      continue;
    }
    const auto* out = expr->output(0)->as<TensorView>();
    layouts_[out->id()] = viewedLayout(expr);
  }
}

std::optional<ViewLayout> ViewAnalysis::viewedLayout(const Expr* expr) const {
  const auto* in = expr->input(0)->as<TensorView>();
  const auto* out = expr->output(0)->as<TensorView>();
  const std::optional<ViewLayout> from = layout(in);
  if (!from) return std::nullopt;
  switch (expr->type()) {
    case ExprType::Broadcast: return broadcastLayout(*from, expr);
    case ExprType::Squeeze: return squeezeLayout(*from, expr, in->rank());
    case ExprType::Permute: return permuteLayout(*from, expr);
    case ExprType::Slice: return sliceLayout(*from, expr, in, out);
    case ExprType::Reshape: return reshapeLayout(*from, in, out);
    default: return from;  // expand, set, segment_set
  }
}

std::optional<ViewLayout> ViewAnalysis::layout(const TensorView* tv) const {
  const auto id = static_cast<size_t>(tv->id());
  return id < layouts_.size() ? layouts_[id] : std::nullopt;
}

bool ViewAnalysis::isView(const Expr* expr) const {
  if (!isMetaOpType(expr->type())) return false;
  // A set that changes the sharding moves data between devices: a
  // communication, never a view to bookend.
  if (multidevice::isReshardingSet(expr)) return false;
  const auto* in = expr->input(0)->as<TensorView>();
  const auto* out = expr->output(0)->as<TensorView>();
  if (in == nullptr || out == nullptr) return false;
  if (out->domain().hasAllocation()) {
    // An op declared with exactly the layout it gives its input's data
    // still aliases it: a copy with its input's layout, or the end of an
    // input's meta chain that mark_aliases_prepare declared as its view.
    const auto declared = declaredLayout(out);
    const auto actual = viewedLayout(expr);
    return declared && actual && declared->order == actual->order &&
           declared->contiguous == actual->contiguous;
  }
  if (expr->type() == ExprType::Reshape) {
    const auto from = layout(in);
    return from && reshapeLayout(*from, in, out).has_value();
  }
  return true;
}

bool ViewAnalysis::isLive(const Expr* expr) const { return live_.count(expr) != 0; }

std::vector<Expr*> ViewAnalysis::liveUses(const ir::Val* val) const {
  std::vector<Expr*> uses;
  for (Expr* use : val->uses()) {
    if (isLive(use)) uses.push_back(use);
  }
  return uses;
}

void declareLayout(TensorView* tv, const ViewLayout& layout) {
  const auto& logical = tv->logical();
  std::vector<std::optional<bool>> flags(logical.size(), std::nullopt);
  if (std::is_sorted(layout.order.begin(), layout.order.end())) {
    for (size_t k = 0; k < layout.order.size(); ++k) {
      flags[layout.order[k]] = layout.contiguous[k];
    }
    tv->setContiguity(std::move(flags));
    return;
  }
  // Broadcast axes have no stride; they go outermost.
  std::vector<IterDomain*> allocation;
  std::vector<std::optional<bool>> allocationFlags;
  for (IterDomain* id : logical) {
    if (id->isBroadcast()) {
      allocation.push_back(id);
      allocationFlags.push_back(std::nullopt);
    }
  }
  for (size_t k = 0; k < layout.order.size(); ++k) {
    allocation.push_back(logical.at(layout.order[k]));
    allocationFlags.push_back(layout.contiguous[k]);
  }
  tv->setAllocation(std::move(allocation), std::move(allocationFlags));
}

}  // namespace fuserlab::passes
