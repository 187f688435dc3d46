#include "app/gui/tune_worker.h"

#include <signal.h>

#include <iostream>

#include "app/gui/script_loader.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/report/json.h"
#include "tuner/worker.h"
#include "tuner/worker_command.h"

namespace fuserlab::gui {
namespace {

int serve(const std::vector<std::string>& args) {
  const tuner::WorkerCommand command = tuner::parseWorkerArguments(args);
  CompileRequest request;
  request.fileName = command.script;
  request.fusionName = command.fusion;
  request.settings.inputs = command.inputs;
  request.settings.options = command.options;
  request.source = ir::readUserFile(request.fileName, "script", ir::kMaxScriptBytes);
  const LoadedFusion loaded = loadFusion(request);
  tuner::WorkerSetup setup;
  setup.fusion = loaded.fusion;
  setup.hostInputs = frontend::makeInputs(loaded.specs, 0);
  setup.options = request.settings.options;
  setup.device = command.device;
  setup.segment = command.segment;
  setup.compareWithDefault = command.compareWithDefault;
  // Cancelling is the parent's business: it closes our input.
  ::signal(SIGINT, SIG_IGN);
  return tuner::serveWorker(setup, std::cin, std::cout);
}

}  // namespace

int tuneWorkerMain(const std::vector<std::string>& args) {
  try {
    return serve(args);
  } catch (const std::exception& error) {
    // The protocol's fatal line, so the parent shows why.
    report::Json line = report::Json::object();
    line.set("fatal", std::string(error.what()));
    std::cout << line.dump(-1) << "\n" << std::flush;
    return 2;
  }
}

}  // namespace fuserlab::gui
