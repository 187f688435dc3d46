#include "core/passes/allocation_order_propagation.h"

#include <algorithm>
#include <numeric>

#include "core/passes/view_analysis.h"

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

// Axes that are the same loop across exprs (nvFuser's exact map), as a
// union-find over IterDomain ids.
class AxisMap {
 public:
  AxisMap(const ir::Fusion& fusion, const std::vector<Expr*>& exprs)
      : parent_(fusion.iterDomains().size()) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (const Expr* expr : exprs) mapExpr(expr);
  }

  bool mapped(const IterDomain* a, const IterDomain* b) const {
    return find(a->id()) == find(b->id());
  }

 private:
  int64_t find(int64_t id) const {
    while (parent_[id] != id) id = parent_[id] = parent_[parent_[id]];
    return id;
  }

  // Broadcast axes stand for no loop of their own; they map to nothing.
  void join(const IterDomain* a, const IterDomain* b) {
    if (a->isBroadcast() || b->isBroadcast()) return;
    parent_[find(a->id())] = find(b->id());
  }

  void mapExpr(const Expr* expr) {
    const auto* out = expr->output(0)->as<TensorView>();
    const auto* in = expr->input(0)->as<TensorView>();
    if (out == nullptr) return;
    const auto& outAxes = out->logical();
    switch (expr->type()) {
      case ExprType::Unary:
      case ExprType::Binary:
      case ExprType::Ternary:
      case ExprType::Cast:
      case ExprType::Set:
      case ExprType::SegmentSet:
      case ExprType::Expand:
        for (const ir::Val* operand : expr->inputs()) {
          const auto* tv = operand->as<TensorView>();
          if (tv != nullptr) mapPositionally(tv->logicalNoReductions(), outAxes);
        }
        break;
      case ExprType::Reduction:
      case ExprType::Welford:
        // Reduced axes stay in the outputs' logical domains, in place.
        for (const ir::Val* result : expr->outputs()) {
          mapPositionally(in->logicalNoReductions(), result->as<TensorView>()->logical());
        }
        break;
      case ExprType::Broadcast: {
        const auto& inAxes = in->logicalNoReductions();
        size_t next = 0;
        const auto& flags = expr->attrs().broadcastFlags;
        for (size_t j = 0; j < flags.size() && j < outAxes.size(); ++j) {
          if (!flags[j] && next < inAxes.size()) join(inAxes[next++], outAxes[j]);
        }
        break;
      }
      case ExprType::Squeeze: {
        const auto& inAxes = in->logicalNoReductions();
        const auto& removed = expr->attrs().axes;
        size_t next = 0;
        for (size_t i = 0; i < inAxes.size() && next < outAxes.size(); ++i) {
          if (std::find(removed.begin(), removed.end(), static_cast<int64_t>(i)) == removed.end()) {
            join(inAxes[i], outAxes[next++]);
          }
        }
        break;
      }
      case ExprType::Permute: {
        const auto& inAxes = in->logicalNoReductions();
        const auto& axes = expr->attrs().axes;
        for (size_t i = 0; i < axes.size() && i < outAxes.size(); ++i) {
          join(inAxes.at(axes[i]), outAxes[i]);
        }
        break;
      }
      case ExprType::Slice: {
        // Only axes kept whole are the same loop.
        const auto& inAxes = in->logicalNoReductions();
        for (size_t i = 0; i < inAxes.size() && i < outAxes.size(); ++i) {
          if (inAxes[i]->extentForIteration() == outAxes[i]->extentForIteration()) {
            join(inAxes[i], outAxes[i]);
          }
        }
        break;
      }
      case ExprType::Pad: {
        // Inputs: [x, value, left_0, right_0, left_1, right_1, ...].
        const auto& inAxes = in->logicalNoReductions();
        for (size_t i = 0; i < inAxes.size() && i < outAxes.size(); ++i) {
          const auto* left = expr->input(2 + 2 * i)->as<ir::Scalar>();
          const auto* right = expr->input(3 + 2 * i)->as<ir::Scalar>();
          if (left && right && left->isConstInt(0) && right->isConstInt(0)) {
            join(inAxes[i], outAxes[i]);
          }
        }
        break;
      }
      case ExprType::Cat: {
        const auto dim = static_cast<size_t>(expr->attrs().dim);
        for (const ir::Val* operand : expr->inputs()) {
          const auto& inAxes = operand->as<TensorView>()->logicalNoReductions();
          for (size_t i = 0; i < inAxes.size() && i < outAxes.size(); ++i) {
            if (i != dim) join(inAxes[i], outAxes[i]);
          }
        }
        break;
      }
      default: break;  // reshape, matmul, gather, ...: no axis is kept as is
    }
  }

  // Elementwise operands of the output's rank line up axis by axis; 0-dim
  // operands (and scalars) have nothing to map.
  void mapPositionally(const std::vector<IterDomain*>& from, const std::vector<IterDomain*>& to) {
    if (from.size() != to.size()) return;
    for (size_t i = 0; i < from.size(); ++i) join(from[i], to[i]);
  }

  mutable std::vector<int64_t> parent_;
};

// Which tensor inputs each value depends on: one flag per (Val id, input
// position), in one block.
class InputDependencies {
 public:
  InputDependencies(const ir::Fusion& fusion, const std::vector<Expr*>& exprs)
      : inputs_(fusion.tensorInputs()), depends_(fusion.vals().size() * inputs_.size(), false) {
    const size_t n = inputs_.size();
    for (size_t i = 0; i < n; ++i) depends_[inputs_[i]->id() * n + i] = true;
    for (const Expr* expr : exprs) {
      for (const ir::Val* out : expr->outputs()) {
        for (const ir::Val* in : expr->inputs()) {
          for (size_t i = 0; i < n; ++i) {
            if (depends_[in->id() * n + i]) depends_[out->id() * n + i] = true;
          }
        }
      }
    }
  }

  bool dependsOn(const TensorView* tv, size_t input) const {
    return depends_[tv->id() * inputs_.size() + input];
  }
  const std::vector<TensorView*>& inputs() const { return inputs_; }

 private:
  std::vector<TensorView*> inputs_;
  std::vector<bool> depends_;
};

// Allocation axes that are neither broadcast nor reduction, outer first.
std::vector<IterDomain*> nonTrivialAllocation(const TensorView* tv) {
  std::vector<IterDomain*> ids;
  for (IterDomain* id : tv->maybeAllocation()) {
    if (!id->isBroadcast() && !id->isReduction()) ids.push_back(id);
  }
  return ids;
}

// The input whose layout `dst` follows, or null when none is unambiguous.
const TensorView* findReference(const TensorView* dst, const InputDependencies& deps,
                                const AxisMap& axes) {
  const TensorView* ref = nullptr;
  size_t highWaterMark = 0;
  for (size_t i = 0; i < deps.inputs().size(); ++i) {
    const TensorView* candidate = deps.inputs()[i];
    if (!deps.dependsOn(dst, i)) continue;
    const auto candidateAxes = nonTrivialAllocation(candidate);
    if (candidateAxes.size() < highWaterMark) continue;
    if (candidateAxes.size() > highWaterMark) {
      ref = candidate;
      highWaterMark = candidateAxes.size();
      continue;
    }
    // As many axes as the reference: both must order the same loops alike.
    if (ref == nullptr) continue;
    const auto refAxes = nonTrivialAllocation(ref);
    for (size_t a = 0; a < refAxes.size(); ++a) {
      if (!axes.mapped(refAxes[a], candidateAxes[a])) {
        ref = nullptr;
        break;
      }
    }
  }
  return ref;
}

// Two axes of `tv` on one loop (e.g. x + x.T): no order can serve both.
bool hasSelfMapping(const TensorView* tv, const AxisMap& axes) {
  const auto& ids = tv->logical();
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t j = i + 1; j < ids.size(); ++j) {
      if (!ids[i]->isBroadcast() && axes.mapped(ids[i], ids[j])) return true;
    }
  }
  return false;
}

// `dst`'s logical axes reordered after `ref`'s allocation: walking ref's
// allocation from the innermost axis out, each axis found in dst becomes
// dst's next innermost, until an axis of ref has no counterpart (broadcast
// and reduction axes of ref are skipped); the rest keep their logical order
// outside. Unmatched reduction axes keep their positions. Empty if the
// result is the logical order.
std::vector<IterDomain*> allocationFollowing(const TensorView* ref, const TensorView* dst,
                                             const AxisMap& axes) {
  const auto& logical = dst->logical();
  std::vector<IterDomain*> innerFirst;
  const auto& refAllocation = ref->maybeAllocation();
  for (auto it = refAllocation.rbegin(); it != refAllocation.rend(); ++it) {
    const IterDomain* refId = *it;
    auto match = std::find_if(logical.begin(), logical.end(), [&](IterDomain* id) {
      return axes.mapped(refId, id) && !id->isBroadcast();
    });
    if (match == logical.end() || refId->isBroadcast()) {
      if (refId->isBroadcast() || refId->isReduction()) continue;
      break;
    }
    // A reduced axis of dst is not moved for an iterated axis of ref.
    if ((*match)->isReduction() && !refId->isReduction()) continue;
    if (std::find(innerFirst.begin(), innerFirst.end(), *match) == innerFirst.end()) {
      innerFirst.push_back(*match);
    }
  }
  auto isMatched = [&](const IterDomain* id) {
    return std::find(innerFirst.begin(), innerFirst.end(), id) != innerFirst.end();
  };
  std::vector<IterDomain*> unmatched;
  for (IterDomain* id : logical) {
    if (!isMatched(id) && !id->isReduction()) unmatched.push_back(id);
  }
  std::vector<IterDomain*> allocation(logical.size(), nullptr);
  auto nextUnmatched = unmatched.begin();
  auto nextMatched = innerFirst.rbegin();
  for (size_t i = 0; i < logical.size(); ++i) {
    if (logical[i]->isReduction() && !isMatched(logical[i])) {
      allocation[i] = logical[i];
    } else if (nextUnmatched != unmatched.end()) {
      allocation[i] = *nextUnmatched++;
    } else {
      allocation[i] = *nextMatched++;
    }
  }
  if (allocation == logical) return {};
  return allocation;
}

std::string intList(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

}  // namespace

std::string_view AllocationOrderPropagationPass::description() const {
  return "Gives outputs without a layout of their own the allocation (stride) "
         "order of the input they are computed from, so a channels-last input "
         "gives a channels-last output.";
}

void AllocationOrderPropagationPass::run(ir::Fusion& fusion, const PassOptions& options,
                                         PassRecord& record) const {
  const ViewAnalysis views(fusion);
  const AxisMap axes(fusion, views.liveExprs());
  const InputDependencies deps(fusion, views.liveExprs());
  for (const ir::FusionOutput& output : fusion.outputs()) {
    auto* dst = output.val->as<TensorView>();
    if (dst == nullptr || output.aliasOf != nullptr || fusion.isInput(dst) ||
        dst->domain().hasAllocation() || dst->rank() == 0 || dst->definition() == nullptr ||
        views.isView(dst->definition()) || hasSelfMapping(dst, axes)) {
      continue;
    }
    const TensorView* ref = findReference(dst, deps, axes);
    if (ref == nullptr) continue;
    std::vector<IterDomain*> allocation = allocationFollowing(ref, dst, axes);
    if (allocation.empty()) continue;
    dst->setAllocation(std::move(allocation));
    const std::vector<int64_t> refOrder = ref->strideOrder();
    record.rewrites.push_back("set the stride order of output " + dst->name() + " to " +
                              intList(dst->strideOrder()) + ", the layout of input " + ref->name() +
                              " (stride order " +
                              (refOrder.empty() ? std::string("row-major") : intList(refOrder)) +
                              ") it is computed from");
  }
}

}  // namespace fuserlab::passes
