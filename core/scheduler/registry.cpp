#include "core/scheduler/registry.h"

#include <memory>

#include "core/ir/error.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/communication/communication_scheduler.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/expr_eval/expr_eval_scheduler.h"
#include "core/scheduler/matmul/matmul_scheduler.h"
#include "core/scheduler/no_op/no_op_scheduler.h"

// The kernel schedulers. Defining FUSERLAB_REGISTRY_BUILTIN_ONLY builds the
// registry with no_op and expr_eval alone: only for testing the registry
// without them (tests/scheduler/test_registry.cpp's expectations hold both
// ways); every build target compiles the full registry.
#ifndef FUSERLAB_REGISTRY_BUILTIN_ONLY
#include "core/scheduler/persistent/inner_persistent_scheduler.h"
#include "core/scheduler/persistent/outer_persistent_scheduler.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"
#include "core/scheduler/pointwise/pointwise_scheduler.h"
#include "core/scheduler/pointwise/scan_segment.h"
#include "core/scheduler/pointwise/scatter_segment.h"
#include "core/scheduler/pointwise/sort_segment.h"
#include "core/scheduler/reduction/reduction_scheduler.h"
#include "core/scheduler/transpose/transpose_scheduler.h"
#endif

namespace fuserlab::scheduler {
namespace {

// nullptr where no scheduler of the type exists.
std::unique_ptr<Scheduler> makeScheduler(SchedulerType type) {
  switch (type) {
    case SchedulerType::NoOp: return std::make_unique<NoOpScheduler>();
    case SchedulerType::ExprEval: return std::make_unique<ExprEvalScheduler>();
#ifndef FUSERLAB_REGISTRY_BUILTIN_ONLY
    case SchedulerType::Reduction: return std::make_unique<ReductionScheduler>();
    case SchedulerType::Transpose: return std::make_unique<TransposeScheduler>();
    case SchedulerType::Pointwise: return std::make_unique<PointwiseScheduler>();
    case SchedulerType::InnerPersistent: return std::make_unique<InnerPersistentScheduler>();
    case SchedulerType::OuterPersistent: return std::make_unique<OuterPersistentScheduler>();
#else
    case SchedulerType::Reduction:
    case SchedulerType::Transpose:
    case SchedulerType::Pointwise:
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent: return nullptr;
#endif
    // Library calls (cuBLASLt with a fused epilogue, the attention kernel):
    // part of the built-in set, as every build runs matmul and sdpa.
    case SchedulerType::Matmul: return std::make_unique<MatmulScheduler>();
    // Multi-GPU collectives: part of the built-in set, since a resharding
    // segment has no other taker.
    case SchedulerType::Communication: return std::make_unique<CommunicationScheduler>();
  }
  return nullptr;
}

struct Registry {
  std::vector<std::unique_ptr<Scheduler>> owned;
  std::vector<const Scheduler*> inPriorityOrder;
};

const Registry& registry() {
  // Never destroyed: a compile on a worker thread (the workbench's pool) may
  // still be choosing a scheduler while the process exits, after the exit
  // handlers would have freed a static registry (ASan: heap-use-after-free
  // in chooseScheduler at the end of test_gui_exports).
  static const Registry* const instance = new Registry([] {
    Registry r;
    for (SchedulerType type : schedulerPriority()) {
      std::unique_ptr<Scheduler> scheduler = makeScheduler(type);
      if (scheduler == nullptr) continue;
      FL_ASSERT(scheduler->type() == type, "the ", toString(type),
                " entry of the registry reports type ", toString(scheduler->type()));
      r.inPriorityOrder.push_back(scheduler.get());
      r.owned.push_back(std::move(scheduler));
    }
    return r;
  }());
  return *instance;
}

// What every scheduler but one refuses, found once per segment:
// reshardingRefusal (all but communication take no resharding set),
// cpuReferenceOnlyRefusal (all but expr_eval take no op without a kernel),
// scanRefusal and indexedWriteRefusal (all but pointwise, whose scan and
// indexed-write kernels run them, take no scan, scatter or
// index_put_accumulate), and sortRefusal (all but pointwise, whose sort
// kernel runs it, and expr_eval, which takes a line too long for that
// kernel, take no argsort or topk).
struct SegmentRefusals {
  explicit SegmentRefusals(const ir::Fusion& segment)
      : resharding(reshardingRefusal(segment)), cpuReferenceOnly(cpuReferenceOnlyRefusal(segment)) {
    const OwnKernelOps ops = ownKernelOps(segment);
    if (ops.scan != nullptr) scan = scanRefusal(*ops.scan);
    if (ops.indexedWrite != nullptr) indexedWrite = indexedWriteRefusal(*ops.indexedWrite);
    if (ops.sort != nullptr) sort = sortRefusal(*ops.sort);
  }
  std::optional<std::string> resharding;
  std::optional<std::string> cpuReferenceOnly;
  std::optional<std::string> scan;
  std::optional<std::string> indexedWrite;
  std::optional<std::string> sort;
};

// The scheduler's reason for refusing `segment`, compile-time check first.
std::optional<std::string> rejectSegment(const Scheduler& scheduler, const ir::Fusion& segment,
                                         const SegmentRuntimeInfo& info,
                                         const SegmentRefusals& refusals) {
  if (refusals.resharding && scheduler.type() != SchedulerType::Communication) {
    return refusals.resharding;
  }
  if (refusals.cpuReferenceOnly && scheduler.type() != SchedulerType::ExprEval) {
    return refusals.cpuReferenceOnly;
  }
  if (refusals.scan && scheduler.type() != SchedulerType::Pointwise) return refusals.scan;
  if (refusals.indexedWrite && scheduler.type() != SchedulerType::Pointwise) {
    return refusals.indexedWrite;
  }
  if (refusals.sort && scheduler.type() != SchedulerType::Pointwise &&
      scheduler.type() != SchedulerType::ExprEval) {
    return refusals.sort;
  }
  if (auto reason = scheduler.rejectCompileTime(segment)) return reason;
  return scheduler.rejectRunTime(segment, info);
}

}  // namespace

const std::vector<const Scheduler*>& registeredSchedulers() { return registry().inPriorityOrder; }

const Scheduler& schedulerFor(SchedulerType type) {
  for (const Scheduler* scheduler : registeredSchedulers()) {
    if (scheduler->type() == type) return *scheduler;
  }
  FL_ASSERT(false, "there is no ", toString(type), " scheduler in the registry yet");
}

std::optional<SchedulerChoice> chooseScheduler(const ir::Fusion& segment,
                                               const SegmentRuntimeInfo& info,
                                               const HeuristicProvider* provider,
                                               std::vector<Rejection>* rejected) {
  const AnalysisCacheScope cache(segment, info);
  const SegmentRefusals refusals(segment);
  std::vector<Rejection> reasons;
  for (const Scheduler* scheduler : registeredSchedulers()) {
    if (auto reason = rejectSegment(*scheduler, segment, info, refusals)) {
      reasons.push_back({scheduler->type(), std::move(*reason)});
      continue;
    }
    SchedulerChoice choice;
    choice.type = scheduler->type();
    bool provided = false;
    if (provider != nullptr) {
      if (auto params = provider->lookup(segment, choice.type, info)) {
        if (auto why = scheduler->rejectParams(segment, info, params->params)) {
          choice.providerRejection =
              "params from " + params->source +
              (params->entryId != 0 ? " (entry " + std::to_string(params->entryId) + ")"
                                    : std::string()) +
              " refused: " + *why;
        } else {
          choice.params = std::move(params->params);
          choice.paramsSource = std::move(params->source);
          provided = true;
        }
        choice.paramsEntryId = params->entryId;
        choice.paramsOrigin = params->origin;
        choice.paramsFallbackDevice = params->fallbackDevice;
      }
    }
    if (!provided) choice.params = scheduler->computeHeuristics(segment, info);
    choice.properties = scheduler->properties(segment, info);
    choice.rejected = reasons;
    if (rejected != nullptr) *rejected = std::move(reasons);
    return choice;
  }
  if (rejected != nullptr) *rejected = std::move(reasons);
  return std::nullopt;
}

bool canSchedule(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                 std::vector<Rejection>* rejected) {
  const AnalysisCacheScope cache(segment, info);
  const SegmentRefusals refusals(segment);
  std::vector<Rejection> reasons;
  for (const Scheduler* scheduler : registeredSchedulers()) {
    auto reason = rejectSegment(*scheduler, segment, info, refusals);
    if (!reason) {
      if (rejected != nullptr) *rejected = std::move(reasons);
      return true;
    }
    reasons.push_back({scheduler->type(), std::move(*reason)});
  }
  if (rejected != nullptr) *rejected = std::move(reasons);
  return false;
}

std::optional<SchedulerType> findAcceptingScheduler(const ir::Fusion& segment,
                                                    const SegmentRuntimeInfo& info,
                                                    const std::vector<SchedulerType>& tryFirst,
                                                    std::vector<Rejection>* rejected) {
  const AnalysisCacheScope cache(segment, info);
  const SegmentRefusals refusals(segment);
  const std::vector<const Scheduler*>& schedulers = registeredSchedulers();
  // Each scheduler's reason, by its place in priority order, once asked:
  // the checks are pure functions of the segment and sizes, so a reason
  // found while trying the guesses is the one priority order would find.
  std::vector<std::optional<std::string>> reasons(schedulers.size());
  std::vector<bool> asked(schedulers.size(), false);
  auto ask = [&](size_t i) {
    asked[i] = true;
    reasons[i] = rejectSegment(*schedulers[i], segment, info, refusals);
    return !reasons[i].has_value();
  };
  for (SchedulerType guess : tryFirst) {
    for (size_t i = 0; i < schedulers.size(); ++i) {
      if (schedulers[i]->type() != guess || asked[i]) continue;
      if (ask(i)) return guess;
    }
  }
  for (size_t i = 0; i < schedulers.size(); ++i) {
    if (!asked[i] && ask(i)) return schedulers[i]->type();
  }
  if (rejected != nullptr) {
    rejected->clear();
    for (size_t i = 0; i < schedulers.size(); ++i) {
      rejected->push_back({schedulers[i]->type(), std::move(*reasons[i])});
    }
  }
  return std::nullopt;
}

}  // namespace fuserlab::scheduler
