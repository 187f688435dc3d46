#include "core/segmenter/segmenter.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "core/ir/error.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/matmul/epilogue_matcher.h"
#include "core/scheduler/registry.h"
#include "core/segmenter/decision_log.h"
#include "core/segmenter/group_merger.h"
#include "core/segmenter/input_forwarding.h"
#include "core/segmenter/segment_extraction.h"
#include "core/segmenter/upcast_privatization.h"

namespace fuserlab::segmenter {
namespace {

using ir::Expr;

std::string schedulerName(scheduler::SchedulerType type) {
  return std::string(scheduler::toString(type));
}

// The whole fusion as one segment, if a scheduler takes it.
bool tryWholeFusion(SegmentedFusion& result, const CompleteFusionIndex& index,
                    const SegmenterContext& context, const DecisionLog& log) {
  for (const Expr* expr : index.exprs()) {
    if (expr->type() == ir::ExprType::SegmentSet) {
      log.add("whole_fusion", {}, false,
              "the fusion contains " + exprSummary(*expr) +
                  ", and a segment_set always cuts: the fusion is segmented");
      return false;
    }
  }
  std::vector<scheduler::Rejection> rejected;
  std::optional<scheduler::SchedulerChoice> choice;
  SegmentExtraction segment;
  try {
    segment = extractWholeFusion(index);
    SegmentRuntime runtime =
        makeSegmentRuntime(result.complete(), segment, context);
    choice = scheduler::chooseScheduler(*segment.fusion, runtime.info,
                                        context.provider, &rejected);
  } catch (const UserError& error) {
    log.add("whole_fusion", {}, false,
            "the whole fusion could not be scheduled: " + error.message());
    return false;
  }
  if (!choice) {
    for (auto& rejection : rejected) {
      rejection.reason = segment.toCompleteNames(rejection.reason);
    }
    log.add("whole_fusion", {}, false,
            "no scheduler takes the whole fusion as one segment: " +
                rejectionsSummary(rejected));
    return false;
  }
  renameToComplete(segment, *choice);
  log.add("whole_fusion", {0}, true,
          schedulerName(choice->type) +
              " takes the whole fusion as one segment");
  log.add("schedule", {0}, true,
          "segment 0 (the whole fusion): " + schedulerName(choice->type) +
              (choice->rejected.empty()
                   ? std::string()
                   : "; refused first by " + rejectionsSummary(choice->rejected)));
  SegmentedGroup group;
  group.id = 0;
  group.exprs = index.exprs();
  group.inputs = segment.inputs;
  group.outputs = segment.outputs;
  group.choice = std::move(*choice);
  group.segment = std::move(segment.fusion);
  group.toSegment = std::move(segment.toSegment);
  result.groups().push_back(std::move(group));
  return true;
}

std::string unschedulableMessage(const CandidateGroup& group,
                                 const std::vector<scheduler::Rejection>& rejected) {
  std::string what = group.exprs.size() == 1
                         ? exprSummary(*group.exprs.front()) + " on its own"
                         : "the segment " + groupSummary(group.exprs);
  return "no scheduler can run " + what + ": " + rejectionsSummary(rejected) +
         ". Rewrite the op, or give the fusion inputs a shape or layout "
         "that one of these schedulers accepts";
}

// Whether a scheduler takes `exprs` as one segment.
bool schedulable(const SegmentedFusion& result, const CompleteFusionIndex& index,
                 const std::vector<Expr*>& exprs, const SegmenterContext& context) {
  SegmentExtraction segment = extractSegment(index, exprs);
  SegmentRuntime runtime = makeSegmentRuntime(result.complete(), segment, context);
  return scheduler::canSchedule(*segment.fusion, runtime.info);
}

// A merged group that no scheduler takes once the merge's last steps
// changed it (upcasts reverted, forwarded chains replicated: a cast moved
// next to a gather of its result) is cut into runs of its exprs in
// topological order, each as long as a scheduler takes it. Contiguous runs
// of a group that had no path out and back in have none either, so the
// segments stay acyclic.
std::vector<CandidateGroup> splitIntoRuns(const SegmentedFusion& result,
                                          const CompleteFusionIndex& index,
                                          const CandidateGroup& group,
                                          const SegmenterContext& context) {
  std::vector<CandidateGroup> runs;
  CandidateGroup current = group;
  current.exprs = {group.exprs.front()};
  for (size_t k = 1; k < group.exprs.size(); ++k) {
    std::vector<Expr*> longer = current.exprs;
    longer.push_back(group.exprs[k]);
    if (schedulable(result, index, longer, context)) {
      current.exprs = std::move(longer);
      continue;
    }
    runs.push_back(current);
    current.exprs = {group.exprs[k]};
  }
  runs.push_back(std::move(current));
  // A run that nothing outside reads (a forwarded cast, which each reader
  // recomputes) would be a segment without outputs.
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [&](const CandidateGroup& run) {
                              return runs.size() > 1 &&
                                     extractSegment(index, run.exprs).outputs.empty();
                            }),
             runs.end());
  return runs;
}

// Schedules each group and fills the SegmentedFusion's groups and edges.
void finalizeGroups(SegmentedFusion& result, const CompleteFusionIndex& index,
                    std::vector<CandidateGroup>& groups,
                    const SegmenterContext& context, const DecisionLog& log) {
  for (auto& group : groups) index.sortTopologically(group.exprs);
  auto byFirstExpr = [&] {
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const CandidateGroup& a, const CandidateGroup& b) {
                       return index.position(a.exprs.front()) <
                              index.position(b.exprs.front());
                     });
  };
  byFirstExpr();
  for (size_t i = 0; i < groups.size(); ++i) {
    const CandidateGroup& candidate = groups[i];
    SegmentExtraction segment = extractSegment(index, candidate.exprs);
    SegmentRuntime runtime =
        makeSegmentRuntime(result.complete(), segment, context);
    std::vector<scheduler::Rejection> rejected;
    auto choice = scheduler::chooseScheduler(*segment.fusion, runtime.info,
                                             context.provider, &rejected);
    if (!choice && candidate.exprs.size() > 1) {
      std::vector<CandidateGroup> runs = splitIntoRuns(result, index, candidate, context);
      log.add("split", {candidate.id}, true,
              "no scheduler takes group " + std::to_string(candidate.id) + " " +
                  groupSummary(candidate.exprs) + " as it ended up (" +
                  rejectionsSummary(rejected) + "): cut into " +
                  std::to_string(runs.size()) + " runs a scheduler takes");
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(i));
      groups.insert(groups.end(), runs.begin(), runs.end());
      byFirstExpr();
      result.groups().clear();
      i = static_cast<size_t>(-1);  // schedule again from the first group
      continue;
    }
    if (!choice) {
      for (auto& rejection : rejected) {
        rejection.reason = segment.toCompleteNames(rejection.reason);
      }
      FL_USER_ERROR(unschedulableMessage(candidate, rejected));
    }
    renameToComplete(segment, *choice);
    const int id = static_cast<int>(i);
    log.add("schedule", {id}, true,
            "segment " + std::to_string(id) + " (group " +
                std::to_string(candidate.id) + " " +
                groupSummary(candidate.exprs) + "): " +
                schedulerName(choice->type) +
                (choice->rejected.empty()
                     ? std::string()
                     : "; refused first by " +
                           rejectionsSummary(choice->rejected)));

    SegmentedGroup group;
    group.id = id;
    group.exprs = candidate.exprs;
    for (Expr* expr : segment.scalarExprs) {
      if (index.isLive(expr)) group.exprs.push_back(expr);
    }
    index.sortTopologically(group.exprs);
    group.inputs = segment.inputs;
    group.outputs = segment.outputs;
    group.choice = std::move(*choice);
    group.segment = std::move(segment.fusion);
    group.toSegment = std::move(segment.toSegment);
    result.groups().push_back(std::move(group));
  }

  // Edges: each input of a group that another group produces.
  const auto& segments = result.groups();
  for (const SegmentedGroup& to : segments) {
    for (ir::Val* val : to.inputs) {
      for (const SegmentedGroup& from : segments) {
        if (from.id == to.id) continue;
        if (std::find(from.outputs.begin(), from.outputs.end(), val) !=
            from.outputs.end()) {
          result.edges().push_back({from.id, to.id, val});
          break;
        }
      }
    }
  }
  std::stable_sort(result.edges().begin(), result.edges().end(),
                   [](const SegmentedEdge& a, const SegmentedEdge& b) {
                     return std::make_pair(a.from, a.to) <
                            std::make_pair(b.from, b.to);
                   });
}

// Each library call with the epilogue it fuses (a matmul or linear and what
// the epilogue matcher merges; an sdpfa_fwd alone), and each op without a
// GPU kernel alone, in expr order. With a log, records the matcher's every
// step ("matmul_epilogue"), each sdpfa_fwd's segment of its own
// ("library_call") and each op without a kernel ("cpu_reference_only").
std::vector<std::vector<Expr*>> libraryGroups(const CompleteFusionIndex& index,
                                              const DecisionLog* log) {
  std::vector<std::vector<Expr*>> groups;
  for (Expr* expr : index.exprs()) {
    if (expr->type() == ir::ExprType::Sdpa) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("library_call", {}, true,
                 exprSummary(*expr) + " runs in a segment of its own, never "
                 "merged with other ops");
      }
      continue;
    }
    if (scheduler::isCpuReferenceOnly(expr->type())) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("cpu_reference_only", {}, true,
                 exprSummary(*expr) + " has no GPU kernel in FuserLab yet: "
                 "it is a segment of its own, never merged, which runs on the "
                 "CPU reference backend and which the cuda backend refuses");
      }
      continue;
    }
    if (expr->type() != ir::ExprType::Matmul && expr->type() != ir::ExprType::Linear) {
      continue;
    }
    const scheduler::MatmulMatch match =
        scheduler::matchMatmulEpilogue(index.fusion(), *expr);
    std::vector<Expr*> group;
    for (const Expr* merged : match.exprs) {
      for (Expr* live : index.exprs()) {
        if (live == merged) group.push_back(live);
      }
    }
    groups.push_back(std::move(group));
    if (log == nullptr) continue;
    for (const scheduler::EpilogueStep& step : match.steps) {
      log->add("matmul_epilogue", {}, step.merged,
               exprSummary(*expr) + ": " + step.what + ": " + step.reason);
    }
    log->add("matmul_epilogue", {}, true,
             exprSummary(*expr) + " runs as one cuBLASLt call with epilogue " +
                 match.epilogue + ", writing " + match.output->name() + " (" +
                 std::string(ir::toString(match.outputDtype)) + ")");
  }
  return groups;
}

}  // namespace

SegmentedFusion segmentFusion(std::unique_ptr<ir::Fusion> fusion,
                              const SegmenterContext& context,
                              std::vector<SegmenterDecision>* logSink) {
  FL_ASSERT(fusion != nullptr, "segmentFusion needs a fusion");
  FL_ASSERT(context.device != nullptr, "segmentFusion needs a device");
  const DecisionLog log(logSink);
  SegmentedFusion result(std::move(fusion));
  ir::Fusion& complete = result.complete();
  // One index while the fusion is unchanged: only privatizing upcasts and
  // reverting them change it (both only when there are upcasts to privatize).
  auto index = std::make_unique<CompleteFusionIndex>(complete);
  libraryGroups(*index, &log);
  if (tryWholeFusion(result, *index, context, log)) return result;

  const bool privatize = context.upcast == passes::UpcastStrategy::Privatize;
  // Library calls with their epilogues, before privatization: an upcast
  // inside a call's epilogue stays one cast (cuBLASLt computes it).
  const std::vector<std::vector<Expr*>> library = libraryGroups(*index, nullptr);
  std::unordered_set<const Expr*> inLibraryCalls;
  for (const auto& group : library) inLibraryCalls.insert(group.begin(), group.end());
  std::vector<PrivatizedUpcast> upcasts;
  if (privatize) upcasts = privatizeUpcasts(complete, log, inLibraryCalls);
  if (!upcasts.empty()) index = std::make_unique<CompleteFusionIndex>(complete);

  std::vector<ForwardedChain> chains;
  std::vector<CandidateGroup> groups;
  {
    if (!privatize) {
      chains = findForwardedChains(*index, log);
      index->setReplicated(forwardedExprs(chains));
    }
    GroupMerger merger(*index, context, log, library);
    merger.mergeRegions();
    merger.mergeLevels();
    merger.finalMerge();
    groups = merger.groups();
  }
  if (!upcasts.empty()) {
    revertPrivatizedUpcasts(complete, upcasts, groups, log);
    index = std::make_unique<CompleteFusionIndex>(complete);
  }
  if (!chains.empty()) {
    index->setReplicated(forwardedExprs(chains));
    replicateForwardedChains(*index, chains, groups, log);
  }
  finalizeGroups(result, *index, groups, context, log);
  return result;
}

}  // namespace fuserlab::segmenter
