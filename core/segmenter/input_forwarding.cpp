#include "core/segmenter/input_forwarding.h"

#include <algorithm>

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::Val;

std::vector<Expr*> liveUses(const CompleteFusionIndex& index, const Val* val) {
  std::vector<Expr*> uses;
  for (Expr* use : val->uses()) {
    if (index.isLive(use)) uses.push_back(use);
  }
  return uses;
}

// nvFuser's shouldForward: the only use of `val`, if it is a unary op whose
// result is neither a fusion output nor read by a segment_set.
Expr* forwardableUse(const CompleteFusionIndex& index, const Val* val) {
  const std::vector<Expr*> uses = liveUses(index, val);
  if (uses.size() != 1) return nullptr;
  Expr* use = uses.front();
  if (use->type() != ir::ExprType::Unary && use->type() != ir::ExprType::Cast) {
    return nullptr;
  }
  const Val* out = use->output(0);
  if (!out->isA<ir::TensorView>() || out->isFusionOutput()) return nullptr;
  for (const Expr* next : liveUses(index, out)) {
    if (next->type() == ir::ExprType::SegmentSet) return nullptr;
  }
  return use;
}

std::string chainSummary(const ForwardedChain& chain) {
  std::string out = chain.input->name();
  for (const Expr* expr : chain.exprs) {
    out += " -> " + expr->opName() + " -> " + expr->output(0)->name();
  }
  return out;
}

}  // namespace

std::vector<ForwardedChain> findForwardedChains(const CompleteFusionIndex& index,
                                                const DecisionLog& log) {
  std::vector<ForwardedChain> chains;
  for (Val* input : index.fusion().inputs()) {
    if (!input->isA<ir::TensorView>()) continue;
    ForwardedChain chain{input, {}};
    const Val* val = input;
    while (Expr* use = forwardableUse(index, val)) {
      chain.exprs.push_back(use);
      val = use->output(0);
    }
    if (chain.exprs.empty()) continue;
    log.add("forward", {}, true,
            chainSummary(chain) + ": the unary chain from input " + input->name() +
                " is kept out of merging; " + val->name() +
                " stands for an input while merging, and the chain is "
                "replicated into every segment that reads it");
    chains.push_back(std::move(chain));
  }
  return chains;
}

std::unordered_set<const Expr*> forwardedExprs(const std::vector<ForwardedChain>& chains) {
  std::unordered_set<const Expr*> exprs;
  for (const auto& chain : chains) exprs.insert(chain.exprs.begin(), chain.exprs.end());
  return exprs;
}

std::vector<Expr*> replicatedExprsRead(const std::vector<Expr*>& groupExprs,
                                       const std::unordered_set<const Expr*>& replicated) {
  std::unordered_set<const Expr*> has(groupExprs.begin(), groupExprs.end());
  std::vector<Expr*> added;
  std::vector<const Expr*> stack(groupExprs.begin(), groupExprs.end());
  while (!stack.empty()) {
    const Expr* expr = stack.back();
    stack.pop_back();
    for (const Val* in : expr->inputs()) {
      Expr* def = in->definition();
      if (def == nullptr || !replicated.count(def) || !has.insert(def).second) continue;
      added.push_back(def);
      stack.push_back(def);
    }
  }
  return added;
}

void replicateForwardedChains(const CompleteFusionIndex& index,
                              const std::vector<ForwardedChain>& chains,
                              std::vector<CandidateGroup>& groups, const DecisionLog& log) {
  const auto forwarded = forwardedExprs(chains);
  std::vector<std::vector<int>> receivers(chains.size());
  for (CandidateGroup& group : groups) {
    const std::vector<Expr*> added = replicatedExprsRead(group.exprs, forwarded);
    if (added.empty()) continue;
    for (size_t c = 0; c < chains.size(); ++c) {
      const auto& exprs = chains[c].exprs;
      if (std::any_of(added.begin(), added.end(), [&](const Expr* e) {
            return std::find(exprs.begin(), exprs.end(), e) != exprs.end();
          })) {
        receivers[c].push_back(group.id);
      }
    }
    group.exprs.insert(group.exprs.end(), added.begin(), added.end());
    index.sortTopologically(group.exprs);
  }
  for (size_t c = 0; c < chains.size(); ++c) {
    std::string ids;
    for (size_t i = 0; i < receivers[c].size(); ++i) {
      ids += (i ? ", " : "") + std::to_string(receivers[c][i]);
    }
    log.add("forward", receivers[c], !receivers[c].empty(),
            "replicated " + chainSummary(chains[c]) + " into group" +
                (receivers[c].size() == 1 ? " " : "s ") + ids);
  }
}

}  // namespace fuserlab::segmenter
