// ReductionPattern: the reductions of a segment as the reduction-family
// schedulers (reduction, inner_persistent, outer_persistent) see them. Every
// Reduction and Welford expr, the axes they reduce, and whether those axes
// are the innermost (contiguous) ones. These schedulers generate one loop
// nest for the whole segment, so every reduction must reduce the same axes of
// tensors of the same rank; a segment where they do not is refused with the
// two reductions that disagree. One exception: a segment whose reductions
// are row reductions over the innermost axes and column sums over all the
// other axes (a normalization backward computing dx with dw and db) has
// the row reductions as its pattern and the sums as `columnReductions`,
// which only the inner persistent scheduler's combined kernel computes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! One Reduction or Welford expr of a segment.
struct ReductionInfo {
  const ir::Expr* expr = nullptr;
  const ir::TensorView* input = nullptr;   //!< the tensor it reduces
  const ir::TensorView* output = nullptr;  //!< its (first) output
  //! Reduced axes of `input` (positions among its non-reduction axes).
  std::vector<int64_t> axes;
};

struct ReductionPattern {
  //! In the segment's topological order; never empty.
  std::vector<ReductionInfo> reductions;
  //! Sums over every axis the row reductions keep, of tensors of their
  //! rank (dw and db beside dx): empty unless the row reductions are
  //! innermost. Schedulers other than inner_persistent refuse them.
  std::vector<ReductionInfo> columnReductions;
  //! The reduced axes every reduction shares, and the rank they refer to.
  std::vector<int64_t> axes;
  int64_t rank = 0;
  //! True when the innermost (in allocation order) non-broadcast axis of the
  //! reduced tensor is reduced: nvFuser's "fastest dim reduction".
  bool innermost = true;

  //! The tensor whose axes the schedule follows: the first reduction's input.
  const ir::TensorView* reference() const { return reductions.front().input; }
  //! "axes [1] of a rank-2 tensor", for messages.
  std::string axesDescription() const;
};

//! The segment's reduction pattern, or the reason there is none a reduction
//! scheduler can follow (no reduction; reductions over different axes).
struct ReductionPatternResult {
  std::optional<ReductionPattern> pattern;
  std::string reason;  //!< set when `pattern` is empty
};
ReductionPatternResult analyzeReductionPattern(const ir::Fusion& segment);

//! Why a scheduler other than inner_persistent refuses `pattern`: it has
//! column sums beside its row reductions (nullopt if none). `self` names
//! the scheduler in the message.
std::optional<std::string> rejectColumnReductions(const ReductionPattern& pattern,
                                                  const std::string& self);

//! Why the reduction-family schedulers cannot generate code for an op of the
//! segment (segment_set, slice, pad, cat, gather, index_select, matmul,
//! linear, sdpa), naming the op and where it belongs; nullopt if every op is
//! supported. A reshape is supported only where rows are the innermost axis
//! (`pattern` reduces just the last axis), and then only if it keeps that
//! axis: see rejectReshapeExtents. `supported` lists exprs the caller
//! generates code for although their type is refused (an inner persistent
//! kernel's row gathers, row_gather.h).
std::optional<std::string> rejectUnsupportedReductionOps(
    const ir::Fusion& segment, const ReductionPattern& pattern,
    const std::vector<const ir::Expr*>& supported = {});

//! Why a reshape of the segment changes the innermost extent at these sizes
//! (so it regroups the rows); nullopt if every reshape keeps it, as seed
//! 001's [2048, 1600] -> [16, 128, 1600] does.
std::optional<std::string> rejectReshapeExtents(const ir::Fusion& segment,
                                                const ir::ExpressionEvaluator& evaluator);

//! Why some input or output of the segment cannot be indexed from
//! `pattern.reference()` at these sizes, as the reduction kernels index every
//! tensor (an axis of extent > 1 that follows no axis of the reference, e.g.
//! a pointwise op makes the reference's broadcast or expanded reduced axis
//! concrete); nullopt if every one follows it. The ops split into a
//! reduction segment and a pointwise segment instead.
std::optional<std::string> rejectUntracedTensors(const ir::Fusion& segment,
                                                 const ReductionPattern& pattern,
                                                 const ir::ExpressionEvaluator& evaluator);

//! The concrete sizes of a pattern at run time.
struct ReductionExtents {
  //! Elements each reduction combines per output element (product of the
  //! reduced extents).
  int64_t reductionExtent = 0;
  //! Output elements of a reduction (product of the kept extents).
  int64_t iterationExtent = 0;
  //! Extent of the innermost run of axes the kernel vectorizes along: the
  //! trailing reduced axes of the reference for an inner reduction, its
  //! trailing kept axes for an outer one.
  int64_t vectorizedExtent = 0;
};

//! The pattern's extents; a reason if the reductions reduce different extents
//! at these sizes.
struct ReductionExtentsResult {
  ReductionExtents extents;
  std::string reason;  //!< non-empty on refusal
};
ReductionExtentsResult reductionExtents(const ReductionPattern& pattern,
                                        const ir::ExpressionEvaluator& evaluator);

//! The largest vectorization factor the segment allows, and what limits it.
struct VectorizeLimit {
  int64_t factor = 1;
  //! What 16-byte accesses of the widest input allow, before extents,
  //! strides and alignment limit it (8 for bf16, 4 for float).
  int64_t dtypeFactor = 1;
  //! "16-byte accesses of 2-byte (bfloat16) elements", "the innermost extent
  //! 2047", "T0's data pointer is 4-byte aligned", ...
  std::string limitedBy;
  //! For an inner reduction whose row length dtypeFactor does not divide:
  //! the factor an inner persistent kernel with shifted rows may use (each
  //! row's chunks start at its first aligned element; its head and tail
  //! elements go one by one): dtypeFactor, halved until the data pointer
  //! of every contiguous input of rank 2 or more is aligned to it. 1
  //! otherwise.
  int64_t shiftedRowsFactor = 1;
};

//! 16 bytes over the widest element of the tensor inputs read by vectors
//! (nvFuser's max_input_dtype_size rule; an inner reduction leaves out the
//! inputs read once per row: a [rows, 1] rstd, a row gather's labels),
//! halved until it divides the vectorized extent, every input's strides and
//! its data pointer's alignment (inputs whose innermost stride is not 1 are
//! read element by element and set no limit).
VectorizeLimit maxVectorizeFactor(const ir::Fusion& segment, const ReductionPattern& pattern,
                                  const ReductionExtents& extents, const SegmentRuntimeInfo& info);

//! Whether every tensor's index fits in 32 bits at these sizes.
bool fitsInt32Indexing(const ir::Fusion& segment, const ir::ExpressionEvaluator& evaluator);

}  // namespace fuserlab::scheduler
