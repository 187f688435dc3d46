// The scheduler registry: every scheduler, tried in schedulerPriority()
// order. The segmenter asks it whether a (merged) group can be scheduled; the
// compiler asks it for the final choice of each segment with its params and
// every other scheduler's reason for refusing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/scheduler/heuristic_provider.h"
#include "core/scheduler/scheduler.h"

namespace fuserlab::scheduler {

struct Rejection {
  SchedulerType scheduler;
  std::string reason;
};

struct SchedulerChoice {
  SchedulerType type = SchedulerType::NoOp;
  HeuristicParams params;
  //! "heuristic", or the provider's source ("database_exact").
  std::string paramsSource = "heuristic";
  //! If a provider's params were refused by rejectParams, why.
  std::string providerRejection;
  //! The provider's database entry behind `params` (or behind the refused
  //! params); 0 if none.
  int64_t paramsEntryId = 0;
  //! The provider's ProvidedParams::origin and ::fallbackDevice.
  std::string paramsOrigin;
  std::string paramsFallbackDevice;
  report::Json properties = report::Json::object();
  //! Every scheduler tried before `type`, with its reason.
  std::vector<Rejection> rejected;
};

//! The scheduler of `type`. There is none yet for communication (an
//! InternalError): see registeredSchedulers().
const Scheduler& schedulerFor(SchedulerType type);

//! The schedulers that exist, in schedulerPriority() order; communication
//! has none yet. Matmul, linear and sdpfa_fwd go to the matmul scheduler.
const std::vector<const Scheduler*>& registeredSchedulers();

//! Tries the schedulers in priority order; the first that accepts gives the
//! choice. nullopt if none does; `rejected` (if given) then holds every
//! reason. Params come from `provider` when it answers and its params pass
//! rejectParams, else from the heuristic.
std::optional<SchedulerChoice> chooseScheduler(const ir::Fusion& segment,
                                               const SegmentRuntimeInfo& info,
                                               const HeuristicProvider* provider = nullptr,
                                               std::vector<Rejection>* rejected = nullptr);

//! Whether some scheduler accepts `segment` (the segmenter's merge test);
//! cheaper than chooseScheduler: no heuristics are computed.
bool canSchedule(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                 std::vector<Rejection>* rejected = nullptr);

//! canSchedule's answer, found faster when a guess at who accepts is right:
//! the schedulers of `tryFirst` are asked first, then the others in
//! priority order, stopping at the first that accepts. Returns that
//! scheduler, which need not be the one chooseScheduler picks (an earlier
//! one in priority order may accept too); nullopt exactly when canSchedule
//! is false, and `rejected` (if given) then holds every scheduler's reason
//! in priority order, exactly as canSchedule's. What `rejected` holds when
//! a scheduler accepts is unspecified. The segmenter's merge test: it needs
//! only whether some scheduler accepts, and every reason when none does.
std::optional<SchedulerType> findAcceptingScheduler(const ir::Fusion& segment,
                                                    const SegmentRuntimeInfo& info,
                                                    const std::vector<SchedulerType>& tryFirst,
                                                    std::vector<Rejection>* rejected = nullptr);

}  // namespace fuserlab::scheduler
