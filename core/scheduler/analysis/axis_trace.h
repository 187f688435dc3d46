// AxisTrace: where each axis of a reference tensor lands in every other
// tensor of a segment. The pointwise and transpose schedulers iterate over
// the reference's axes (in its allocation order); to vectorize, choose a
// break point or find a transpose they need to know, for every input and
// output, which of its axes each reference axis walks along.
//
// The trace follows the segment's exprs from the reference in both
// directions: elementwise ops, casts and copies pair axes by position;
// broadcast, squeeze, permute, expand, slice, pad, cat, index_select and
// gather pair them by their attributes; reshape maps them numerically (a
// reshape is a row-major regrouping, so one reference axis may land on part
// of a tensor axis, or on several axes: a list of pieces). Where a tensor
// does not move along a reference axis the piece is Broadcast; where an axis
// is read through an index tensor it is Indexed; where the mapping cannot be
// followed (a regrouping that does not divide evenly, unknown extents) it is
// Lost, and the trace says why.
//
// Invariant: tensors are visited in a fixed order (breadth first from the
// reference, definitions before uses, in creation order), and a tensor's
// trace is only replaced by a strictly better one, so the result is the same
// on every run.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"

namespace fuserlab::scheduler {

enum class PieceKind : uint8_t {
  Axis,       //!< walks along (part of) an axis of the tensor
  Broadcast,  //!< the tensor does not move along the reference axis
  Indexed,    //!< the axis is read through an index tensor (gather)
  Lost,       //!< the mapping could not be followed
};

//! The part of one tensor axis that (part of) a reference axis walks along:
//! indices offset + step * k of axis `id`, for k < extent.
struct AxisPiece {
  PieceKind kind = PieceKind::Axis;
  //! Axis: a logical axis of the tensor; Indexed: the axis read through the
  //! index (of the tensor the index reads); Broadcast: the tensor's
  //! broadcast axis, if it has one.
  const ir::IterDomain* id = nullptr;
  //! Reference indices walked (the digit's radix where a reference axis
  //! walks several pieces); -1 if unknown. Through a slice, pad or cat
  //! (`resized`) the walk may pass the tensor's end: only indices
  //! offset + step * k inside the tensor exist.
  int64_t extent = -1;
  int64_t step = 1;    //!< > 1 when a reshape put inner reference axes first
  int64_t offset = 0;  //!< index shift from slice, pad and cat
  //! Through slice/pad/cat the axis has another extent than the reference's,
  //! so walking on past it does not walk on in this tensor.
  bool resized = false;
};

struct TensorTrace {
  const ir::TensorView* tv = nullptr;
  //! One entry per reference axis, in the reference's allocation order:
  //! the pieces that axis walks along in `tv`, innermost first; empty for a
  //! reference axis of extent 1.
  std::vector<std::vector<AxisPiece>> axes;
  //! Why some piece is Lost (empty if none is).
  std::string lostReason;

  //! Whether `tv` moves along reference axis `refAxis` (some Axis piece).
  bool moves(size_t refAxis) const;
  //! Whether some piece of reference axis `refAxis` is Lost.
  bool lost(size_t refAxis) const;
};

class AxisTrace {
 public:
  //! Traces `reference`'s axes through `segment`. Without an evaluator
  //! (compile time) extents are unknown and reshapes are Lost.
  //!
  //! `exprsInView`, when given, marks by expr id the exprs of the reference's
  //! fusion the trace may follow (a group of a larger fusion, checked in place
  //! of a segment extracted from it); the others count as absent.
  AxisTrace(const ir::Fusion& segment, const ir::TensorView* reference,
            const ir::ExpressionEvaluator* evaluator,
            const std::vector<uint8_t>* exprsInView = nullptr);

  const ir::TensorView* reference() const { return reference_; }
  //! The reference's axes in allocation order (logical order when its
  //! allocation is split or merged), reduction axes excluded.
  const std::vector<const ir::IterDomain*>& referenceAxes() const { return referenceAxes_; }
  //! Iteration extents of referenceAxes(); -1 where unknown.
  const std::vector<int64_t>& referenceExtents() const { return referenceExtents_; }
  //! The trace of `tv`; nullptr if no expr path connects it to the reference.
  const TensorTrace* find(const ir::TensorView* tv) const;

  //! Why `tv` is not covered by the reference: an axis of `tv` with extent
  //! > 1 that no reference axis walks along ("axis 1 of T4 (extent 7) ...");
  //! empty if it is covered.
  std::string uncoveredAxis(const ir::TensorView* tv) const;

  //! Why walking the reference would leave elements of the output `tv`
  //! unwritten: an axis reached through slice, pad or cat whose indices the
  //! walk does not span, shifted or shorter ("axis 0 of T7 (extent 9) is
  //! reached at reference index + 5 over 9 indices ..."), or an axis the
  //! walk reaches at fewer positions than its extent (a broadcast made
  //! concrete that no reference axis walks); empty if every element is
  //! written.
  std::string partiallyWrittenAxis(const ir::TensorView* tv) const;

  //! Why one position of the reference needs some tensor at two positions:
  //! a tensor reached along two paths that walk it differently (T0 and
  //! permute(T0) in one expression; a reduction's result beside its own
  //! transpose). Kernels that load or compute each tensor once per position
  //! (the reduction kernels) cannot run such a segment; empty if none.
  std::string readAtTwoPositions() const;

 private:
  bool readOnlyThroughIndex(const ir::TensorView* tv, size_t axis) const;

  const ir::ExpressionEvaluator* evaluator_;
  const std::vector<uint8_t>* exprsInView_;
  const ir::TensorView* reference_;
  std::vector<const ir::IterDomain*> referenceAxes_;
  std::vector<int64_t> referenceExtents_;
  std::deque<TensorTrace> traces_;  // in first-visit order
  //! Position in traces_ by the tensor's id in the reference's fusion (every
  //! traced tensor is connected to the reference, so it is of that fusion);
  //! -1 for none.
  const ir::Fusion* fusion_;
  std::vector<int64_t> index_;
  //! The slot of index_ for `tv`; nullptr for a tensor of another fusion.
  int64_t* slot(const ir::TensorView* tv);
  const int64_t* slot(const ir::TensorView* tv) const;
};

//! The pointwise reference: the tensor output with the most elements (by
//! iteration extents; without an evaluator, the highest rank), the first
//! such in output order; nullptr if the segment has no tensor output.
const ir::TensorView* largestOutput(const ir::Fusion& segment,
                                    const ir::ExpressionEvaluator* evaluator);
//! The same rule over `tensors` (in output order): the most elements, then
//! the highest rank, then the first; nullptr if `tensors` is empty.
const ir::TensorView* largestTensor(const std::vector<const ir::TensorView*>& tensors,
                                    const ir::ExpressionEvaluator* evaluator);

}  // namespace fuserlab::scheduler
