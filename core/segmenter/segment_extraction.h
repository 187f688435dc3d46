// Segment extraction: a group of exprs of the complete fusion as a Fusion of
// its own, which is what schedulers, code generation and the report see of a
// segment. The segment holds exactly the group's exprs, the tensors they read
// and write, and the scalars those need (extents, split factors, scalar
// operands, and the scalar exprs that compute them); nothing else, so a
// scheduler may walk any of its statements.
//
// Invariants of a segment fusion:
//   - its inputs are the values the group reads from outside: tensors, and
//     symbolic scalars that binding its tensor inputs does not bind; complete
//     fusion inputs come first in the complete fusion's order, then the rest
//     by creation order;
//   - its outputs are the values the group writes that are fusion outputs or
//     read outside the group (fusion outputs first, in their order);
//   - an intermediate tensor input has no reduction axes and no root domain,
//     and the extents of its axes are symbolic scalars of their own (bound
//     from the complete fusion's values), as a freshly allocated tensor's are;
//   - names are the segment's own (T0, T1, ...); `toCompleteNames` rewrites a
//     text that names segment values into the complete fusion's names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/ir/cloner.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/scheduler/registry.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::segmenter {

struct SegmenterContext;

//! The complete fusion as segmentation sees it: its live exprs
//! (exprsForOutputs) with their positions, and the exprs that input
//! forwarding replicates into every segment reading their outputs. Rebuild it
//! after mutating the fusion.
class CompleteFusionIndex {
 public:
  explicit CompleteFusionIndex(const ir::Fusion& complete);

  const ir::Fusion& fusion() const { return *complete_; }
  //! Live exprs in topological order.
  const std::vector<ir::Expr*>& exprs() const { return exprs_; }
  //! Position in exprs(); -1 for a dead expr.
  int position(const ir::Expr* expr) const;
  bool isLive(const ir::Expr* expr) const { return position(expr) >= 0; }
  //! Sorts `exprs` by position.
  void sortTopologically(std::vector<ir::Expr*>& exprs) const;

  //! Marks forwarded exprs: their outputs are never segment boundaries,
  //! since every consumer segment recomputes them.
  void setReplicated(std::unordered_set<const ir::Expr*> exprs) { replicated_ = std::move(exprs); }
  bool isReplicated(const ir::Expr* expr) const { return replicated_.count(expr) != 0; }
  const std::unordered_set<const ir::Expr*>& replicated() const { return replicated_; }

  //! Marks values that a segment producing them writes out even where the
  //! only exprs reading them are in that segment too: replicated exprs
  //! (edge recomputation) read them in other segments as well.
  void setExported(std::unordered_set<const ir::Val*> vals) { exported_ = std::move(vals); }
  bool isExported(const ir::Val* val) const { return exported_.count(val) != 0; }

 private:
  const ir::Fusion* complete_;
  std::vector<ir::Expr*> exprs_;
  std::unordered_map<const ir::Expr*, int> positions_;
  //! Position by Expr::id() at construction, -1 for none: the fast path of
  //! position(), checked against exprs_ (ids shift if the fusion loses an
  //! expr), with positions_ behind it.
  std::vector<int> positionById_;
  std::unordered_set<const ir::Expr*> replicated_;
  std::unordered_set<const ir::Val*> exported_;
};

//! A group of the complete fusion as a standalone Fusion.
struct SegmentExtraction {
  std::unique_ptr<ir::Fusion> fusion;
  //! From the complete fusion's statements to the segment's.
  ir::CloneMap toSegment;
  //! The segment's inputs and outputs as values of the complete fusion, in
  //! the segment's order (a scalar input is the complete fusion's scalar whose
  //! value it takes).
  std::vector<ir::Val*> inputs;
  std::vector<ir::Val*> outputs;
  //! Scalar exprs of the complete fusion cloned into the segment.
  std::vector<ir::Expr*> scalarExprs;
  //! Every symbolic scalar of the segment without a definition there, with
  //! the complete fusion's scalar that has its value.
  std::vector<std::pair<ir::Scalar*, ir::Scalar*>> symbolicScalars;
  //! Every non-constant value of the segment with the complete fusion's
  //! value it copies, in the order they were made.
  std::vector<std::pair<const ir::Val*, const ir::Val*>> copiedValues;

  //! `text` with every segment value name (T3, i2, ...) replaced by the
  //! complete fusion's name of that value. Reads the values' names: the
  //! segment fusion (wherever it was moved) and the complete fusion must
  //! still exist.
  std::string toCompleteNames(std::string_view text) const;

 private:
  //! Each copied value (segment copy, complete fusion's value) by the
  //! copy's name index, one table for tensors (T<n>) and one for scalars
  //! (i<n>, d<n>, b<n>: one counter), built from copiedValues on the first
  //! toCompleteNames (most segments the merger extracts are accepted and
  //! never renamed).
  using CopiedValue = std::pair<const ir::Val*, const ir::Val*>;
  mutable std::vector<CopiedValue> tensorsByName_;
  mutable std::vector<CopiedValue> scalarsByName_;
  mutable bool completeNamesBuilt_ = false;
};

//! The tensors a segment of `exprs` writes, in its output order: those that
//! are complete fusion outputs or read by a live expr outside the group (an
//! expr other segments replicate writes only fusion outputs); fusion outputs
//! first, in their order, then by creation. `inGroup` marks the group's exprs
//! by expr id.
std::vector<ir::Val*> segmentOutputs(const CompleteFusionIndex& index,
                                     const std::vector<ir::Expr*>& exprs,
                                     const std::vector<uint8_t>& inGroup);

//! Extracts the group of `exprs` (tensor exprs of `index`, in topological
//! order; scalar exprs they need are cloned along). Without `withCloneMap`
//! the result's toSegment stays empty (the merger's trial extractions only
//! ask the schedulers about the segment).
SegmentExtraction extractSegment(const CompleteFusionIndex& index,
                                 const std::vector<ir::Expr*>& exprs, bool withCloneMap = true);

//! The whole fusion as one segment: every live expr, and exactly the complete
//! fusion's inputs and outputs (aliases included) in their order.
SegmentExtraction extractWholeFusion(const CompleteFusionIndex& index);

//! What schedulers see of a segment at run time. The evaluator is owned here
//! (info points into it), so a SegmentRuntime may be moved but not copied.
struct SegmentRuntime {
  std::unique_ptr<ir::ExpressionEvaluator> evaluator;
  scheduler::SegmentRuntimeInfo info;
};

//! Binds every symbolic scalar of `segment` from the complete fusion's
//! evaluator (context.evaluator) and describes each input: complete fusion
//! inputs as context.inputs says, intermediates as contiguous tensors in
//! their allocation order, 256-byte aligned, as the runtime allocates them.
SegmentRuntime makeSegmentRuntime(const ir::Fusion& complete, const SegmentExtraction& segment,
                                  const SegmenterContext& context);

//! `choice` with every text that names segment values (reasons, properties)
//! rewritten to the complete fusion's names.
void renameToComplete(const SegmentExtraction& segment, scheduler::SchedulerChoice& choice);

}  // namespace fuserlab::segmenter
