// ReferenceWalk: how pointwise-like kernels (pointwise, transpose) walk a
// segment. They iterate over the reference tensor (the largest output, as
// the schedulers chose it) in its allocation order; every other output's
// element index follows from the reference's through the axis trace
// (scheduler/analysis/axis_trace.h), with a predicate where the output does
// not move along a reference axis (it is written once, at index 0 of that
// axis) or where a resize makes it shorter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/scheduler/analysis/axis_trace.h"

namespace fuserlab::codegen {

//! How one output is written from the reference's index.
struct OutputAccess {
  ElementIndex index;
  std::string predicate;  //!< a C++ condition; empty: always
  //! The walk passes the output's end along some axis (through slice, pad
  //! or cat): its value must be computed only where `predicate` holds.
  bool bounded = false;
};

class ReferenceWalk {
 public:
  ReferenceWalk(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info);

  const ir::TensorView* reference() const { return reference_; }
  const scheduler::AxisTrace& trace() const { return *trace_; }
  int64_t rank() const { return static_cast<int64_t>(logical_.size()); }
  //! The logical position of reference allocation axis k.
  int64_t logical(int64_t k) const { return logical_[static_cast<size_t>(k)]; }
  //! Extents in allocation order, as bound (-1 where unknown).
  const std::vector<int64_t>& extents() const { return extents_; }
  //! The reference allocation axis whose step-1 piece walks axis `id` of
  //! `tv`; -1 if none does.
  int64_t referenceAxisWalking(const ir::TensorView* tv, const ir::IterDomain* id) const;
  //! The kernel's `ref_e<k>` line for reference allocation axis k, read from
  //! parameter `ref`; with `constant` (and a bound extent) a constexpr of the
  //! extent, which the index math divides by as a multiply and a shift.
  std::string extentDeclaration(int64_t k, const std::string& ref, bool constant) const;

  //! `out`'s index and write predicate when the reference is at `refIndex`
  //! (one C++ expression per reference allocation axis). UserError when the
  //! trace cannot follow the reference into `out`.
  OutputAccess outputAccess(const ir::TensorView* out, const std::vector<std::string>& refIndex,
                            const KernelInterface& interface) const;

 private:
  const ir::TensorView* reference_ = nullptr;
  std::optional<scheduler::AxisTrace> trace_;
  std::vector<int64_t> logical_;
  std::vector<int64_t> extents_;
};

//! The position of `id` among `tv`'s logical axes (reductions excluded); -1.
int64_t logicalPosition(const ir::TensorView* tv, const ir::IterDomain* id);

}  // namespace fuserlab::codegen
