// Input forwarding, as nvFuser does it: a chain of unary ops (casts and
// Unary exprs) that starts at a fusion input, each link the only use of the
// previous value, is kept out of merging; its last value is treated as an
// input while merging, and the chain is replicated into every segment that
// reads it. This avoids segments that only cast an input, but it hides the
// chain from the schedulers while merging: seed 000's normalization sees a
// float input it cannot project to bf16. Kept for comparison
// (upcast=forward); privatization is the default.
#pragma once

#include <unordered_set>
#include <vector>

#include "core/segmenter/decision_log.h"
#include "core/segmenter/group_merger.h"
#include "core/segmenter/segment_extraction.h"

namespace fuserlab::segmenter {

//! One forwarded chain: the fusion input it starts at and its exprs in order.
struct ForwardedChain {
  ir::Val* input = nullptr;
  std::vector<ir::Expr*> exprs;
};

//! The forwarded chains of `index`'s fusion, in input order; logs one
//! "forward" decision per chain.
std::vector<ForwardedChain> findForwardedChains(const CompleteFusionIndex& index,
                                                const DecisionLog& log);

//! All exprs of `chains`.
std::unordered_set<const ir::Expr*> forwardedExprs(const std::vector<ForwardedChain>& chains);

//! The exprs of `replicated` that `groupExprs` read from, transitively, and
//! do not hold yet, in the order found (the caller sorts them).
std::vector<ir::Expr*> replicatedExprsRead(const std::vector<ir::Expr*>& groupExprs,
                                           const std::unordered_set<const ir::Expr*>& replicated);

//! Adds to each group the forwarded exprs it reads from (transitively), in
//! topological order; logs a "forward" decision per chain naming the groups
//! it went into.
void replicateForwardedChains(const CompleteFusionIndex& index,
                              const std::vector<ForwardedChain>& chains,
                              std::vector<CandidateGroup>& groups, const DecisionLog& log);

}  // namespace fuserlab::segmenter
