// The dataflow walks behind findPersistentBuffers (internal to the analysis).
// For each reduction: which tensors lead to it and with which of their axes
// along its reduced ones (a walk back), which exprs read its result (a walk
// forward), and what a buffer is recomputed from (a projection).
//
// Near-linear on long fusions (issue 43: a chain of N normalizations walked
// the whole segment once per reduction, O(N^2)). The walks stop at *cuts*:
// boundaries in the topological order of the exprs that exactly one tensor
// lives across (a chain's running value). Below a cut whose tensor u leads to
// the reduction, every expr leads to it too and no tensor but u has a reader
// above the cut, so no buffer lies below it; what the walk would find there
// depends only on the cut and u's axes, and is computed once per such pair
// (a Block) and shared by every reduction, as are the projections through u.
// Above the next cut past the reduction, only that cut's tensor can carry its
// result further. Each walk so covers the exprs between the two cuts around
// its reduction; a fusion without cuts is walked whole, as before. The
// results are those of the whole walks (PersistentBuffersGoldenTest).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"

namespace fuserlab::scheduler::persistent_flow {

//! How a tensor leads to one reduction: per axis, whether it runs along the
//! reduced axes; `unknown` when an op on the way does not keep axes apart.
struct RowAxes {
  bool reached = false;  //!< the tensor leads to the reduction
  bool unknown = false;
  std::vector<bool> axes;
};

//! The live exprs of a segment in topological order, their tensors, and the
//! cuts between them. Index lookups only: results follow `exprs`.
struct Dataflow {
  explicit Dataflow(const ir::Fusion& segment);

  std::vector<const ir::Expr*> exprs;
  std::vector<const ir::TensorView*> tensors;  //!< segment inputs, then outputs
  std::vector<std::vector<size_t>> consumers;  //!< per tensor: expr indices, sorted
  std::vector<std::vector<size_t>> inputsOf;   //!< per expr: tensor inputs, in order
  std::vector<std::vector<size_t>> outputsOf;  //!< per expr: tensor outputs
  //! Per tensor: the first boundary it lives at (its definition, or for a
  //! tensor defined elsewhere its first reader); -1 when read by nothing.
  std::vector<int64_t> start;
  //! Per boundary p (after expr p): the one tensor defined at or before p
  //! and read after it (a segment output counts as read at the end), or -1.
  std::vector<int64_t> cutTensor;
  std::vector<int64_t> prevCut;  //!< per expr i: the last cut at or before i, or -1
  std::vector<int64_t> nextCut;  //!< per expr i: the first cut at or after i, or -1

  std::optional<size_t> exprIndex(const ir::Expr* e) const;
  std::optional<size_t> tensorIndex(const ir::Val* val) const;
  size_t exprAt(const ir::Expr* e) const;
  size_t tensorAt(const ir::Val* val) const;

 private:
  const ir::Fusion* segment_;
  std::vector<int64_t> exprSlots_;    // by expr id: index into exprs, -1
  std::vector<int64_t> tensorSlots_;  // by val id: index into tensors, -1
};

//! What lies below a cut p whose tensor leads to a reduction with `entry`
//! axes: the axes of the tensors between p and the cut below it (`low`).
struct Block {
  int64_t high = -1;
  int64_t low = -1;
  std::vector<std::pair<size_t, RowAxes>> states;  //!< sorted by tensor
  std::optional<RowAxes> lowEntry;                 //!< the axes of low's tensor, if reached
  std::optional<size_t> next;                      //!< the block below, once asked for
  const RowAxes* find(size_t tensor) const;
};

//! A projection's walk through a cut's tensor and everything below it.
struct Projection {
  bool ok = true;
  std::string reason;           //!< the first op it cannot recompute
  bool transcendental = false;  //!< before the failure, if any
  std::vector<size_t> found;    //!< the segment inputs reached
};

//! Blocks and projections, memoized by (cut, entry axes), for one segment.
class BelowCuts {
 public:
  explicit BelowCuts(const Dataflow& flow) : flow_(flow) {}
  //! The block below cut `high` entered with `entry`.
  size_t block(int64_t high, const RowAxes& entry);
  //! The block below `id`'s low cut; nullopt if nothing there leads on.
  std::optional<size_t> next(size_t id);
  const Block& at(size_t id) const { return blocks_[id]; }
  std::map<size_t, Projection> projections;  //!< by block id

 private:
  const Dataflow& flow_;
  std::deque<Block> blocks_;  // stable: projections hold blocks by reference
  std::map<std::pair<int64_t, std::string>, size_t> ids_;
  std::vector<RowAxes> scratch_;  // a block's walk; cleared after each
};

//! Per-tensor and per-expr scratch, reset by what touched it (so that a
//! reduction's walk costs its window, not the segment).
struct Workspace {
  explicit Workspace(const Dataflow& flow);
  std::vector<RowAxes> states;
  std::vector<size_t> touchedTensors;
  std::vector<char> feeds, after, reaches, visited, afterTensor;
  std::vector<size_t> touchedExprs, visitedTensors, afterTensors;
};

//! One reduction's neighbourhood, walked between the cuts around it.
class ReductionFlow {
 public:
  ReductionFlow(const Dataflow& flow, BelowCuts& below, Workspace& work,
                const ReductionInfo& reduction);

  //! The tensors that may be buffers: those that lead to the reduction
  //! above the cut below it, and that cut's tensor; in tensor order.
  std::vector<size_t> candidates() const;
  //! The first reader of `tensor` that does not lead to the reduction but
  //! reaches an expr reading its result; nullopt if none.
  std::optional<size_t> laterUse(size_t tensor) const;
  //! A tensor that holds full rows: it moves along some reduced axis and is
  //! not broadcast along any of them. Unknown axes count as full rows.
  bool holdsRows(size_t tensor, const RowAxes& state) const;
  bool holdsRows(size_t tensor) { return holdsRows(tensor, state(tensor)); }
  std::vector<bool> axesOf(size_t tensor) {
    const RowAxes s = state(tensor);
    return s.unknown ? std::vector<bool>{} : s.axes;
  }
  //! The reduction's axes of any tensor (below the cut: through the blocks).
  RowAxes state(size_t tensor);
  //! The exprs that read the reduction's result, up to the cut after it,
  //! in order; and the readers of that cut's tensor beyond it (empty unless
  //! the tensor carries the result).
  const std::vector<size_t>& afterExprs() const { return afterExprs_; }
  std::vector<size_t> afterBeyond() const;

  //! The block below the cut under the reduction, nullopt when the cut's
  //! tensor does not lead to the reduction (or there is no cut).
  std::optional<size_t> entryBlock();
  std::optional<size_t> cutTensor() const {
    return low_ >= 0 && cutTensor_ >= 0 ? std::optional<size_t>(cutTensor_) : std::nullopt;
  }

 private:
  const Dataflow& flow_;
  BelowCuts& below_;
  Workspace& work_;
  int64_t r_;
  int64_t low_;             // the cut below: exprs (low_, r_) are walked back
  int64_t high_;            // the cut at or after r_: exprs (r_, high_] forward
  int64_t cutTensor_ = -1;  // low_'s tensor
  std::vector<size_t> afterExprs_;
  std::optional<size_t> entryBlock_;
};

//! Walks back from `buffer` to the segment inputs it can be recomputed from.
void project(const Dataflow& flow, ReductionFlow& reduction, BelowCuts& below, Workspace& work,
             size_t buffer, PersistentBuffer& out);

//! Whether `expr` evaluates a transcendental function.
bool isTranscendental(const ir::Expr& expr);

}  // namespace fuserlab::scheduler::persistent_flow
