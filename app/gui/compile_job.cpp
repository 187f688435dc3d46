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
#include "db/database_provider.h"
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
    return next_ ? next_->lookup(segment, type, info) : std::nullopt;
  }
  mutable std::vector<std::string> hashes_;

 private:
  const scheduler::HeuristicProvider* next_;
};

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
  for (runtime::SegmentKernel& kernel : runtime::generateSegmentKernels(compiled, device, inputs)) {
    SegmentCode code;
    code.segment = kernel.segment;
    code.kernelName = kernel.name;
    if (kernel.kernel) {
      code.source = std::move(kernel.kernel->source);
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
