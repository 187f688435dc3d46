// GroupMerger: nvFuser's segment candidate finder. It starts from one group
// per tensor expr (forwarded exprs excepted; a segment_set is a group of its
// own that never merges, and so is a library call with the epilogue it fuses)
// and merges producer/consumer neighbours:
//   - mergeRegions: each region (groups connected without passing through a
//     sealed group) offered to the schedulers as one group, when the fusion
//     has more than one region or a sealed group; a region a scheduler takes
//     is one group and its merges are not tried.
//   - mergeLevels: in rounds, as nvFuser's mergeLevel. Groups get topological
//     levels; each unmerged group tries its neighbours one level away, unless
//     a neighbour (or a neighbour's neighbour) already merged this round
//     within one level, which keeps the round's merges from closing a cycle;
//     a try is accepted when the graph stays acyclic and scheduler::canSchedule
//     accepts the merged group. Rounds repeat until none merges. As in
//     nvFuser, level merges do not go through fusion outputs.
//   - finalMerge: every remaining producer/consumer pair, one merge at a time.
// Every try is logged ("region" / "merge" / "final_merge") with its outcome and reason;
// a refused pair is not tried again while neither group changes.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/segmenter/decision_log.h"
#include "core/segmenter/segment_extraction.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::segmenter {

//! A group of exprs while segmenting. Ids are unique over a run: a merge
//! makes a new group with a new id.
struct CandidateGroup {
  int id = 0;
  //! Exprs of the complete fusion in topological order.
  std::vector<ir::Expr*> exprs;
  bool segmentSet = false;
  //! Never merges: a segment_set, or a library call with its epilogue.
  bool sealed = false;
  bool alive = true;
  //! A scheduler that accepted the group when it was merged (not
  //! necessarily the one it ends with); a single expr's group has none. The
  //! merger asks it first about the group's next merges: a right guess
  //! spares asking the others, and the answer is the same either way.
  std::optional<scheduler::SchedulerType> acceptedBy;
};

class GroupMerger {
 public:
  //! One sealed group per entry of `libraryGroups` (a library call and the
  //! epilogue it fuses, replicated exprs left out), then one group per other
  //! tensor expr of `index` that is not replicated; logs a "segment_set"
  //! decision for each segment_set.
  GroupMerger(const CompleteFusionIndex& index, const SegmenterContext& context,
              const DecisionLog& log,
              const std::vector<std::vector<ir::Expr*>>& libraryGroups = {});

  void mergeRegions();
  void mergeLevels();
  void finalMerge();

  //! The remaining groups, ordered by their first expr.
  std::vector<CandidateGroup> groups() const;

 private:
  std::vector<int> aliveInOrder() const;
  //! Neighbour groups; `throughOutputs` false ignores connections made
  //! only of fusion outputs.
  std::vector<int> producers(int group, bool throughOutputs = true) const;
  std::vector<int> consumers(int group, bool throughOutputs = true) const;
  //! Cached until the next merge.
  const std::vector<int>& neighbours(int group) const;
  std::vector<int> levels() const;
  //! A path between the two groups through a third one.
  bool createsCycle(int a, int b) const;
  bool reaches(int from, int target, int skipDirect) const;
  std::vector<int> mergeCandidates(int group, const std::vector<int>& level,
                                   const std::vector<int>& mergedWith) const;
  //! Tries merging `a` and `b` (logged as `kind`); `newId` names the merged
  //! group in the log. On acceptance, a scheduler that accepts the merged
  //! group (for applyMerge).
  //! `mergedSummary` receives groupSummary of the merged exprs (the log's
  //! name for the merged group, kept by applyMerge).
  std::optional<scheduler::SchedulerType> tryMerge(int a, int b, const char* kind, int newId,
                                                   std::string* mergedSummary);
  void applyMerge(int a, int b, scheduler::SchedulerType acceptedBy, std::string summary);
  void applyMerge(const std::vector<int>& slots, scheduler::SchedulerType acceptedBy,
                  std::string summary);
  //! Extracts `exprs` (the groups `from`, merged) and asks the schedulers,
  //! those that took `from` first. A scheduler that accepts; otherwise
  //! nullopt with `reasons` (each scheduler's refusal) or `failure` (the
  //! error that the extraction or a check raised) set.
  std::optional<scheduler::SchedulerType> acceptingScheduler(
      const std::vector<ir::Expr*>& exprs, const std::vector<const CandidateGroup*>& from,
      std::string* failure, std::string* reasons) const;
  //! The regions mergeRegions tries (slots in order of first expr), or none.
  std::vector<std::vector<int>> regions() const;
  //! A path from the region through another group back into it.
  bool regionCreatesCycle(const std::vector<int>& region) const;
  //! The slot in groups_ of the live group holding `expr`; -1 for none.
  int groupOf(const ir::Expr* expr) const;
  void setGroupOf(const ir::Expr* expr, int group);
  //! The position of the group's first expr (groups never change their
  //! exprs: a merge makes a new group), memoized in firstPositions_.
  int firstPosition(int group) const;
  //! groupSummary of the group in `slot`, made once per group.
  const std::string& summary(int slot) const;
  void sortByPosition(std::vector<int>& groups) const;

  const CompleteFusionIndex& index_;
  const SegmenterContext& context_;
  const DecisionLog& log_;
  std::vector<CandidateGroup> groups_;
  //! By expr id of the complete fusion: the index into groups_ of the live
  //! group holding the expr, -1 for none.
  std::vector<int> groupOf_;
  std::set<std::pair<int, int>> refused_;  //!< by group ids, smaller first
  int nextId_ = 0;
  //! consumers(g) per slot of groups_, filled as the cycle checks ask for
  //! them and dropped by applyMerge (the only change to the group graph).
  mutable std::vector<std::optional<std::vector<int>>> consumersCache_;
  //! summary(g) per slot of groups_ (empty: not made yet).
  mutable std::vector<std::string> summaries_;
  //! neighbours(g) per slot of groups_, dropped by applyMerge likewise.
  mutable std::vector<std::optional<std::vector<int>>> neighboursCache_;
  mutable std::vector<int> firstPositions_;
};

}  // namespace fuserlab::segmenter
