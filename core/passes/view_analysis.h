// ViewAnalysis: which exprs of a fusion only re-view their input's data
// (nvFuser's alias analysis, reduced to what the passes need). A view op is
// a meta op — broadcast, expand, squeeze, permute, slice, reshape, set,
// segment_set — whose output can share its input's storage:
//   - its output has no allocation domain of its own (a set or segment_set
//     may carry its input's stride order), since an explicit layout needs a
//     copy;
//   - a reshape may only merge axes that are contiguous with each other in
//     memory (splitting is always fine): a reshape of a sliced, permuted or
//     expanded tensor that merges across the gap needs a copy.
// To decide the last point, every tensor on a chain of views carries the
// layout it has in memory (the order of its non-broadcast axes and whether
// each is contiguous with the next), derived from the fusion inputs'
// declared layouts. The analysis is a snapshot: it is computed once and not
// updated when the fusion is rewritten.
#pragma once

#include <optional>
#include <unordered_set>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::passes {

//! True for the expr types that only change how data is viewed.
bool isMetaOpType(ir::ExprType type);

//! How a tensor's elements lie in memory, over its non-broadcast logical
//! (non-reduction) axes: `order` lists their logical positions from the
//! outermost stride to the innermost, `contiguous[k]` says whether the axis
//! at order[k] has stride = stride(order[k+1]) * extent(order[k+1]) (for the
//! last one: stride 1), nvFuser's contiguity.
struct ViewLayout {
  std::vector<int64_t> order;
  std::vector<bool> contiguous;

  //! Row-major and contiguous: any reshape of it is a view.
  bool dense() const;
};

//! Gives `tv`, a fresh tensor without reduction axes, the allocation and
//! contiguity that describe `layout` (broadcast axes outermost).
void declareLayout(ir::TensorView* tv, const ViewLayout& layout);

class ViewAnalysis {
 public:
  explicit ViewAnalysis(const ir::Fusion& fusion);

  //! True if `expr` is a meta op whose output can alias its input.
  bool isView(const ir::Expr* expr) const;

  //! The layout of `tv` as analysed; nullopt when unknown (a tensor created
  //! after the analysis, an allocation that is not a permutation).
  std::optional<ViewLayout> layout(const ir::TensorView* tv) const;

  //! The exprs the outputs needed when the analysis was made, producers
  //! first (Fusion::exprsForOutputs, computed once for every user).
  const std::vector<ir::Expr*>& liveExprs() const { return liveExprs_; }
  //! True if `expr` was one the outputs need when the analysis was made.
  bool isLive(const ir::Expr* expr) const;
  //! The live exprs using `val`, in use order.
  std::vector<ir::Expr*> liveUses(const ir::Val* val) const;

 private:
  // The layout meta op `expr` gives its output from its input's (nullopt if
  // that is unknown or the op needs a copy, a reshape merging across a gap).
  std::optional<ViewLayout> viewedLayout(const ir::Expr* expr) const;

  // By Val id; nullopt: unknown.
  std::vector<std::optional<ViewLayout>> layouts_;
  std::vector<ir::Expr*> liveExprs_;
  // Looked up, never iterated.
  std::unordered_set<const ir::Expr*> live_;
};

}  // namespace fuserlab::passes
