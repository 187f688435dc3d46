#include "core/ops/broadcast_shape.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

const ir::TensorView* asRankedTensor(const ir::Val* val) {
  const auto* tv = val->as<ir::TensorView>();
  return (tv != nullptr && tv->rank() > 0) ? tv : nullptr;
}

// The constant extent an axis contributes to the agreement check: a plain
// broadcast axis agrees with anything, an expanded one has its expanded extent.
std::optional<int64_t> extentToMatch(const ir::IterDomain* id) {
  if (id->isBroadcast() && !id->hasExpandedExtent()) return std::nullopt;
  return constExtent(id);
}

}  // namespace

ir::DataType promoteElementwise(const std::vector<ir::Val*>& operands) {
  const bool hasRanked = std::any_of(operands.begin(), operands.end(),
                                     [](const ir::Val* v) { return asRankedTensor(v) != nullptr; });
  std::vector<ir::DataType> tensorDtypes;
  std::vector<ir::DataType> scalarDtypes;
  for (const ir::Val* v : operands) {
    const bool asTensor = v->isA<ir::TensorView>() && (!hasRanked || asRankedTensor(v));
    (asTensor ? tensorDtypes : scalarDtypes).push_back(v->dtype());
  }
  return ir::promoteOperands(tensorDtypes, scalarDtypes);
}

ir::IterDomain* broadcastAxis(std::string_view op, const std::vector<AlignedAxis>& axes,
                              int64_t axis) {
  FL_ASSERT(!axes.empty(), "broadcastAxis needs at least one axis");
  const AlignedAxis* reference = nullptr;
  std::optional<int64_t> referenceExtent;
  for (const AlignedAxis& a : axes) {
    auto extent = extentToMatch(a.id);
    if (!extent) continue;
    if (!referenceExtent) {
      reference = &a;
      referenceExtent = extent;
      continue;
    }
    FL_CHECK(*extent == *referenceExtent, op, ": axis ", axis, " has extent ", *referenceExtent,
             " in ", describeVal(reference->tv), " but ", *extent, " in ", describeVal(a.tv),
             "; extents must match unless one is a broadcast (size 1) axis");
  }

  const AlignedAxis* chosen = nullptr;
  for (const AlignedAxis& a : axes) {
    if (a.id->isBroadcast()) continue;
    if (chosen == nullptr || (!constExtent(chosen->id) && constExtent(a.id))) {
      chosen = &a;
    }
  }
  if (chosen == nullptr) {
    // Every operand is broadcast here; an expanded one keeps the expansion.
    chosen = &axes.front();
    for (const AlignedAxis& a : axes) {
      if (a.id->hasExpandedExtent() &&
          (!chosen->id->hasExpandedExtent() || (!constExtent(chosen->id) && constExtent(a.id)))) {
        chosen = &a;
      }
    }
  }
  return chosen->id->fusion()->cloneIterDomain(chosen->id);
}

std::vector<ir::IterDomain*> broadcastDomain(std::string_view op,
                                             const std::vector<ir::Val*>& operands) {
  std::vector<const ir::TensorView*> ranked;
  std::vector<std::vector<ir::IterDomain*>> axesOf;
  for (const ir::Val* v : operands) {
    const ir::TensorView* tv = asRankedTensor(v);
    if (tv == nullptr) continue;
    if (!ranked.empty()) {
      FL_CHECK(tv->rank() == ranked.front()->rank(), op, ": ", describeVal(ranked.front()),
               " has rank ", ranked.front()->rank(), " but ", describeVal(tv), " has rank ",
               tv->rank(),
               "; elementwise operands must have the same rank (use "
               "broadcast_in_dim)");
    }
    ranked.push_back(tv);
    axesOf.push_back(tv->logicalNoReductions());
  }
  std::vector<ir::IterDomain*> out;
  if (ranked.empty()) return out;
  const int64_t rank = ranked.front()->rank();
  for (int64_t axis = 0; axis < rank; ++axis) {
    std::vector<AlignedAxis> aligned;
    for (size_t i = 0; i < ranked.size(); ++i) {
      aligned.push_back({ranked[i], axesOf[i][axis]});
    }
    out.push_back(broadcastAxis(op, aligned, axis));
  }
  return out;
}

ir::Val* newElementwiseOutput(std::string_view op, const std::vector<ir::Val*>& operands,
                              ir::DataType dtype) {
  FL_ASSERT(!operands.empty(), op, " has no operands");
  ir::Fusion* fusion = operands.front()->fusion();
  for (const ir::Val* v : operands) {
    FL_ASSERT(v->fusion() == fusion, op, ": operand ", v->name(), " belongs to another Fusion");
  }
  const bool anyTensor = std::any_of(operands.begin(), operands.end(),
                                     [](const ir::Val* v) { return v->isA<ir::TensorView>(); });
  if (!anyTensor) return fusion->newScalar(dtype);
  return fusion->newTensorView(broadcastDomain(op, operands), dtype);
}

}  // namespace fuserlab::ops
