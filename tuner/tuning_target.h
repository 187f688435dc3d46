// TuningTarget: one kernel segment of a fusion, compiled at concrete input
// sizes for one device with the built-in heuristics, bound so its scheduler
// can check variants and code generation can emit them, and keyed as the
// heuristics database keys it. PinnedParamsProvider makes the compiler use a
// variant's params for that segment, exactly as the database's provider
// would supply tuned ones.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/codegen/kernel.h"
#include "core/compiler/compile_options.h"
#include "core/compiler/segment_kernels.h"
#include "core/ir/fusion.h"
#include "core/scheduler/heuristic_provider.h"
#include "db/entry.h"
#include "db/segment_key.h"

namespace fuserlab::tuner {

struct TuningTarget {
  scheduler::DeviceSpec device;
  runtime::CompiledFusion compiled;
  runtime::BoundSegment bound;
  int segment = 0;
  scheduler::SchedulerType scheduler = scheduler::SchedulerType::NoOp;
  //! The heuristic's params (never the database's: the default a variant
  //! must beat is the built-in choice).
  scheduler::HeuristicParams defaultParams;
  db::SegmentKey key;
  std::string kernelName;  //!< "inner_persistent_seg0", as CUPTI reports it

  const ir::Fusion& segmentFusion() const { return *bound.group->segment; }
  db::SegmentRecord segmentRecord() const;
  db::DeviceRecord deviceRecord() const;
  //! The kernel of `params` for this segment (a UserError when the emitter
  //! refuses them).
  codegen::GeneratedKernel generate(const scheduler::HeuristicParams& params) const;
};

//! The ids of `compiled`'s segments whose params can be tuned.
std::vector<int> tunableSegments(const runtime::CompiledFusion& compiled);

//! Compiles `fusion` for `inputs` (metadata suffices) on `device` and binds
//! segment `segment`. UserError if that segment does not exist or has no
//! params to tune.
std::unique_ptr<TuningTarget> makeTuningTarget(const ir::Fusion& fusion,
                                               const compiler::CompileOptions& options,
                                               const scheduler::DeviceSpec& device,
                                               const runtime::Arguments& inputs, int segment);

//! Answers `params` for segments with `key`'s structure, scheduler and sizes
//! (any device: the worker's real GPU may be fingerprinted differently from
//! a table entry), nothing for the rest.
class PinnedParamsProvider : public scheduler::HeuristicProvider {
 public:
  PinnedParamsProvider(db::SegmentKey key, scheduler::HeuristicParams params)
      : key_(std::move(key)), params_(std::move(params)) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override;

 private:
  db::SegmentKey key_;
  scheduler::HeuristicParams params_;
};

//! The report's params_source of a tuner variant.
inline constexpr const char* kSourceTuner = "tuner";

}  // namespace fuserlab::tuner
