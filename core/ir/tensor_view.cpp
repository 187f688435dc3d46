#include "core/ir/tensor_view.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/iter_domain.h"

namespace fuserlab::ir {
namespace {

std::vector<std::optional<bool>> defaultContiguity(const std::vector<IterDomain*>& ids) {
  std::vector<std::optional<bool>> contiguity;
  contiguity.reserve(ids.size());
  for (IterDomain* id : ids) {
    if (id->isBroadcast() || id->isReduction()) {
      contiguity.emplace_back(std::nullopt);
    } else {
      contiguity.emplace_back(true);
    }
  }
  return contiguity;
}

int64_t normalizeAxis(int64_t axis, size_t rank, const char* what) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < 0) axis += r;
  FL_CHECK(axis >= 0 && axis < r, what, ": axis ", axis, " is out of range for ", r, " loop axes");
  return axis;
}

}  // namespace

std::vector<IterDomain*> noReductions(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  out.reserve(ids.size());
  for (IterDomain* id : ids) {
    if (!id->isReduction()) out.push_back(id);
  }
  return out;
}

void TensorView::keepLogicalNoReductions() {
  hasReductionAxes_ = std::any_of(domain_.logical.begin(), domain_.logical.end(),
                                  [](const IterDomain* id) { return id->isReduction(); });
  logicalNoReductions_ =
      hasReductionAxes_ ? noReductions(domain_.logical) : std::vector<IterDomain*>{};
}

void TensorView::setAllocation(std::vector<IterDomain*> allocation,
                               std::vector<std::optional<bool>> contiguity) {
  domain_.allocation = std::move(allocation);
  setContiguity(std::move(contiguity));
}

void TensorView::setContiguity(std::vector<std::optional<bool>> contiguity) {
  const auto& ids = domain_.maybeAllocation();
  if (contiguity.empty()) {
    domain_.contiguity = defaultContiguity(ids);
    return;
  }
  FL_CHECK(contiguity.size() == ids.size(), "tensor ", name(), " has ", ids.size(),
           " allocation axes but ", contiguity.size(), " contiguity flags were given");
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i]->isBroadcast() || ids[i]->isReduction()) {
      // nvFuser ignores contiguity of broadcast axes; normalize to nullopt.
      contiguity[i] = std::nullopt;
    } else {
      FL_CHECK(contiguity[i].has_value(), "tensor ", name(), ": contiguity of axis ", i,
               " is None, but only broadcast axes (size 1) may be None");
    }
  }
  domain_.contiguity = std::move(contiguity);
}

void TensorView::setStrideOrder(const std::vector<int64_t>& strideOrder) {
  const auto& logical = domain_.logical;
  const size_t rank = logical.size();
  FL_CHECK(strideOrder.size() == rank, "stride_order of ", name(), " has ", strideOrder.size(),
           " entries, expected one per axis (", rank, ")");
  std::vector<IterDomain*> allocation(rank, nullptr);
  for (size_t i = 0; i < rank; ++i) {
    int64_t order = strideOrder[i];
    FL_CHECK(order >= 0 && order < static_cast<int64_t>(rank), "stride_order of ", name(),
             ": entry ", order, " is out of range [0, ", rank, ")");
    IterDomain*& slot = allocation[rank - 1 - order];
    FL_CHECK(slot == nullptr, "stride_order of ", name(), ": ", order,
             " appears twice; it must be a permutation of 0..", rank - 1);
    slot = logical[i];
  }
  // Contiguity is per allocation axis: each axis keeps its flag (a broadcast
  // axis its None) at its new position; axes new to the allocation get the
  // default.
  const auto& before = domain_.maybeAllocation();
  std::vector<std::optional<bool>> contiguity = defaultContiguity(allocation);
  if (domain_.contiguity.size() == before.size()) {
    for (size_t a = 0; a < rank; ++a) {
      auto it = std::find(before.begin(), before.end(), allocation[a]);
      if (it != before.end()) {
        contiguity[a] = domain_.contiguity[it - before.begin()];
      }
    }
  }
  // A stride order equal to the logical order is the default layout.
  if (std::equal(allocation.begin(), allocation.end(), logical.begin())) {
    allocation.clear();
  }
  domain_.allocation = std::move(allocation);
  domain_.contiguity = std::move(contiguity);
}

std::vector<int64_t> TensorView::strideOrder() const {
  const auto& logical = domain_.logical;
  const auto& allocation = domain_.allocation;
  if (allocation.empty() || allocation.size() != logical.size()) return {};
  const size_t rank = logical.size();
  std::vector<int64_t> order(rank, -1);
  for (size_t a = 0; a < rank; ++a) {
    auto it = std::find(logical.begin(), logical.end(), allocation[a]);
    if (it == logical.end()) return {};
    order[it - logical.begin()] = static_cast<int64_t>(rank - 1 - a);
  }
  return order;
}

void TensorView::split(int64_t axis, Scalar* factor, bool innerSplit) {
  axis = normalizeAxis(axis, domain_.loop.size(), "split");
  auto [outer, inner] = fusion()->split(domain_.loop[axis], factor, innerSplit);
  domain_.loop[axis] = inner;
  domain_.loop.insert(domain_.loop.begin() + axis, outer);
}

void TensorView::merge(int64_t axis) {
  axis = normalizeAxis(axis, domain_.loop.size(), "merge");
  FL_CHECK(axis + 1 < static_cast<int64_t>(domain_.loop.size()), "merge: axis ", axis,
           " has no axis after it to merge with");
  IterDomain* merged = fusion()->merge(domain_.loop[axis], domain_.loop[axis + 1]);
  domain_.loop.erase(domain_.loop.begin() + axis + 1);
  domain_.loop[axis] = merged;
}

void TensorView::reorderLoop(const std::vector<int64_t>& newToOld) {
  FL_CHECK(newToOld.size() == domain_.loop.size(), "reorder of ", name(), ": expected ",
           domain_.loop.size(), " axes, got ", newToOld.size());
  std::vector<IterDomain*> reordered(newToOld.size(), nullptr);
  for (size_t i = 0; i < newToOld.size(); ++i) {
    int64_t old = normalizeAxis(newToOld[i], domain_.loop.size(), "reorder");
    reordered[i] = domain_.loop[old];
  }
  for (size_t i = 0; i < reordered.size(); ++i) {
    FL_CHECK(std::count(reordered.begin(), reordered.end(), reordered[i]) == 1, "reorder of ",
             name(), ": axes must be a permutation");
  }
  domain_.loop = std::move(reordered);
}

void TensorView::setAllocationAsLoop() { setAllocation(domain_.loop); }

std::string TensorView::name() const { return "T" + std::to_string(nameIndex()); }

std::string TensorView::toString() const {
  std::string out = name();
  out += (isFusionInput() || isFusionOutput()) ? "_g_" : "_l_";
  out += irName(dtype());
  out += "[";
  const auto& ids = domain_.logical;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ", ";
    out += ids[i]->toString();
  }
  out += "]";
  if (isCpu_) out += " (cpu)";
  return out;
}

}  // namespace fuserlab::ir
