#include "app/gui/tune_worker.h"

#include <signal.h>

#include <iostream>
#include <limits>

#include "app/gui/script_loader.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/report/json.h"
#include "tuner/worker.h"

namespace fuserlab::gui {
namespace {

int parseIndex(const std::string& option, const std::string& text) {
  return static_cast<int>(
      ir::parseInteger(text, option, 0, std::numeric_limits<int>::max()));
}

int serve(const std::vector<std::string>& args) {
  CompileRequest request;
  std::string device = "cuda:0";
  int segment = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool hasValue = i + 1 < args.size();
    if (a.rfind("--", 0) == 0) {
      FL_CHECK(hasValue, a, " needs a value");
      const std::string& v = args[++i];
      if (a == "--segment") segment = parseIndex(a, v);
      else if (a == "--device") device = v;
      else if (a == "--fusion") request.fusionName = v;
      else if (a == "--inputs") request.settings.inputs = v;
      else if (a == "--set") request.settings.options.setFromAssignment(v);
      else if (a == "--disable-pass") request.settings.options.disablePass(v);
      else FL_USER_ERROR("unknown option ", a);
    } else {
      FL_CHECK(request.fileName.empty(), "one script file, found '", a, "' too");
      request.fileName = a;
    }
  }
  FL_CHECK(!request.fileName.empty(), "no script file");
  request.source = ir::readUserFile(request.fileName, "script", ir::kMaxScriptBytes);
  const LoadedFusion loaded = loadFusion(request);
  tuner::WorkerSetup setup;
  setup.fusion = loaded.fusion;
  setup.hostInputs = frontend::makeInputs(loaded.specs, 0);
  setup.options = request.settings.options;
  FL_CHECK(device.rfind("cuda:", 0) == 0, "the worker runs on cuda:N, not ", device);
  setup.device = parseIndex("--device", device.substr(5));
  setup.segment = segment;
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
