#include "tuner/tuning_target.h"

#include "core/codegen/codegen.h"
#include "core/compiler/fusion_compiler.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "tuner/search_space.h"

namespace fuserlab::tuner {

db::SegmentRecord TuningTarget::segmentRecord() const {
  return {key.structureHash, key.scheduler, key.sizes, key.sizeBucket,
          ir::printFusionIr(segmentFusion())};
}

db::DeviceRecord TuningTarget::deviceRecord() const {
  db::DeviceRecord record = db::DeviceRecord::fromSpec(device);
  record.fingerprint = key.deviceFingerprint;
  return record;
}

codegen::GeneratedKernel TuningTarget::generate(const scheduler::HeuristicParams& params) const {
  return codegen::generateKernel(segmentFusion(), scheduler, params, bound.info, kernelName);
}

std::vector<int> tunableSegments(const runtime::CompiledFusion& compiled) {
  std::vector<int> ids;
  for (const auto& group : compiled.segmented->groups()) {
    if (isTunable(group.choice.type)) ids.push_back(group.id);
  }
  return ids;
}

std::unique_ptr<TuningTarget> makeTuningTarget(const ir::Fusion& fusion,
                                               const compiler::CompileOptions& options,
                                               const scheduler::DeviceSpec& device,
                                               const runtime::Arguments& inputs, int segment) {
  auto target = std::make_unique<TuningTarget>();
  target->device = device;
  target->compiled = runtime::compileFusion(fusion, options, target->device, inputs, nullptr,
                                            /*withTextDumps=*/false);
  target->bound = runtime::bindSegment(target->compiled, segment, target->device, inputs);
  const segmenter::SegmentedGroup& group = *target->bound.group;
  target->segment = group.id;
  target->scheduler = group.choice.type;
  FL_CHECK(isTunable(target->scheduler), "segment ", segment, " is scheduled by ",
           scheduler::toString(target->scheduler),
           ", which has no params to tune; tunable segments:", [&] {
             std::string list;
             for (int id : tunableSegments(target->compiled)) {
               list += " " + std::to_string(id);
             }
             return list.empty() ? std::string(" none") : list;
           }());
  target->defaultParams = group.choice.params;
  target->key = db::segmentKey(target->segmentFusion(), target->scheduler, target->bound.info);
  target->kernelName = runtime::segmentKernelName(group.id, target->scheduler);
  return target;
}

std::optional<scheduler::ProvidedParams> PinnedParamsProvider::lookup(
    const ir::Fusion& segment, scheduler::SchedulerType type,
    const scheduler::SegmentRuntimeInfo& info) const {
  if (std::string(scheduler::toString(type)) != key_.scheduler) return std::nullopt;
  if (db::sizesText(info) != key_.sizes) return std::nullopt;
  if (db::hex64(db::structuralHash(segment, info)) != key_.structureHash) {
    return std::nullopt;
  }
  return scheduler::ProvidedParams{params_, kSourceTuner, 0, {}, {}};
}

}  // namespace fuserlab::tuner
