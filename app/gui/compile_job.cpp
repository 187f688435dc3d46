#include "app/gui/compile_job.h"

#include <chrono>
#include <memory>

#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/frontend/select_fusion.h"
#include "core/repro/segment_repro.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/registry.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/segment_key.h"

namespace fuserlab::gui {
namespace {

// Records the structure hash of every segment the compiler asks about (the
// database browser lists entries with these hashes), then passes the
// question on to the database, if there is one.
class RecordingProvider : public scheduler::HeuristicProvider {
 public:
  explicit RecordingProvider(const scheduler::HeuristicProvider* next) : next_(next) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    hashes_.push_back(db::hex64(db::structuralHash(segment, info)));
    if (!next_) return std::nullopt;
    auto provided = next_->lookup(segment, type, info);
    if (provided && provided->entryId != 0) {
      // What the heuristic would have chosen: the entry's measurement of
      // these params is the baseline its tuned params are compared with.
      const scheduler::HeuristicParams heuristic =
          scheduler::schedulerFor(type).computeHeuristics(segment, info);
      heuristicHashes_[provided->entryId] = db::hex64(scheduler::paramsHash(heuristic));
    }
    return provided;
  }
  mutable std::vector<std::string> hashes_;
  //! Database entry id -> the params hash of the heuristic's params.
  mutable std::map<int64_t, std::string> heuristicHashes_;

 private:
  const scheduler::HeuristicProvider* next_;
};

// Per segment whose params came from a database entry: the heuristic's
// median (a measurement of the entry with the heuristic's params hash) over
// the entry's chosen median. Segments without both are left out.
std::map<int, double> tunedSpeedups(const report::CompileReport& report, const std::string& path,
                                    const std::map<int64_t, std::string>& heuristicHashes) {
  std::map<int, double> speedups;
  try {
    db::HeuristicsDatabase database(path, db::HeuristicsDatabase::Access::Read);
    for (const auto& segment : report.segments) {
      const auto hash = heuristicHashes.find(segment.paramsEntryId);
      if (segment.paramsEntryId == 0 || hash == heuristicHashes.end()) continue;
      const std::optional<db::Entry> entry = database.entry(segment.paramsEntryId);
      if (!entry || !entry->measurement || !entry->measurement->measured()) continue;
      for (const db::MeasurementRecord& variant : entry->variants) {
        if (variant.paramsHash != hash->second || !variant.measured()) continue;
        if (*entry->measurement->medianNs > 0) {
          speedups[segment.id] = *variant.medianNs / *entry->measurement->medianNs;
        }
        break;
      }
    }
  } catch (const std::exception&) {
    // The overlay goes without: the compile itself read the file already.
  }
  return speedups;
}

void compileInto(const CompileRequest& request, CompileSnapshot& snapshot) {
  frontend::Script script = frontend::readScript(request.source, snapshot.fileName);
  for (const auto& def : script.definitions) {
    snapshot.definitions.push_back(def.functionName);
  }
  const frontend::SelectedFusion selected = frontend::selectFusion(script, request.fusionName);
  snapshot.fusionName = selected.name;
  const ir::Fusion& fusion = *selected.fusion;

  std::vector<frontend::InputSpec> specs;
  if (!request.settings.inputs.empty()) {
    specs = frontend::parseInputsOption(request.settings.inputs);
    snapshot.inputsOrigin = "the inputs setting";
  } else if (selected.inputsBlock) {
    specs = *selected.inputsBlock;
    snapshot.inputsOrigin = "the inputs block";
  } else {
    FL_USER_ERROR(snapshot.fileName, " has no inputs block for ", snapshot.fusionName,
                  ": give input sizes in the Inputs field (e.g. 128x1024:bf16)");
  }
  FL_CHECK(specs.size() == fusion.inputs().size(), snapshot.fusionName, " has ",
           fusion.inputs().size(), " inputs but ", snapshot.inputsOrigin, " gives ", specs.size());

  const auto resolved = runtime::resolveDevice(request.settings.device);
  const scheduler::DeviceSpec device = resolved ? *resolved : scheduler::defaultDevice();
  snapshot.deviceName = device.name;
  std::unique_ptr<db::DatabaseProvider> database;
  if (!request.settings.databasePath.empty()) {
    database = std::make_unique<db::DatabaseProvider>(request.settings.databasePath);
  }
  RecordingProvider provider(database.get());
  const runtime::Arguments inputs = frontend::makeInputShapes(specs);
  runtime::CompiledFusion compiled =
      runtime::compileFusion(fusion, request.settings.options, device, inputs, &provider);
  snapshot.segmentHashes = std::move(provider.hashes_);
  if (database) {
    snapshot.tunedSpeedups =
        tunedSpeedups(compiled.report, request.settings.databasePath, provider.heuristicHashes_);
  }
  for (runtime::SegmentKernel& kernel : runtime::generateSegmentKernels(compiled, device, inputs)) {
    SegmentCode code;
    code.segment = kernel.segment;
    code.kernelName = kernel.name;
    if (kernel.kernel) {
      code.source = std::move(kernel.kernel->source);
      code.options = kernel.kernel->options;
    } else {
      code.error = kernel.error;
    }
    snapshot.kernels.push_back(std::move(code));
  }
  for (size_t segment = 0; segment < compiled.segmented->groups().size(); ++segment) {
    SegmentScript written;
    try {
      written.script = frontend::writeSegmentRepro(
          compiled, segment, specs, snapshot.fileName + " (" + snapshot.fusionName + ")");
    } catch (const std::exception& failure) {
      written.error = failure.what();
    }
    snapshot.segmentScripts.push_back(std::move(written));
  }
  snapshot.report = std::move(compiled.report);
}

}  // namespace

std::string CompileSettings::summary() const {
  std::string text = device.empty() ? scheduler::defaultDevice().key : device;
  text += ", upcast=" + std::string(segmenter::toString(options.upcast));
  text += ", bookend=" + std::string(passes::toString(options.bookend));
  for (const auto& pass : options.disabledPasses) text += ", -" + pass;
  if (!inputs.empty()) text += ", inputs " + inputs;
  return text;
}

const SegmentCode* CompileSnapshot::codeFor(int id) const {
  for (const auto& code : kernels) {
    if (code.segment == id) return &code;
  }
  return nullptr;
}

CompileSnapshot runCompileJob(const CompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  CompileSnapshot snapshot;
  snapshot.fileName = request.fileName.empty() ? "<pasted>" : request.fileName;
  try {
    compileInto(request, snapshot);
  } catch (const UserError& error) {
    snapshot.error = error.message();
    snapshot.errorLocation = error.location();
    snapshot.report.reset();
  } catch (const std::exception& error) {
    snapshot.error = std::string("internal error: ") + error.what();
    snapshot.report.reset();
  }
  snapshot.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return snapshot;
}

std::vector<std::string> availableDevices() {
  std::vector<std::string> keys;
  for (const auto& device : scheduler::builtinDevices()) keys.push_back(device.key);
  const int gpus = runtime::cudaDeviceCount();
  for (int i = 0; i < gpus; ++i) keys.push_back("cuda:" + std::to_string(i));
  return keys;
}

}  // namespace fuserlab::gui
