// Edge recomputation: a tensor that one segment writes and another reads,
// when it is a pointwise function of fusion inputs (casts, unary, binary and
// ternary ops, broadcasts, expands and sets of inputs and scalars), is
// recomputed by each segment that reads it instead, where that reads fewer
// bytes than the edge moves. The normalized input of a LayerNorm backward,
// xhat = (x - mean) * rstd in float, is the case that made this: its input
// gradient (row reductions) and its weight gradient (column sums) fall in
// two segments, and passing xhat between them wrote and read 4 bytes per
// element where recomputing it reads the 2 of bf16 x (issue 45).
//
// Runs after merging, before the segments are scheduled. Each recomputed
// chain is replicated (CompleteFusionIndex::setReplicated) into every group
// that reads a value of it, as input forwarding does; a group that then
// computes only replicated values for nobody is dropped. A recomputation
// after which a reading group is refused by every scheduler is undone.
// Decisions are logged as "recompute".
#pragma once

#include <functional>
#include <vector>

#include "core/segmenter/decision_log.h"
#include "core/segmenter/group_merger.h"
#include "core/segmenter/segment_extraction.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::segmenter {

//! Whether a scheduler takes the group of these exprs.
using GroupSchedulable = std::function<bool(const std::vector<ir::Expr*>&)>;

//! Recomputes the cheap input-derived edges between `groups` (see above).
void recomputeInputDerivedEdges(CompleteFusionIndex& index, std::vector<CandidateGroup>& groups,
                                const SegmenterContext& context,
                                const GroupSchedulable& schedulable, const DecisionLog& log);

}  // namespace fuserlab::segmenter
