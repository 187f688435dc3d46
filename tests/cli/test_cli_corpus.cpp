// The reader's corpus (tests/frontend/corpus, issue 41): scripts in every
// style users paste — nvfuser_direct repros as nvFuser prints them, old
// nvfuser traces, benchmark builders called with arguments, test-style
// definitions over module-level inputs, inline with-blocks, expanded and
// 0-dim inputs, the ops real scripts use. Each reads, compiles for an H100
// (`inspect`) and runs on the CPU reference backend (`run`), with finite
// outputs (the corpus was checked against torch when it was written).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

std::vector<std::string> corpusScripts() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(source("tests/frontend/corpus"))) {
    if (entry.path().extension() == ".py") {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CliCorpusTest, EveryScriptReadsCompilesAndRunsOnTheReference) {
  const std::vector<std::string> scripts = corpusScripts();
  ASSERT_GE(scripts.size(), 100u);
  int failed = 0;
  for (const std::string& name : scripts) {
    SCOPED_TRACE(name);
    const std::string path = source("tests/frontend/corpus/" + name);
    const CliResult inspect = runCli("inspect " + path + " --device h100");
    EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
    const CliResult run = runCli("run " + path + " --seed 3");
    EXPECT_EQ(run.exitCode, 0) << run.output;
    // Printed statistics of a NaN or infinite output read "nan" / "inf".
    const size_t outputs = run.output.find("outputs:");
    ASSERT_NE(outputs, std::string::npos) << run.output;
    const std::string shown = run.output.substr(outputs);
    EXPECT_EQ(shown.find("nan"), std::string::npos) << run.output;
    failed += inspect.exitCode != 0 || run.exitCode != 0;
  }
  EXPECT_EQ(failed, 0) << "of " << scripts.size() << " scripts";
}

// tests/frontend/corpus/refused: real-style scripts using what FuserLab
// lacks; each is a user error (exit 2) naming it at its line, never a crash.
TEST(CliCorpusTest, RefusedScriptsSayWhatIsMissing) {
  const struct {
    const char* file;
    const char* missing;
  } refused[] = {
      {"newop_sdpfa_bwd_printed.py", ":13:64: error: DataType.UInt64 is not supported"},
  };
  for (const auto& script : refused) {
    SCOPED_TRACE(script.file);
    const CliResult run =
        runCli("run " + source(std::string("tests/frontend/corpus/refused/") + script.file));
    EXPECT_EQ(run.exitCode, 2) << run.output;
    EXPECT_NE(run.output.find(script.missing), std::string::npos) << run.output;
  }
}

}  // namespace
}  // namespace fuserlab::cli
