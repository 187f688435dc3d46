// Row gathers: a take_along_axis in an inner normalization segment that
// picks one element per row of a tensor the kernel computes along the row
// (cross-entropy's log-prob of the label: take_along_axis(log_softmax,
// label[N, 1], dim=1)). The inner persistent kernel computes every element
// of the row anyway, so the thread that holds column index[r] keeps that
// element as the row's gathered value and writes what depends on it: the
// [N, V] source never goes to global memory unless it is itself an output.
//
// A gather is a row gather when it gathers along the segment's one reduced
// axis (the innermost), its index has extent 1 there and the rows' extents
// on every other axis, and everything computed from its output in the
// segment stays one value per row (no reduction, no other gather, no
// broadcast back along the row): that value is held by one thread only.
// An index outside [0, extent) is clamped, as every generated gather does
// (the CPU reference refuses it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! One take_along_axis an inner persistent kernel computes in its row pass.
struct RowGather {
  const ir::Expr* expr = nullptr;
  const ir::TensorView* source = nullptr;  //!< the gathered tensor [.., V]
  const ir::TensorView* index = nullptr;   //!< [.., 1] integer
  const ir::TensorView* output = nullptr;  //!< [.., 1]
  int64_t dim = 0;                         //!< the gathered (reduced) axis
  //! `output` and every tensor of the segment computed from it, in
  //! topological order: values only the owning thread of a row holds.
  std::vector<const ir::TensorView*> dependents;
};

struct RowGatherResult {
  std::vector<RowGather> gathers;  //!< in the segment's topological order
  std::string reason;              //!< set when some gather is not a row gather
};

//! The segment's gathers as row gathers of `pattern` (compile-time: axes,
//! ranks, what their outputs feed); a reason naming the first gather that
//! is not one. No gathers: an empty list and no reason.
RowGatherResult findRowGathers(const ir::Fusion& segment, const ReductionPattern& pattern);

//! The segment inputs the gathers' indices are computed from (walking
//! definitions up, not across a reduction): read once per row, so they do
//! not take part in the 16-byte rule of the row's vectorization (an int64
//! label beside bf16 logits).
std::vector<const ir::TensorView*> rowGatherIndexInputs(const ir::Fusion& segment,
                                                        const std::vector<RowGather>& gathers);

//! The run-time part: the source's gathered axis is the reference's reduced
//! axis, the index has extent 1 there and the source's extents elsewhere,
//! and every dependent has one element per row; nullopt if all hold.
std::optional<std::string> rejectRowGatherExtents(const ir::Fusion& segment,
                                                  const ReductionPattern& pattern,
                                                  const std::vector<RowGather>& gathers,
                                                  const ir::ExpressionEvaluator& evaluator);

}  // namespace fuserlab::scheduler
