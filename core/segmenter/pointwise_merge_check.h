// The pointwise shortcut of the merger: most merges the segmenter tries join
// two groups the pointwise scheduler took, and the pointwise scheduler takes
// most of those. Extracting the merged group as a segment fusion only to
// hear that costs more than the check itself (a trial extraction of a few
// exprs clones every tensor, IterDomain and extent they touch), so for the
// plainest of such merges the pointwise checks run on the complete fusion,
// restricted to the group's exprs.
//
// Invariant: the shortcut answers "pointwise takes it" only where the merger's
// full path (extract, then ask the likely acceptors, pointwise first) would
// answer exactly that: the same reference tensor, traced through the same
// exprs, covering the same inputs and outputs. Where it is not sure, or where
// pointwise would refuse, it answers nothing and the full path runs (which
// also writes the refusal's reason).
#pragma once

#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/expr.h"

namespace fuserlab::segmenter {

class CompleteFusionIndex;

//! True when the pointwise scheduler certainly takes `exprs` (a group of the
//! complete fusion, in topological order) as one segment at the sizes
//! `evaluator` binds; false when that is not certain without extracting it.
//! Only groups of elementwise ops, casts, broadcasts, expands and plain sets,
//! none of them replicated, on one device, are decided here.
bool pointwiseTakesWithoutExtraction(const CompleteFusionIndex& index,
                                     const std::vector<ir::Expr*>& exprs,
                                     const ir::ExpressionEvaluator* evaluator);

}  // namespace fuserlab::segmenter
