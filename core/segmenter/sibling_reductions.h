// Sibling reductions: two segments that reduce and read the same fusion
// input, neither depending on the other, are offered to the schedulers as
// one, so the input is read once (nvFuser's combine-reductions step does
// the same). The weight and bias gradients of a LayerNorm backward are the
// case: sum(dy * xhat, 0) and sum(dy, 0) are two column sums of one dy that
// the producer/consumer merges never try together, having no edge between
// them (issue 45).
//
// Runs after edge recomputation, before the segments are scheduled; each
// merge is accepted only when a scheduler takes the merged group, and only
// when no path of edges runs between the two (merging them would close a
// cycle). Decisions are logged as "sibling_merge".
#pragma once

#include <vector>

#include "core/segmenter/decision_log.h"
#include "core/segmenter/edge_recompute.h"
#include "core/segmenter/group_merger.h"
#include "core/segmenter/segment_extraction.h"

namespace fuserlab::segmenter {

//! Merges sibling reduction groups of `groups` that a scheduler takes as one.
void mergeSiblingReductions(const CompleteFusionIndex& index, std::vector<CandidateGroup>& groups,
                            const GroupSchedulable& schedulable, const DecisionLog& log);

}  // namespace fuserlab::segmenter
