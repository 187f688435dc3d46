#include "core/segmenter/group_merger.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <utility>

#include "core/ir/error.h"
#include "core/segmenter/pointwise_merge_check.h"

namespace fuserlab::segmenter {
namespace {

bool isTensorExpr(const ir::Expr* expr) {
  return std::any_of(expr->outputs().begin(), expr->outputs().end(),
                     [](const ir::Val* v) { return v->isA<ir::TensorView>(); });
}

std::pair<int, int> orderedPair(int a, int b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

void dedup(std::vector<int>& values) {
  auto kept = values.begin();
  for (auto it = values.begin(); it != values.end(); ++it) {
    if (std::find(values.begin(), kept, *it) == kept) *kept++ = *it;
  }
  values.erase(kept, values.end());
}

// The schedulers to ask first about merging `groups`: those that took
// each (the one later in priority order first: a persistent scheduler that
// took one side is likelier to take both than the pointwise one that took
// the other), then pointwise, which takes most merges of single exprs, or
// with a reduction the persistent schedulers. Only a guess: the answer is
// the same whatever it is.
std::vector<scheduler::SchedulerType> likelyAcceptors(
    const std::vector<const CandidateGroup*>& groups) {
  const auto& priority = scheduler::schedulerPriority();
  auto rank = [&](scheduler::SchedulerType type) {
    return std::find(priority.begin(), priority.end(), type) - priority.begin();
  };
  std::vector<scheduler::SchedulerType> out;
  for (const CandidateGroup* g : groups) {
    if (g->acceptedBy && std::find(out.begin(), out.end(), *g->acceptedBy) == out.end()) {
      out.push_back(*g->acceptedBy);
    }
  }
  std::sort(out.begin(), out.end(), [&](auto x, auto y) { return rank(x) > rank(y); });
  // Pointwise refuses any reduction: no use guessing it then; a reduction
  // with the ops around it is mostly a normalization, and the wrong one of
  // the two persistent schedulers refuses at once (the reduction's side).
  auto isReduction = [](const ir::Expr* e) {
    return e->type() == ir::ExprType::Reduction || e->type() == ir::ExprType::Welford;
  };
  const bool reduces = std::any_of(groups.begin(), groups.end(), [&](const CandidateGroup* g) {
    return std::any_of(g->exprs.begin(), g->exprs.end(), isReduction);
  });
  const std::vector<scheduler::SchedulerType> fallback =
      reduces ? std::vector<scheduler::SchedulerType>{scheduler::SchedulerType::InnerPersistent,
                                                      scheduler::SchedulerType::OuterPersistent}
              : std::vector<scheduler::SchedulerType>{scheduler::SchedulerType::Pointwise};
  for (scheduler::SchedulerType type : fallback) {
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
  }
  return out;
}

}  // namespace

GroupMerger::GroupMerger(const CompleteFusionIndex& index, const SegmenterContext& context,
                         const DecisionLog& log,
                         const std::vector<std::vector<ir::Expr*>>& libraryGroups)
    : index_(index), context_(context), log_(log), groupOf_(index.fusion().exprs().size(), -1) {
  for (const std::vector<ir::Expr*>& exprs : libraryGroups) {
    CandidateGroup group;
    group.id = nextId_++;
    group.sealed = true;
    for (ir::Expr* expr : exprs) {
      if (!index_.isLive(expr) || index_.isReplicated(expr) || groupOf(expr) >= 0) {
        continue;
      }
      group.exprs.push_back(expr);
      setGroupOf(expr, static_cast<int>(groups_.size()));
    }
    if (group.exprs.empty()) continue;
    index_.sortTopologically(group.exprs);
    groups_.push_back(std::move(group));
  }
  for (ir::Expr* expr : index_.exprs()) {
    if (!isTensorExpr(expr) || index_.isReplicated(expr) || groupOf(expr) >= 0) {
      continue;
    }
    CandidateGroup group;
    group.id = nextId_++;
    group.exprs = {expr};
    group.segmentSet = expr->type() == ir::ExprType::SegmentSet;
    group.sealed = group.segmentSet;
    setGroupOf(expr, static_cast<int>(groups_.size()));
    groups_.push_back(std::move(group));
    if (groups_.back().segmentSet) {
      log_.add("segment_set", {groups_.back().id}, true,
               exprSummary(*expr) + " is group " + std::to_string(groups_.back().id) +
                   " on its own and never merges: a segment_set always cuts");
    }
  }
}

int GroupMerger::groupOf(const ir::Expr* expr) const {
  const auto id = static_cast<size_t>(expr->id());
  const auto& exprs = index_.fusion().exprs();
  if (id >= groupOf_.size() || exprs[id].get() != expr) return -1;
  return groupOf_[id];
}

void GroupMerger::setGroupOf(const ir::Expr* expr, int group) {
  const auto id = static_cast<size_t>(expr->id());
  FL_ASSERT(id < groupOf_.size() && index_.fusion().exprs()[id].get() == expr, expr->toString(),
            " is not an expr of the fusion being segmented");
  groupOf_[id] = group;
}

const std::string& GroupMerger::summary(int slot) const {
  summaries_.resize(groups_.size());
  std::string& text = summaries_[slot];
  if (text.empty()) text = groupSummary(groups_[slot].exprs);
  return text;
}

int GroupMerger::firstPosition(int group) const {
  if (firstPositions_.size() < groups_.size()) {
    const size_t known = firstPositions_.size();
    firstPositions_.resize(groups_.size());
    for (size_t g = known; g < groups_.size(); ++g) {
      firstPositions_[g] = index_.position(groups_[g].exprs.front());
    }
  }
  return firstPositions_[group];
}

void GroupMerger::sortByPosition(std::vector<int>& groups) const {
  std::sort(groups.begin(), groups.end(),
            [this](int a, int b) { return firstPosition(a) < firstPosition(b); });
}

std::vector<int> GroupMerger::aliveInOrder() const {
  // Sorted by (first position, slot) pairs: no lookups in the comparisons.
  std::vector<std::pair<int, int>> keyed;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].alive) {
      keyed.emplace_back(firstPosition(static_cast<int>(g)), static_cast<int>(g));
    }
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> alive;
  alive.reserve(keyed.size());
  for (const auto& [position, g] : keyed) alive.push_back(g);
  return alive;
}

std::vector<int> GroupMerger::producers(int group, bool throughOutputs) const {
  std::vector<int> out;
  for (const ir::Expr* expr : groups_[group].exprs) {
    for (const ir::Val* in : expr->inputs()) {
      const ir::Expr* def = in->definition();
      if (def == nullptr || (!throughOutputs && in->isFusionOutput())) continue;
      const int g = groupOf(def);
      if (g >= 0 && g != group) out.push_back(g);
    }
  }
  dedup(out);
  sortByPosition(out);
  return out;
}

std::vector<int> GroupMerger::consumers(int group, bool throughOutputs) const {
  std::vector<int> out;
  for (const ir::Expr* expr : groups_[group].exprs) {
    for (const ir::Val* o : expr->outputs()) {
      if (!throughOutputs && o->isFusionOutput()) continue;
      for (const ir::Expr* use : o->uses()) {
        const int g = groupOf(use);
        if (g >= 0 && g != group) out.push_back(g);
      }
    }
  }
  dedup(out);
  sortByPosition(out);
  return out;
}

// As nvFuser's mergeLevel, level merges do not go through fusion outputs:
// merging there saves one pass over memory at best (the output is written
// anyway), so it is left to the final merge.
const std::vector<int>& GroupMerger::neighbours(int group) const {
  neighboursCache_.resize(groups_.size());
  std::optional<std::vector<int>>& cached = neighboursCache_[group];
  if (!cached) {
    std::vector<int> out = producers(group, /*throughOutputs=*/false);
    for (int c : consumers(group, /*throughOutputs=*/false)) out.push_back(c);
    cached = std::move(out);
  }
  return *cached;
}

std::vector<int> GroupMerger::levels() const {
  // One more than the highest level among a group's producers (through
  // fusion outputs too); the order producers() would list them in does not
  // matter for a maximum, so they are read straight off the exprs.
  std::vector<int> level(groups_.size(), -1);
  struct Compute {
    const GroupMerger& merger;
    std::vector<int>& level;
    int operator()(int g) const {
      if (level[g] >= 0) return level[g];
      int l = 0;
      for (const ir::Expr* expr : merger.groups_[g].exprs) {
        for (const ir::Val* in : expr->inputs()) {
          const ir::Expr* def = in->definition();
          if (def == nullptr) continue;
          const int p = merger.groupOf(def);
          if (p >= 0 && p != g) l = std::max(l, (*this)(p) + 1);
        }
      }
      return level[g] = l;
    }
  };
  const Compute compute{*this, level};
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].alive) compute(static_cast<int>(g));
  }
  return level;
}

bool GroupMerger::reaches(int from, int target, int skipDirect) const {
  consumersCache_.resize(groups_.size());
  auto cachedConsumers = [&](int g) -> const std::vector<int>& {
    if (!consumersCache_[g]) consumersCache_[g] = consumers(g);
    return *consumersCache_[g];
  };
  // Positions grow along every path: a group whose first expr comes after
  // the target's last one reaches nothing that reaches the target.
  const int targetLast = index_.position(groups_[target].exprs.back());
  std::vector<bool> seen(groups_.size(), false);
  std::vector<int> stack;
  for (int c : cachedConsumers(from)) {
    if (c != skipDirect) stack.push_back(c);
  }
  while (!stack.empty()) {
    int g = stack.back();
    stack.pop_back();
    if (g == target) return true;
    if (seen[g] || firstPosition(g) > targetLast) continue;
    seen[g] = true;
    for (int c : cachedConsumers(g)) stack.push_back(c);
  }
  return false;
}

bool GroupMerger::createsCycle(int a, int b) const { return reaches(a, b, b) || reaches(b, a, a); }

std::vector<int> GroupMerger::mergeCandidates(int group, const std::vector<int>& level,
                                              const std::vector<int>& mergedWith) const {
  auto near = [&](int x, int y) { return std::abs(level[x] - level[y]) <= 1; };
  const std::vector<int> around = neighbours(group);
  // A group next to a merge of this round, within one level, waits for the
  // next round: merging it now could close a cycle with that merge.
  for (int n : around) {
    if (mergedWith[n] < 0) continue;
    if (near(n, group) || near(mergedWith[n], group)) return {};
  }
  std::vector<int> candidates;
  for (int n : around) {
    if (groups_[n].sealed || !near(n, group)) continue;
    bool ok = true;
    for (int nn : neighbours(n)) {
      if (mergedWith[nn] < 0) continue;
      if (near(nn, group) || near(nn, n) || near(mergedWith[nn], group) ||
          near(mergedWith[nn], n)) {
        ok = false;
        break;
      }
    }
    if (ok) candidates.push_back(n);
  }
  return candidates;
}

std::optional<scheduler::SchedulerType> GroupMerger::acceptingScheduler(
    const std::vector<ir::Expr*>& exprs, const std::vector<const CandidateGroup*>& from,
    std::string* failure, std::string* reasons) const {
  std::vector<scheduler::Rejection> rejected;
  std::optional<scheduler::SchedulerType> accepted;
  std::vector<scheduler::SchedulerType> guesses;
  if (context_.guessMergeSchedulers) {
    guesses = likelyAcceptors(from);
    if (context_.pointwiseShortcut && !guesses.empty() &&
        guesses.front() == scheduler::SchedulerType::Pointwise &&
        pointwiseTakesWithoutExtraction(index_, exprs, context_.evaluator)) {
      return scheduler::SchedulerType::Pointwise;
    }
  }
  try {
    SegmentExtraction segment = extractSegment(index_, exprs, /*withCloneMap=*/false);
    SegmentRuntime runtime = makeSegmentRuntime(index_.fusion(), segment, context_);
    if (context_.guessMergeSchedulers) {
      accepted =
          scheduler::findAcceptingScheduler(*segment.fusion, runtime.info, guesses, &rejected);
    } else if (scheduler::canSchedule(*segment.fusion, runtime.info, &rejected)) {
      // The first that accepts in priority order: the one after the refusals.
      accepted = scheduler::registeredSchedulers()[rejected.size()]->type();
    }
    // The reasons are written only when no scheduler accepts.
    if (!accepted) {
      for (auto& rejection : rejected) {
        rejection.reason = segment.toCompleteNames(rejection.reason);
      }
      *reasons = rejectionsSummary(rejected);
    }
  } catch (const UserError& error) {
    *failure = error.message();
    return std::nullopt;
  }
  return accepted;
}

std::optional<scheduler::SchedulerType> GroupMerger::tryMerge(int a, int b, const char* kind,
                                                              int newId,
                                                              std::string* mergedSummary) {
  const CandidateGroup& ga = groups_[a];
  const CandidateGroup& gb = groups_[b];
  // Each group's exprs are in topological order: merging the two lists keeps it.
  std::vector<ir::Expr*> exprs;
  exprs.reserve(ga.exprs.size() + gb.exprs.size());
  std::merge(ga.exprs.begin(), ga.exprs.end(), gb.exprs.begin(), gb.exprs.end(),
             std::back_inserter(exprs), [this](const ir::Expr* x, const ir::Expr* y) {
               return index_.position(x) < index_.position(y);
             });
  // In sequence: the first call sizes summaries_, so the second cannot move
  // the text the first returned.
  const std::string& summaryA = summary(a);
  const std::string& summaryB = summary(b);
  const std::string pair = "group " + std::to_string(ga.id) + " " + summaryA + " and group " +
                           std::to_string(gb.id) + " " + summaryB;
  auto refuse = [&](const std::string& reason) {
    refused_.insert(orderedPair(ga.id, gb.id));
    log_.add(kind, {ga.id, gb.id}, false, reason);
    return std::optional<scheduler::SchedulerType>();
  };
  if (createsCycle(a, b)) {
    return refuse("merging " + pair +
                  " would create a cycle: another segment lies on a path "
                  "between them");
  }
  std::string failure;
  std::string reasons;
  const std::optional<scheduler::SchedulerType> accepted =
      acceptingScheduler(exprs, {&ga, &gb}, &failure, &reasons);
  if (!failure.empty()) return refuse("merging " + pair + " failed: " + failure);
  *mergedSummary = groupSummary(exprs);
  if (!accepted) {
    return refuse("no scheduler accepts " + *mergedSummary + " (" + pair + "): " + reasons);
  }
  log_.add(kind, {ga.id, gb.id}, true,
           pair + " merge into group " + std::to_string(newId) + " " + *mergedSummary +
               ", which a scheduler accepts");
  return accepted;
}

void GroupMerger::applyMerge(int a, int b, scheduler::SchedulerType acceptedBy,
                             std::string summary) {
  applyMerge(std::vector<int>{a, b}, acceptedBy, std::move(summary));
}

void GroupMerger::applyMerge(const std::vector<int>& slots, scheduler::SchedulerType acceptedBy,
                             std::string summary) {
  CandidateGroup merged;
  merged.id = nextId_++;
  merged.acceptedBy = acceptedBy;
  for (int g : slots) {
    merged.exprs.insert(merged.exprs.end(), groups_[g].exprs.begin(), groups_[g].exprs.end());
    groups_[g].alive = false;
  }
  index_.sortTopologically(merged.exprs);
  consumersCache_.clear();
  neighboursCache_.clear();
  const int slot = static_cast<int>(groups_.size());
  for (const ir::Expr* expr : merged.exprs) setGroupOf(expr, slot);
  groups_.push_back(std::move(merged));
  summaries_.resize(groups_.size());
  summaries_[slot] = std::move(summary);
}

// A region: the unsealed groups connected through producer/consumer edges
// that do not pass through a sealed group (a segment_set, a library call).
// No merge ever joins two regions, so the merges can at best make each region
// one group; when a scheduler takes the region as one group, that is the
// outcome with the fewest segments, found with one try instead of one per
// merge. Tried only where the fusion has more than one region or a sealed
// group: otherwise the region is the whole fusion, which tryWholeFusion
// already offered the schedulers.
std::vector<std::vector<int>> GroupMerger::regions() const {
  std::vector<int> root(groups_.size());
  for (size_t g = 0; g < root.size(); ++g) root[g] = static_cast<int>(g);
  std::function<int(int)> find = [&](int g) {
    while (root[g] != g) g = root[g] = root[root[g]];
    return g;
  };
  const std::vector<int> alive = aliveInOrder();
  bool anySealed = false;
  for (int g : alive) {
    if (groups_[g].sealed) {
      anySealed = true;
      continue;
    }
    for (int p : producers(g)) {
      if (!groups_[p].sealed) root[find(p)] = find(g);
    }
  }
  std::vector<std::vector<int>> out;
  std::vector<int> regionOf(groups_.size(), -1);
  for (int g : alive) {
    if (groups_[g].sealed) continue;
    int& r = regionOf[find(g)];
    if (r < 0) {
      r = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[r].push_back(g);
  }
  if (!anySealed && out.size() <= 1) return {};
  return out;
}

bool GroupMerger::regionCreatesCycle(const std::vector<int>& region) const {
  std::vector<bool> inRegion(groups_.size(), false);
  for (int g : region) inRegion[g] = true;
  std::vector<bool> seen(groups_.size(), false);
  std::vector<int> stack;
  for (int g : region) {
    for (int c : consumers(g)) {
      if (!inRegion[c]) stack.push_back(c);
    }
  }
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    if (inRegion[g]) return true;
    if (seen[g]) continue;
    seen[g] = true;
    for (int c : consumers(g)) stack.push_back(c);
  }
  return false;
}

void GroupMerger::mergeRegions() {
  for (const std::vector<int>& region : regions()) {
    if (region.size() < 2) continue;
    std::vector<ir::Expr*> exprs;
    std::vector<int> ids;
    std::vector<const CandidateGroup*> from;
    for (int g : region) {
      exprs.insert(exprs.end(), groups_[g].exprs.begin(), groups_[g].exprs.end());
      ids.push_back(groups_[g].id);
      from.push_back(&groups_[g]);
    }
    index_.sortTopologically(exprs);
    std::string regionSummary = groupSummary(exprs);
    const std::string what = "the region of groups " + regionSummary + " between segment cuts";
    const std::string fallback = "; its groups are merged level by level";
    if (regionCreatesCycle(region)) {
      log_.add("region", ids, false,
               "merging " + what +
                   " into one group would create a cycle: a segment outside "
                   "it lies on a path between two of its groups" +
                   fallback);
      continue;
    }
    std::string failure;
    std::string reasons;
    const std::optional<scheduler::SchedulerType> accepted =
        acceptingScheduler(exprs, from, &failure, &reasons);
    if (!accepted) {
      log_.add("region", ids, false,
               (failure.empty() ? "no scheduler accepts " + what + " as one group: " + reasons
                                : "merging " + what + " into one group failed: " + failure) +
                   fallback);
      continue;
    }
    log_.add("region", ids, true,
             what + " merges into group " + std::to_string(nextId_) +
                 ", which a scheduler accepts: none of its merges is tried");
    applyMerge(region, *accepted, std::move(regionSummary));
  }
}

void GroupMerger::mergeLevels() {
  while (true) {
    const std::vector<int> level = levels();
    std::vector<int> mergedWith(groups_.size(), -1);
    struct Pair {
      int a, b;
      scheduler::SchedulerType acceptedBy;
      std::string summary;
    };
    std::vector<Pair> pairs;
    for (int g : aliveInOrder()) {
      if (mergedWith[g] >= 0 || groups_[g].sealed) continue;
      for (int c : mergeCandidates(g, level, mergedWith)) {
        if (refused_.count(orderedPair(groups_[g].id, groups_[c].id))) continue;
        const int newId = nextId_ + static_cast<int>(pairs.size());
        std::string merged;
        if (auto acceptedBy = tryMerge(g, c, "merge", newId, &merged)) {
          mergedWith[g] = c;
          mergedWith[c] = g;
          pairs.push_back({g, c, *acceptedBy, std::move(merged)});
          break;
        }
      }
    }
    if (pairs.empty()) return;
    for (Pair& pair : pairs) {
      applyMerge(pair.a, pair.b, pair.acceptedBy, std::move(pair.summary));
    }
  }
}

void GroupMerger::finalMerge() {
  bool merged = true;
  while (merged) {
    merged = false;
    for (int p : aliveInOrder()) {
      if (groups_[p].sealed) continue;
      for (int c : consumers(p)) {
        if (groups_[c].sealed || refused_.count(orderedPair(groups_[p].id, groups_[c].id))) {
          continue;
        }
        std::string summary;
        if (auto acceptedBy = tryMerge(p, c, "final_merge", nextId_, &summary)) {
          applyMerge(p, c, *acceptedBy, std::move(summary));
          merged = true;
          break;
        }
      }
      if (merged) break;
    }
  }
}

std::vector<CandidateGroup> GroupMerger::groups() const {
  std::vector<CandidateGroup> out;
  for (int g : aliveInOrder()) out.push_back(groups_[g]);
  return out;
}

}  // namespace fuserlab::segmenter
