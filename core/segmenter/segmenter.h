// The segmenter: tries the whole fusion as one segment first; otherwise
// starts from one group per expr and merges producer into consumer, level by
// level, then a final pass over any remaining neighbours, keeping a merge
// only while some scheduler accepts the merged group and the group graph
// stays acyclic. `segment_set` always cuts: each is a group of its own that
// never merges (nvFuser lets it join its producer's kernel). Upcasts used by
// several exprs are handled by the strategy the options name (seed 000):
// privatized (cloned per use, clones that end up together reverted) or
// forwarded (unary chains from inputs replicated into each consumer group,
// as nvFuser does). A library call is a sealed group from the start: a
// matmul or linear with the epilogue cuBLASLt fuses into it (see
// scheduler/matmul/epilogue_matcher.h), an sdpfa_fwd alone. Every decision
// is logged with its outcome and reason.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/scheduler/heuristic_provider.h"
#include "core/scheduler/runtime_info.h"
#include "core/segmenter/segmented_fusion.h"
#include "core/segmenter/segmenter_options.h"

namespace fuserlab::segmenter {

//! One decision of the segmenter, in the order taken: kind is one of
//! "matmul_epilogue" (each step of the epilogue matcher: an op merged into
//! the cuBLASLt call or not, and why), "library_call", "cpu_reference_only"
//! (an op without a GPU kernel, sealed in a segment of its own), "whole_fusion",
//! "region" (a region between segment cuts tried as one group), "merge", "final_merge",
//! "privatize", "revert_privatize", "forward", "segment_set", "schedule".
struct SegmenterDecision {
  std::string kind;
  std::vector<int> groups;  //!< group ids involved (at the time)
  bool accepted = false;
  std::string reason;  //!< why (the schedulers' reasons when refused)
};

struct SegmenterContext {
  const scheduler::DeviceSpec* device = nullptr;
  //! Extents of the complete fusion bound from the user's inputs.
  const ir::ExpressionEvaluator* evaluator = nullptr;
  //! Strides/alignment of the complete fusion's inputs (one per input).
  std::vector<scheduler::TensorInputInfo> inputs;
  UpcastStrategy upcast = UpcastStrategy::Privatize;
  const scheduler::HeuristicProvider* provider = nullptr;
  //! The merge test asks first the schedulers that took the two groups
  //! (scheduler::findAcceptingScheduler), which decides and logs exactly as
  //! asking them in priority order (scheduler::canSchedule), only faster.
  //! false asks in priority order: for tests that check that.
  bool guessMergeSchedulers = true;
  //! With the guess, a merge the pointwise scheduler is asked about first
  //! and certainly takes is decided on the complete fusion, without
  //! extracting the merged group (pointwiseTakesWithoutExtraction): the
  //! same decisions and log, only faster. false extracts every merge tried:
  //! for tests that check that.
  bool pointwiseShortcut = true;
};

//! Segments `fusion` (the passes' output; the segmenter may rewrite it) and
//! chooses each segment's scheduler and params. A fusion no scheduler can
//! take even expr by expr is a UserError naming the expr and the reasons.
SegmentedFusion segmentFusion(std::unique_ptr<ir::Fusion> fusion, const SegmenterContext& context,
                              std::vector<SegmenterDecision>* log);

}  // namespace fuserlab::segmenter
