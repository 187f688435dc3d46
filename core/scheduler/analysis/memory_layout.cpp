#include "core/scheduler/analysis/memory_layout.h"

#include <algorithm>

#include "core/ir/evaluator.h"

namespace fuserlab::scheduler {
namespace {

using ir::IterDomain;
using ir::TensorView;

// Position of `tv` among the segment's inputs (all Vals, scalars included,
// as SegmentRuntimeInfo::inputs is indexed), or -1.
int64_t inputPosition(const ir::Fusion& segment, const TensorView* tv) {
  const auto& inputs = segment.inputs();
  auto it = std::find(inputs.begin(), inputs.end(), tv);
  return it == inputs.end() ? -1 : static_cast<int64_t>(it - inputs.begin());
}

// Strides from the runtime info, in allocation order; empty if the info does
// not describe this input in a form we understand.
std::vector<int64_t> runtimeStrides(const TensorView* tv,
                                    const std::vector<const IterDomain*>& axes,
                                    const TensorInputInfo& input) {
  if (input.strides.empty() || input.strides.size() != input.sizes.size()) {
    return {};
  }
  std::vector<int64_t> strides;
  if (allocationIsPermutation(tv)) {
    // Logical-shaped tensor (binding's Logical and Permutation layouts).
    const auto& logical = tv->logicalNoReductions();
    if (input.strides.size() != logical.size()) return {};
    for (const IterDomain* id : axes) {
      auto it = std::find(logical.begin(), logical.end(), id);
      strides.push_back(input.strides[it - logical.begin()]);
    }
  } else {
    // Allocation-shaped tensor (split/merge/DID allocation domains).
    if (input.strides.size() != axes.size()) return {};
    strides = input.strides;
  }
  return strides;
}

// Strides implied by the IR alone: contiguous where the contiguity flags say
// so (always, for outputs), unknown (-1) from a discontiguous axis outwards.
std::vector<int64_t> contiguousStrides(const TensorView* tv, const std::vector<int64_t>& extents,
                                       bool honourContiguity) {
  const auto& allocation = tv->maybeAllocation();
  const auto& contiguity = tv->contiguity();
  // Contiguity flags per allocation axis, reduction axes included.
  std::vector<std::optional<bool>> flags;
  for (size_t k = 0; k < allocation.size(); ++k) {
    if (allocation[k]->isReduction()) continue;
    flags.push_back(k < contiguity.size() ? contiguity[k] : std::optional<bool>(true));
  }
  std::vector<int64_t> strides(extents.size(), 0);
  int64_t expected = 1;
  size_t k = extents.size();
  const std::vector<IterDomain*> axes = ir::noReductions(allocation);
  while (k-- > 0) {
    if (axes[k]->isBroadcast()) {
      strides[k] = 0;
      continue;
    }
    const bool contiguous = !honourContiguity || !flags[k].has_value() || *flags[k];
    strides[k] = contiguous ? expected : -1;
    if (!contiguous || expected < 0 || extents[k] < 0) {
      expected = -1;
    } else {
      expected *= std::max<int64_t>(extents[k], 1);
    }
  }
  return strides;
}

}  // namespace

std::optional<int64_t> evaluatedExtent(const ir::ExpressionEvaluator* evaluator,
                                       const IterDomain* id) {
  const ir::Scalar* extent = id->extentForIteration();
  if (auto constant = extent->constInt()) return *constant;
  if (evaluator == nullptr) return std::nullopt;
  auto value = evaluator->evaluate(extent);
  if (!value) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&*value)) return *i;
  return std::nullopt;
}

bool allocationIsPermutation(const TensorView* tv) {
  const auto& domain = tv->domain();
  if (!domain.hasAllocation()) return true;
  return domain.allocation.size() == domain.logical.size() &&
         std::is_permutation(domain.allocation.begin(), domain.allocation.end(),
                             domain.logical.begin());
}

std::string shapeString(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += sizes[i] < 0 ? std::string("?") : std::to_string(sizes[i]);
  }
  return out + "]";
}

int64_t MemoryLayout::spanElements() const {
  int64_t span = 1;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (extents[k] == 0) return 0;
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    if (extents[k] < 0) return -1;
    if (extents[k] <= 1 || strides[k] == 0) continue;
    if (strides[k] < 0) return -1;
    span += (extents[k] - 1) * strides[k];
  }
  return span;
}

int64_t MemoryLayout::position(const IterDomain* id) const {
  auto it = std::find(axes.begin(), axes.end(), id);
  return it == axes.end() ? -1 : static_cast<int64_t>(it - axes.begin());
}

int64_t MemoryLayout::innermostMovingAxis() const {
  for (int64_t k = rank() - 1; k >= 0; --k) {
    if (extents[k] != 1 && strides[k] != 0 && !axes[k]->isBroadcast()) {
      return k;
    }
  }
  return -1;
}

MemoryLayout memoryLayout(const ir::Fusion& segment, const TensorView* tv,
                          const SegmentRuntimeInfo& info) {
  MemoryLayout layout;
  layout.tv = tv;
  for (const IterDomain* id : ir::noReductions(tv->maybeAllocation())) {
    layout.axes.push_back(id);
    layout.extents.push_back(evaluatedExtent(info.evaluator, id).value_or(int64_t{-1}));
  }
  const int64_t position = inputPosition(segment, tv);
  layout.isInput = position >= 0;
  if (layout.isInput && position < static_cast<int64_t>(info.inputs.size())) {
    const TensorInputInfo& input = info.inputs[position];
    layout.strides = runtimeStrides(tv, layout.axes, input);
    layout.alignmentBytes = input.alignmentBytes;
  }
  if (layout.strides.empty()) {
    layout.strides = contiguousStrides(tv, layout.extents, layout.isInput);
  }
  for (size_t k = 0; k < layout.axes.size(); ++k) {
    // A broadcast axis never moves through memory, whatever stride a caller
    // passed for it (any stride is valid for a size-1 axis).
    if (layout.axes[k]->isBroadcast()) layout.strides[k] = 0;
  }
  return layout;
}

std::vector<const TensorView*> inputsAndOutputs(const ir::Fusion& segment) {
  std::vector<const TensorView*> tensors;
  for (const ir::Val* val : segment.inputs()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || tv->isCpuScalar() || val->uses().empty()) continue;
    tensors.push_back(tv);
  }
  for (const ir::Val* val : segment.outputVals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    if (std::find(tensors.begin(), tensors.end(), tv) != tensors.end()) continue;
    tensors.push_back(tv);
  }
  return tensors;
}

bool LargestSpan::fitsInt32() const { return elements >= 0 && elements < (int64_t{1} << 31); }

LargestSpan largestSpan(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  LargestSpan largest;
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    const int64_t span = memoryLayout(segment, tv, info).spanElements();
    if (span < 0) {
      largest.tensor = tv->name();
      largest.elements = -1;
      return largest;
    }
    if (largest.tensor.empty() || span > largest.elements) {
      largest.tensor = tv->name();
      largest.elements = span;
    }
  }
  return largest;
}

std::optional<std::string> rejectInt32Indexing(const ir::Fusion& segment,
                                               const SegmentRuntimeInfo& info) {
  const LargestSpan span = largestSpan(segment, info);
  if (span.fitsInt32()) return std::nullopt;
  return "use_int32_indexing: " + span.tensor +
         (span.elements < 0 ? " has an unknown span"
                            : " spans " + std::to_string(span.elements) + " elements") +
         ", more than 32-bit indexing reaches (2^31 - 1)";
}

}  // namespace fuserlab::scheduler
