// HeuristicProvider: a source of params other than the built-in heuristic:
// the heuristics database (db/) or a tuning sweep. The registry asks it first
// and the report names which source answered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::scheduler {

struct ProvidedParams {
  HeuristicParams params;
  //! Where they came from, for the report's params_source:
  //! "database_exact", "database_bucket", "tuner".
  std::string source;
  //! The heuristics-database entry that holds them; 0 for other sources.
  int64_t entryId = 0;
  //! The database file that answered (a search path names several); empty
  //! for other sources.
  std::string origin;
  //! Set when the entry was measured on another device of the same
  //! architecture (a fallback the user allowed): that device's fingerprint.
  std::string fallbackDevice;
};

class HeuristicProvider {
 public:
  virtual ~HeuristicProvider() = default;
  //! Params for `segment`, already chosen to be scheduled by `type`; nullopt
  //! to fall back to the built-in heuristic.
  virtual std::optional<ProvidedParams> lookup(const ir::Fusion& segment, SchedulerType type,
                                               const SegmentRuntimeInfo& info) const = 0;
};

}  // namespace fuserlab::scheduler
