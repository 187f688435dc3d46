#include "core/segmenter/segmenter.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "core/ir/error.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/matmul/epilogue_matcher.h"
#include "core/scheduler/pointwise/sort_segment.h"
#include "core/scheduler/registry.h"
#include "core/segmenter/decision_log.h"
#include "core/segmenter/edge_recompute.h"
#include "core/segmenter/group_merger.h"
#include "core/segmenter/input_forwarding.h"
#include "core/segmenter/segment_extraction.h"
#include "core/segmenter/sibling_reductions.h"
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
    SegmentRuntime runtime = makeSegmentRuntime(result.complete(), segment, context);
    choice = scheduler::chooseScheduler(*segment.fusion, runtime.info, context.provider, &rejected);
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
            "no scheduler takes the whole fusion as one segment: " + rejectionsSummary(rejected));
    return false;
  }
  renameToComplete(segment, *choice);
  log.add("whole_fusion", {0}, true,
          schedulerName(choice->type) + " takes the whole fusion as one segment");
  log.add(
      "schedule", {0}, true,
      "segment 0 (the whole fusion): " + schedulerName(choice->type) +
          (choice->rejected.empty() ? std::string()
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
  std::string what = group.exprs.size() == 1 ? exprSummary(*group.exprs.front()) + " on its own"
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

// Replicates the forwarded chains into the groups that read them. A chain
// whose copy leaves a reader that no scheduler takes (a cast forwarded next
// to a gather of its result: the gather's source is not indexed from the
// gathered output; the differential tester's seed 101071) is not forwarded
// at all: it becomes a group of its own, whose output its readers read.
void replicateOrMaterialize(const SegmentedFusion& result, CompleteFusionIndex& index,
                            std::vector<ForwardedChain>& chains,
                            std::vector<CandidateGroup>& groups, const SegmenterContext& context,
                            const DecisionLog& log) {
  const std::vector<CandidateGroup> merged = groups;
  std::vector<CandidateGroup> materialized;
  int nextId = 0;
  for (const CandidateGroup& group : merged) nextId = std::max(nextId, group.id + 1);
  while (true) {
    groups = merged;
    groups.insert(groups.end(), materialized.begin(), materialized.end());
    const auto forwarded = forwardedExprs(chains);
    index.setReplicated(forwarded);
    if (chains.empty()) return;
    std::vector<std::vector<Expr*>> before;
    for (const CandidateGroup& group : groups) before.push_back(group.exprs);
    replicateForwardedChains(index, chains, groups, log);
    std::optional<size_t> refused;
    for (size_t g = 0; g < groups.size() && !refused; ++g) {
      if (groups[g].exprs.size() != before[g].size() &&
          !schedulable(result, index, groups[g].exprs, context)) {
        refused = g;
      }
    }
    if (!refused) return;
    const CandidateGroup& reader = groups[*refused];
    for (size_t c = 0; c < chains.size();) {
      const auto& exprs = chains[c].exprs;
      const bool received = std::any_of(exprs.begin(), exprs.end(), [&](const Expr* e) {
        return std::find(reader.exprs.begin(), reader.exprs.end(), e) != reader.exprs.end();
      });
      if (!received) {
        ++c;
        continue;
      }
      CandidateGroup own;
      own.id = nextId++;
      own.exprs = exprs;
      index.sortTopologically(own.exprs);
      log.add("forward", {reader.id, own.id}, false,
              "not forwarding the chain from " + chains[c].input->name() +
                  ": no scheduler takes group " + std::to_string(reader.id) +
                  " with it; it is group " + std::to_string(own.id) + " of its own");
      materialized.push_back(std::move(own));
      chains.erase(chains.begin() + static_cast<std::ptrdiff_t>(c));
    }
  }
}

// Schedules each group and fills the SegmentedFusion's groups and edges.
void finalizeGroups(SegmentedFusion& result, const CompleteFusionIndex& index,
                    std::vector<CandidateGroup>& groups, const SegmenterContext& context,
                    const DecisionLog& log) {
  for (auto& group : groups) index.sortTopologically(group.exprs);
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const CandidateGroup& a, const CandidateGroup& b) {
                     return index.position(a.exprs.front()) < index.position(b.exprs.front());
                   });
  for (size_t i = 0; i < groups.size(); ++i) {
    const CandidateGroup& candidate = groups[i];
    SegmentExtraction segment = extractSegment(index, candidate.exprs);
    SegmentRuntime runtime = makeSegmentRuntime(result.complete(), segment, context);
    std::vector<scheduler::Rejection> rejected;
    auto choice =
        scheduler::chooseScheduler(*segment.fusion, runtime.info, context.provider, &rejected);
    if (!choice) {
      for (auto& rejection : rejected) {
        rejection.reason = segment.toCompleteNames(rejection.reason);
      }
      FL_USER_ERROR(unschedulableMessage(candidate, rejected));
    }
    renameToComplete(segment, *choice);
    const int id = static_cast<int>(i);
    log.add("schedule", {id}, true,
            "segment " + std::to_string(id) + " (group " + std::to_string(candidate.id) + " " +
                groupSummary(candidate.exprs) + "): " + schedulerName(choice->type) +
                (choice->rejected.empty()
                     ? std::string()
                     : "; refused first by " + rejectionsSummary(choice->rejected)));

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

  // Edges: each input of a group that another group produces. A tensor a
  // group reads that is neither a fusion input nor another group's output
  // would leave the group waiting forever at run time: a segmenter bug,
  // caught here, where every command compiles, not on a GPU.
  const auto& segments = result.groups();
  for (const SegmentedGroup& to : segments) {
    for (ir::Val* val : to.inputs) {
      bool produced = false;
      for (const SegmentedGroup& from : segments) {
        if (from.id == to.id) continue;
        if (std::find(from.outputs.begin(), from.outputs.end(), val) != from.outputs.end()) {
          result.edges().push_back({from.id, to.id, val});
          produced = true;
          break;
        }
      }
      FL_ASSERT(produced || !val->isA<ir::TensorView>() || val->definition() == nullptr, "segment ",
                to.id, " reads ", val->name(),
                ", which no segment produces and which is not a fusion input");
    }
  }
  // And the segments can run in some order (the executor's: a segment runs
  // once every segment it reads from has).
  std::vector<bool> ran(segments.size(), false);
  for (size_t finished = 0; finished < segments.size();) {
    bool progress = false;
    for (size_t g = 0; g < segments.size(); ++g) {
      if (ran[g]) continue;
      bool ready = true;
      for (const SegmentedEdge& edge : result.edges()) {
        ready = ready && !(edge.to == segments[g].id && !ran[static_cast<size_t>(edge.from)]);
      }
      if (!ready) continue;
      ran[g] = true;
      ++finished;
      progress = true;
    }
    FL_ASSERT(progress, "the segments' edges form a cycle");
  }
  std::stable_sort(result.edges().begin(), result.edges().end(),
                   [](const SegmentedEdge& a, const SegmentedEdge& b) {
                     return std::make_pair(a.from, a.to) < std::make_pair(b.from, b.to);
                   });
}

// Each library call with the epilogue it fuses (a matmul or linear and what
// the epilogue matcher merges; an sdpfa_fwd alone), each scan, scatter and
// index_put_accumulate, argsort and topk alone (their kernels run nothing
// else) and each op without a GPU kernel alone, in expr order. With a log,
// records the matcher's every step ("matmul_epilogue"), each sdpfa_fwd's
// segment of its own ("library_call"), each scan's ("scan"), each indexed
// write's ("indexed_write"), each sort's ("sort") and each op without a
// kernel ("cpu_reference_only").
std::vector<std::vector<Expr*>> libraryGroups(const CompleteFusionIndex& index,
                                              const DecisionLog* log) {
  std::vector<std::vector<Expr*>> groups;
  for (Expr* expr : index.exprs()) {
    if (expr->type() == ir::ExprType::Sdpa) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("library_call", {}, true,
                 exprSummary(*expr) +
                     " runs in a segment of its own, never "
                     "merged with other ops");
      }
      continue;
    }
    if (expr->type() == ir::ExprType::Scan) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("scan", {}, true,
                 exprSummary(*expr) +
                     " runs in a segment of its own, never merged with other ops: the "
                     "pointwise scheduler's scan kernel runs it alone");
      }
      continue;
    }
    if (expr->type() == ir::ExprType::Scatter || expr->type() == ir::ExprType::IndexPutAccumulate) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("indexed_write", {}, true,
                 exprSummary(*expr) +
                     " runs in a segment of its own, never merged with other ops: the "
                     "pointwise scheduler's indexed-write kernel runs it alone");
      }
      continue;
    }
    if (scheduler::isSortOp(expr->type())) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("sort", {}, true,
                 exprSummary(*expr) +
                     " runs in a segment of its own, never merged with other ops: the "
                     "pointwise scheduler's sort kernel runs it alone (expr_eval, on the CPU "
                     "reference, a line too long for that kernel)");
      }
      continue;
    }
    if (scheduler::isCpuReferenceOnly(expr->type())) {
      groups.push_back({expr});
      if (log != nullptr) {
        log->add("cpu_reference_only", {}, true,
                 exprSummary(*expr) +
                     " has no GPU kernel in FuserLab yet: "
                     "it is a segment of its own, never merged, which runs on the "
                     "CPU reference backend and which the cuda backend refuses");
      }
      continue;
    }
    if (expr->type() != ir::ExprType::Matmul && expr->type() != ir::ExprType::Linear) {
      continue;
    }
    const scheduler::MatmulMatch match = scheduler::matchMatmulEpilogue(index.fusion(), *expr);
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
             exprSummary(*expr) + " runs as one cuBLASLt call with epilogue " + match.epilogue +
                 ", writing " + match.output->name() + " (" +
                 std::string(ir::toString(match.outputDtype)) + ")");
  }
  return groups;
}

}  // namespace

SegmentedFusion segmentFusion(std::unique_ptr<ir::Fusion> fusion, const SegmenterContext& context,
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

  const bool privatize = context.upcast == UpcastStrategy::Privatize;
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
  if (!chains.empty()) replicateOrMaterialize(result, *index, chains, groups, context, log);
  const GroupSchedulable takes = [&](const std::vector<Expr*>& exprs) {
    return schedulable(result, *index, exprs, context);
  };
  recomputeInputDerivedEdges(*index, groups, context, takes, log);
  mergeSiblingReductions(*index, groups, takes, log);
  finalizeGroups(result, *index, groups, context, log);
  return result;
}

}  // namespace fuserlab::segmenter
