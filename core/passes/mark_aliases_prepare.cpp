#include "core/passes/mark_aliases_prepare.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_set>

#include "core/ops/alias.h"
#include "core/passes/view_analysis.h"

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::TensorView;

// A place to cut: between `tv` and `user`, or, with a null `user`, between
// `tv` and all its users (bookending from an input: the chain up to `tv` is
// meta, its users are not).
struct Cut {
  TensorView* tv;
  Expr* user;
};

// Orders cuts by tensor and then user, a null user first; ids, not
// addresses, so the rewrites come out in the same order every run.
bool cutBefore(const Cut& a, const Cut& b) {
  if (a.tv->id() != b.tv->id()) return a.tv->id() < b.tv->id();
  const int64_t ua = a.user ? a.user->id() + 1 : 0;
  const int64_t ub = b.user ? b.user->id() + 1 : 0;
  return ua < ub;
}

bool sameCut(const Cut& a, const Cut& b) { return a.tv == b.tv && a.user == b.user; }

std::string describeUse(const Expr* expr) {
  std::string out = expr->opName() + "(";
  bool first = true;
  for (const ir::Val* in : expr->inputs()) {
    if (!in->isA<TensorView>()) continue;  // sizes and bounds
    out += first ? "" : ", ";
    out += in->name();
    first = false;
  }
  return out + ")";
}

std::string describeUses(const std::vector<Expr*>& exprs) {
  std::string out;
  for (const Expr* expr : exprs) {
    if (!out.empty()) out += ", ";
    out += describeUse(expr);
  }
  return out;
}

// Exprs on which some compute (non-view) expr depends, found walking the
// live exprs consumers-first. A view expr in this set feeds a kernel anyway,
// so cutting before it would only add a segment (AliasTest.DoNotOverSegment).
std::unordered_set<const Expr*> exprsFeedingCompute(const std::vector<Expr*>& live,
                                                    const ViewAnalysis& views) {
  std::unordered_set<const Expr*> feeding;
  for (auto it = live.rbegin(); it != live.rend(); ++it) {
    Expr* expr = *it;
    bool feeds = !views.isView(expr);
    for (const ir::Val* out : expr->outputs()) {
      for (const Expr* use : views.liveUses(out)) {
        feeds = feeds || feeding.count(use) != 0;
      }
    }
    if (feeds) feeding.insert(expr);
  }
  return feeding;
}

// Bookending from the outputs: walk up from each output through view ops
// that feed no compute; the cut goes where the walk stops.
void findOutputCuts(const ir::Fusion& fusion, const ViewAnalysis& views,
                    const std::unordered_set<const Expr*>& feedingCompute, std::vector<Cut>& cuts) {
  for (ir::Val* out : fusion.outputVals()) {
    auto* tv = out->as<TensorView>();
    if (tv == nullptr) continue;
    Expr* user = nullptr;
    for (Expr* def = tv->definition();
         def != nullptr && views.isView(def) && !feedingCompute.count(def);
         def = tv->definition()) {
      user = def;
      tv = def->input(0)->as<TensorView>();
    }
    if (user != nullptr) cuts.push_back({tv, user});
  }
}

// Bookending from the inputs: walk down from each input while every use is a
// view op, stopping at a fork (two meta chains from one tensor would hand a
// kernel the same data twice; slices of one tensor are the exception, RoPE's
// split) and at uses already cut for the outputs. `onlyOutputs`: only where
// the walk stops at a fusion output, a view of an input that compute also
// reads (bookend=outputs: the output is returned as that view, as nvFuser's
// alias analysis returns every output whose root is an input, instead of
// being written by the kernel).
void findInputCuts(const ir::Fusion& fusion, const ViewAnalysis& views, std::vector<Cut>& cuts,
                   bool onlyOutputs) {
  const std::vector<Cut> outputCuts = cuts;
  auto cutForOutputs = [&](TensorView* tv, Expr* user) {
    return std::any_of(outputCuts.begin(), outputCuts.end(),
                       [&](const Cut& c) { return c.tv == tv && c.user == user; });
  };
  std::unordered_set<const TensorView*> visited;
  std::deque<TensorView*> frontier;
  for (TensorView* tv : fusion.tensorInputs()) frontier.push_back(tv);
  while (!frontier.empty()) {
    TensorView* tv = frontier.front();
    frontier.pop_front();
    if (!visited.insert(tv).second) continue;
    const std::vector<Expr*> uses = views.liveUses(tv);
    const bool allViews =
        std::all_of(uses.begin(), uses.end(), [&](const Expr* use) { return views.isView(use); });
    const bool allSlices = std::all_of(
        uses.begin(), uses.end(), [](const Expr* use) { return use->type() == ExprType::Slice; });
    if (!allViews || (uses.size() > 1 && !allSlices)) {
      // No meta op precedes an input itself: there is nothing to bookend,
      // and a segment_set between it and its users would only add a segment.
      if (!fusion.isInput(tv) && (!onlyOutputs || fusion.isOutput(tv))) {
        cuts.push_back({tv, nullptr});
      }
      continue;
    }
    for (Expr* use : uses) {
      if (cutForOutputs(tv, use)) continue;
      frontier.push_back(use->output(0)->as<TensorView>());
    }
  }
}

// The meta ops from a fusion input down to `tv`, "broadcast(T1) -> expand(T5)".
std::string describeChainTo(const TensorView* tv, const ViewAnalysis& views) {
  std::vector<const Expr*> chain;
  while (tv->definition() != nullptr && views.isView(tv->definition())) {
    chain.push_back(tv->definition());
    tv = tv->definition()->input(0)->as<TensorView>();
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!out.empty()) out += " -> ";
    out += describeUse(*it);
  }
  return out;
}

struct CutGroup {
  TensorView* tv = nullptr;
  bool fromInputs = false;         // had a null-user cut
  std::vector<Expr*> outputUsers;  // users cut for the outputs
};

// Inserts the segment_set for one tensor's cuts unless a guard against
// over-segmentation says none is needed. Returns the rewrite's description,
// empty if none.
std::string applyCuts(ir::Fusion& fusion, const CutGroup& group, const ViewAnalysis& views) {
  TensorView* tv = group.tv;
  const std::vector<Expr*> allUses = views.liveUses(tv);
  std::vector<Expr*> users;
  if (group.fromInputs) {
    // The chain up to `tv` is meta, and so is whatever follows the users cut
    // for the outputs: those stay with `tv`; the segment_set goes before the
    // remaining (compute) users.
    for (Expr* use : allUses) {
      if (std::find(group.outputUsers.begin(), group.outputUsers.end(), use) ==
          group.outputUsers.end()) {
        users.push_back(use);
      }
    }
  } else {
    users = group.outputUsers;
  }
  if (users.empty()) return {};
  if (users.size() == allUses.size()) {
    // Cutting a fusion input from all its users separates nothing (e.g. two
    // meta chains from one input to two outputs: no kernel at all).
    if (fusion.isInput(tv)) return {};
    if (tv->definition() != nullptr && tv->definition()->type() == ExprType::SegmentSet) {
      return {};
    }
  }
  if (std::all_of(users.begin(), users.end(),
                  [](const Expr* use) { return use->type() == ExprType::SegmentSet; })) {
    return {};
  }
  // The copy aliases `tv`, so it is declared with the layout `tv` has in
  // memory (nvFuser's Bookend_SegmentSetPreservesAllocation): a view of a
  // sliced input is not contiguous, a permuted input stays permuted. Layouts
  // cover the non-reduction axes, which are the copy's axes. Without a known
  // layout (a split/merge allocation) no copy can alias `tv`.
  const std::optional<ViewLayout> layout = views.layout(tv);
  if (!layout) return {};

  const std::string usersText = describeUses(users);
  TensorView* copy = ops::segmentSet(tv);
  declareLayout(copy, *layout);
  for (Expr* user : users) fusion.replaceExprInput(user, tv, copy);

  std::string line = "inserted segment_set " + copy->name() + " = segment_set(" + tv->name() + ")";
  if (group.fromInputs) {
    line += " after the input meta ops " + describeChainTo(tv, views);
    line += ", before " + usersText;
    line += group.outputUsers.empty() ? " (bookend inputs)" : " (bookend inputs and outputs)";
  } else {
    line += " before the output meta ops " + usersText + " (bookend outputs)";
  }
  // The end of an input's meta chain is itself a view of that input, and
  // the segment_set's segment takes it as it is in memory: declared with the
  // view's layout, not the dense one a computed tensor has (a sliced and
  // permuted input is neither contiguous nor in logical order). Declared
  // after the description above, which reads the chain as analysed.
  if (group.fromInputs && !fusion.isInput(tv)) declareLayout(tv, *layout);
  return line;
}

}  // namespace

std::string_view MarkAliasesPreparePass::description() const {
  return "Separates meta ops (reshape, permute, broadcast, expand, squeeze, "
         "slice, set) next to the fusion outputs (and an output that is a view "
         "of an input), and with bookend=inputs_and_outputs next to the inputs, "
         "from the compute by a segment_set, so they run in kernel-free segments.";
}

void MarkAliasesPreparePass::run(ir::Fusion& fusion, const PassOptions& options,
                                 PassRecord& record) const {
  if (options.bookend == BookendMode::None) return;
  const ViewAnalysis views(fusion);
  const auto feedingCompute = exprsFeedingCompute(views.liveExprs(), views);

  std::vector<Cut> cuts;
  findOutputCuts(fusion, views, feedingCompute, cuts);
  findInputCuts(fusion, views, cuts,
                /*onlyOutputs=*/options.bookend != BookendMode::InputsAndOutputs);
  std::sort(cuts.begin(), cuts.end(), cutBefore);
  cuts.erase(std::unique(cuts.begin(), cuts.end(), sameCut), cuts.end());

  // One segment_set per cut tensor: its users that are cut share the copy.
  std::vector<CutGroup> groups;
  for (const Cut& cut : cuts) {
    if (groups.empty() || groups.back().tv != cut.tv) {
      groups.push_back({cut.tv, false, {}});
    }
    if (cut.user == nullptr) {
      groups.back().fromInputs = true;
    } else {
      groups.back().outputUsers.push_back(cut.user);
    }
  }
  for (const CutGroup& group : groups) {
    std::string line = applyCuts(fusion, group, views);
    if (!line.empty()) record.rewrites.push_back(std::move(line));
  }
}

}  // namespace fuserlab::passes
