#include "core/segmenter/edge_recompute.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>

#include "core/ir/data_type.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/segmenter/input_forwarding.h"

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::TensorView;
using ir::Val;

// A chain longer than this is left as an edge: recomputing it costs more
// than its bytes are likely to save, and each try extracts a segment.
constexpr size_t kMaxRecomputedExprs = 48;

bool recomputableType(const Expr* expr) {
  switch (expr->type()) {
    case ir::ExprType::Unary:
    case ir::ExprType::Binary:
    case ir::ExprType::Ternary:
    case ir::ExprType::Cast:
    case ir::ExprType::Broadcast:
    case ir::ExprType::Expand:
    case ir::ExprType::Set: return true;
    default: return false;
  }
}

// Bytes `tv` takes in memory at the user's sizes: a broadcast axis takes
// one element unless `expanded` counts it at its expanded size (an edge a
// segment writes out whole). nullopt where an extent is unknown.
std::optional<int64_t> bytesOf(const TensorView* tv, const ir::ExpressionEvaluator* evaluator,
                               bool expanded) {
  int64_t elements = 1;
  for (const ir::IterDomain* id : tv->logicalNoReductions()) {
    if (id->isBroadcast() && !(expanded && id->hasExpandedExtent())) continue;
    const std::optional<int64_t> extent = scheduler::evaluatedExtent(evaluator, id);
    if (!extent || *extent < 0) return std::nullopt;
    elements *= std::max<int64_t>(*extent, 1);
  }
  return elements * ir::sizeInBytes(tv->dtype());
}

bool isViewType(const Expr* expr) {
  switch (expr->type()) {
    case ir::ExprType::Reshape:
    case ir::ExprType::Permute:
    case ir::ExprType::Squeeze:
    case ir::ExprType::Broadcast:
    case ir::ExprType::Expand: return true;
    default: return false;
  }
}

// Whether `tv` is a chain of view ops (reshape, permute, squeeze, broadcast,
// expand) of one fusion input: a kernel-free segment can hand it over.
bool isViewOfInput(const CompleteFusionIndex& index, const TensorView* tv) {
  const Val* val = tv;
  for (int depth = 0; depth < 16; ++depth) {
    const Expr* def = val->definition();
    if (def == nullptr) return depth > 0;
    if (!isViewType(def) || !index.isLive(def) || index.isReplicated(def)) return false;
    val = def->input(0);
  }
  return false;
}

// The exprs that compute `edge` from fusion inputs, views of them and
// scalars, producers first; nullopt when one of them is not pointwise,
// writes a fusion output, is already replicated, or there are too many.
// A view of an input (GroupNorm's reshape of its fp16 input) is a leaf: it
// stays where it is, a kernel-free segment once the compute after it moves.
std::optional<std::vector<Expr*>> inputDerivedChain(const CompleteFusionIndex& index,
                                                    const Val* edge,
                                                    std::vector<const TensorView*>& leaves) {
  std::vector<Expr*> chain;
  std::unordered_set<const Expr*> seen;
  std::vector<Expr*> stack{edge->definition()};
  while (!stack.empty()) {
    Expr* expr = stack.back();
    stack.pop_back();
    if (!seen.insert(expr).second) continue;
    if (!recomputableType(expr) || !index.isLive(expr) || index.isReplicated(expr)) {
      return std::nullopt;
    }
    for (const Val* out : expr->outputs()) {
      if (index.fusion().isOutput(out)) return std::nullopt;
    }
    chain.push_back(expr);
    if (chain.size() > kMaxRecomputedExprs) return std::nullopt;
    for (Val* in : expr->inputs()) {
      const auto* tv = in->as<TensorView>();
      if (tv == nullptr) continue;  // scalars: each segment computes its own
      if (tv->definition() == nullptr || isViewOfInput(index, tv)) {
        if (std::find(leaves.begin(), leaves.end(), tv) == leaves.end()) leaves.push_back(tv);
      } else {
        stack.push_back(tv->definition());
      }
    }
  }
  index.sortTopologically(chain);
  return chain;
}

// The tensors the exprs of `group` read.
std::unordered_set<const Val*> tensorsRead(const CandidateGroup& group) {
  std::unordered_set<const Val*> read;
  for (const Expr* expr : group.exprs) {
    for (const Val* in : expr->inputs()) {
      if (in->isA<TensorView>()) read.insert(in);
    }
  }
  return read;
}

// Drops from `group` the replicated exprs nothing in it reads (and that
// write no fusion output): the group that computed an edge for others keeps
// only what it uses itself. Returns whether any went.
bool pruneUnread(const CompleteFusionIndex& index, CandidateGroup& group) {
  bool pruned = false;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = group.exprs.begin(); it != group.exprs.end(); ++it) {
      const Expr* expr = *it;
      if (!index.isReplicated(expr)) continue;
      const bool read =
          std::any_of(expr->outputs().begin(), expr->outputs().end(), [&](const Val* out) {
            if (index.fusion().isOutput(out)) return true;
            return std::any_of(out->uses().begin(), out->uses().end(), [&](const Expr* use) {
              return index.isLive(use) &&
                     std::find(group.exprs.begin(), group.exprs.end(), use) != group.exprs.end();
            });
          });
      if (read) continue;
      group.exprs.erase(it);
      pruned = changed = true;
      break;
    }
  }
  return pruned;
}

// Adds to each group the exprs of `chain` it reads from, transitively;
// returns the indices of the groups that received any.
std::vector<size_t> replicateInto(const CompleteFusionIndex& index, const std::vector<Expr*>& chain,
                                  std::vector<CandidateGroup>& groups) {
  const std::unordered_set<const Expr*> inChain(chain.begin(), chain.end());
  std::vector<size_t> receivers;
  for (size_t g = 0; g < groups.size(); ++g) {
    CandidateGroup& group = groups[g];
    const std::vector<Expr*> added = replicatedExprsRead(group.exprs, inChain);
    if (added.empty()) continue;
    group.exprs.insert(group.exprs.end(), added.begin(), added.end());
    index.sortTopologically(group.exprs);
    receivers.push_back(g);
  }
  return receivers;
}

std::string groupIds(const std::vector<CandidateGroup>& groups, const std::vector<size_t>& which) {
  std::string text;
  for (size_t i = 0; i < which.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(groups[which[i]].id);
  }
  return text;
}

std::string bytesText(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (int64_t{1} << 10)) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

void recomputeInputDerivedEdges(CompleteFusionIndex& index, std::vector<CandidateGroup>& groups,
                                const SegmenterContext& context,
                                const GroupSchedulable& schedulable, const DecisionLog& log) {
  if (groups.size() < 2 || context.evaluator == nullptr) return;
  std::unordered_set<const Val*> tried;
  for (size_t reader = 0; reader < groups.size(); ++reader) {
    // The group's exprs as they were when the walk began: a recomputation
    // adds exprs, whose inputs the next edges are then found among.
    const std::vector<Expr*> exprs = groups[reader].exprs;
    for (const Expr* expr : exprs) {
      for (const Val* in : expr->inputs()) {
        const auto* edge = in->as<TensorView>();
        if (edge == nullptr || edge->definition() == nullptr || tried.count(edge)) continue;
        const auto& own = groups[reader].exprs;
        if (std::find(own.begin(), own.end(), edge->definition()) != own.end()) continue;
        tried.insert(edge);
        std::vector<const TensorView*> leaves;
        const std::optional<std::vector<Expr*>> chain = inputDerivedChain(index, edge, leaves);
        if (!chain) continue;
        // What the reader reads instead of the edge: the chain's inputs it
        // does not read already.
        const std::optional<int64_t> edgeBytes = bytesOf(edge, context.evaluator, true);
        if (!edgeBytes) continue;
        const std::unordered_set<const Val*> read = tensorsRead(groups[reader]);
        int64_t added = 0;
        bool known = true;
        for (const TensorView* leaf : leaves) {
          if (read.count(leaf)) continue;
          const std::optional<int64_t> bytes = bytesOf(leaf, context.evaluator, false);
          known = known && bytes.has_value();
          added += bytes.value_or(0);
        }
        const std::string what = edge->name() + " (" + bytesText(*edgeBytes) + ", " +
                                 std::to_string(chain->size()) +
                                 " pointwise ops of fusion inputs and their views)";
        if (!known || added >= *edgeBytes) {
          log.add("recompute", {groups[reader].id}, false,
                  "not recomputing " + what + " in group " + std::to_string(groups[reader].id) +
                      ": it would read " +
                      (known ? bytesText(added) : std::string("an unknown size")) +
                      " of inputs it does not read yet");
          continue;
        }
        const std::vector<CandidateGroup> before = groups;
        const std::unordered_set<const Expr*> replicatedBefore = index.replicated();
        std::unordered_set<const Expr*> replicated = replicatedBefore;
        replicated.insert(chain->begin(), chain->end());
        index.setReplicated(std::move(replicated));
        const std::vector<size_t> receivers = replicateInto(index, *chain, groups);
        for (CandidateGroup& group : groups) pruneUnread(index, group);
        // A view leaf read in a group that does not compute it must come
        // from a group of views only (a kernel-free segment); a kernel
        // would write it out whole.
        std::optional<std::string> viewWritten;
        for (const TensorView* leaf : leaves) {
          if (leaf->definition() == nullptr || viewWritten) continue;
          const CandidateGroup* producer = nullptr;
          bool readElsewhere = false;
          for (const CandidateGroup& group : groups) {
            const bool computes = std::find(group.exprs.begin(), group.exprs.end(),
                                            leaf->definition()) != group.exprs.end();
            if (computes) {
              producer = &group;
              continue;
            }
            readElsewhere = readElsewhere || tensorsRead(group).count(leaf) != 0;
          }
          if (producer != nullptr && readElsewhere &&
              !std::all_of(producer->exprs.begin(), producer->exprs.end(),
                           [](const Expr* e) { return isViewType(e); })) {
            viewWritten = "group " + std::to_string(producer->id) + " would write the view " +
                          leaf->name() + " out for it";
          }
        }
        if (viewWritten) {
          groups = before;
          index.setReplicated(replicatedBefore);
          log.add("recompute", {groups[reader].id}, false,
                  "not recomputing " + what + ": " + *viewWritten);
          continue;
        }
        // The groups that changed, and the one computing the edge: it no
        // longer writes the edge out, and a scheduler's answer can hang on
        // its outputs (pointwise indexes every tensor from the largest; the
        // differential tester's seed 736269: a cast's output was that
        // reference, and the slice of it that remained could not be one).
        std::optional<size_t> refused;
        for (size_t g = 0; g < groups.size() && !refused; ++g) {
          const std::vector<Expr*>& exprs = groups[g].exprs;
          const bool computesEdge =
              std::find(exprs.begin(), exprs.end(), edge->definition()) != exprs.end();
          if ((exprs != before[g].exprs || computesEdge) && !exprs.empty() && !schedulable(exprs)) {
            refused = g;
          }
        }
        if (refused) {
          const int id = groups[*refused].id;
          groups = before;
          index.setReplicated(replicatedBefore);
          log.add("recompute", {id}, false,
                  "not recomputing " + what + ": no scheduler takes group " + std::to_string(id) +
                      " with it");
          continue;
        }
        log.add("recompute", {groups[reader].id}, true,
                "recomputing " + what + " in group" + (receivers.size() == 1 ? " " : "s ") +
                    groupIds(groups, receivers) +
                    " from its inputs instead of passing it: " + bytesText(added) +
                    " more read instead of writing and reading " + bytesText(*edgeBytes));
      }
    }
  }
  // A value read by a replicated expr of one group and computed by another
  // (a view of an input the recomputed chain starts from) is that other
  // group's output, even where a replicated copy reads it there too.
  std::unordered_set<const Val*> exported;
  for (const CandidateGroup& group : groups) {
    for (const Expr* expr : group.exprs) {
      if (!index.isReplicated(expr)) continue;
      for (const Val* in : expr->inputs()) {
        const Expr* def = in->definition();
        if (def == nullptr || index.isReplicated(def)) continue;
        if (std::find(group.exprs.begin(), group.exprs.end(), def) == group.exprs.end()) {
          exported.insert(in);
        }
      }
    }
  }
  index.setExported(std::move(exported));
  // A group left with nothing to compute (each of its values recomputed
  // where it is read, none a fusion output) serves nobody.
  for (auto it = groups.begin(); it != groups.end();) {
    if (it->exprs.empty()) {
      log.add("recompute", {it->id}, true,
              "group " + std::to_string(it->id) + " is left with only recomputed values: dropped");
      it = groups.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace fuserlab::segmenter
