// MemoryLayout: how one tensor input or output of a segment lies in memory,
// as the schedulers reason about it: its allocation axes (outermost first),
// their extents and strides in elements, and the alignment of its data
// pointer. Inputs take their strides and alignment from the segment's
// runtime info (what the caller bound); outputs are laid out contiguously in
// their allocation order, 256-byte aligned, as the executor allocates them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

struct MemoryLayout {
  const ir::TensorView* tv = nullptr;
  bool isInput = false;
  //! Allocation axes without reduction axes, outermost first.
  std::vector<const ir::IterDomain*> axes;
  //! Iteration extent of each axis (an expanded axis has its expanded
  //! extent); -1 where the evaluator cannot tell.
  std::vector<int64_t> extents;
  //! Stride of each axis in elements: 0 where the tensor does not move along
  //! the axis (broadcast, expanded); -1 where it is unknown (no runtime strides
  //! for a discontiguous axis).
  std::vector<int64_t> strides;
  //! The largest power of two (<= 256) dividing the data pointer's address.
  int64_t alignmentBytes = 256;

  int64_t rank() const { return static_cast<int64_t>(axes.size()); }
  //! Elements between the first and one past the last addressed element
  //! (1 + sum of (extent - 1) * stride); 0 for an empty tensor, -1 if unknown.
  int64_t spanElements() const;
  //! Position in `axes` of `id`, or -1.
  int64_t position(const ir::IterDomain* id) const;
  //! The innermost axis the tensor actually moves along (extent > 1, stride
  //! != 0), as a position in `axes`; -1 if none (a broadcast or size-1
  //! tensor).
  int64_t innermostMovingAxis() const;
};

//! The layout of `tv`, a tensor input or output of `segment`. Inputs are
//! found in `info.inputs` by their position among the segment's inputs; an
//! input without runtime strides falls back to its contiguity flags.
MemoryLayout memoryLayout(const ir::Fusion& segment, const ir::TensorView* tv,
                          const SegmentRuntimeInfo& info);

//! The segment's tensor inputs that something reads (CPU scalars excluded)
//! followed by its tensor outputs, each once, in fusion order.
std::vector<const ir::TensorView*> inputsAndOutputs(const ir::Fusion& segment);

//! The iteration extent of `id` (expanded extent if any), or nullopt when
//! there is no evaluator or the extent depends on an unbound scalar.
std::optional<int64_t> evaluatedExtent(const ir::ExpressionEvaluator* evaluator,
                                       const ir::IterDomain* id);

//! Whether `tv`'s allocation domain is its logical domain or a permutation of
//! it (as opposed to axes split or merged from it).
bool allocationIsPermutation(const ir::TensorView* tv);

//! The input or output of a segment that spans the most elements, for the
//! choice of index type.
struct LargestSpan {
  std::string tensor;    //!< its name; empty for a segment without tensors
  int64_t elements = 0;  //!< its span; -1 if some span is unknown
  //! Whether every span fits 32-bit index arithmetic (< 2^31).
  bool fitsInt32() const;
};
LargestSpan largestSpan(const ir::Fusion& segment, const SegmentRuntimeInfo& info);
//! Why params that ask for 32-bit indexing cannot have it in `segment` (a
//! span past 2^31 - 1, or one unknown), for the schedulers' params checks;
//! nullopt where they can.
std::optional<std::string> rejectInt32Indexing(const ir::Fusion& segment,
                                               const SegmentRuntimeInfo& info);

//! "[16, 128, 1600]": a shape for messages.
std::string shapeString(const std::vector<int64_t>& sizes);

}  // namespace fuserlab::scheduler
