// The benchmark suite (tests/perf/suite, issue 6) on a machine without a GPU:
// every case reads, compiles for an H100 into one kernel-launching segment
// with the scheduler its fusion calls for, and is listed in the suite's
// README. (Timings and the comparison with PyTorch need a GPU:
// tests/perf/compare_torch.py --suite.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

std::vector<std::string> suiteCases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(source("tests/perf/suite"))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".py" && name != "gen_suite.py") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The scheduler a case's name calls for.
std::string expectedScheduler(const std::string& name) {
  for (const char* prefix : {"layernorm", "rmsnorm", "softmax", "masked_softmax", "nanogpt"}) {
    if (name.rfind(prefix, 0) == 0) return "inner_persistent";
  }
  for (const char* prefix : {"row_sum", "col_sum", "var_mean"}) {
    if (name.rfind(prefix, 0) == 0) return "reduction";
  }
  if (name.rfind("transpose", 0) == 0) return "transpose";
  if (name.rfind("linear", 0) == 0) return "matmul";
  return "pointwise";
}

TEST(CliSuiteTest, EveryCaseCompilesToOneKernelWithItsScheduler) {
  const std::vector<std::string> cases = suiteCases();
  ASSERT_GE(cases.size(), 20u);
  std::ifstream readme(source("tests/perf/suite/README.md"));
  std::stringstream listing;
  listing << readme.rdbuf();
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    const std::string stem = name.substr(0, name.size() - 3);
    EXPECT_NE(listing.str().find("`" + stem + "`"), std::string::npos) << "not in README.md";
    const CliResult r = runCli("inspect " + source("tests/perf/suite/" + name) + " --device H100-SXM");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("segments: 1 (1 launching a kernel"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("segment 0: " + expectedScheduler(stem)), std::string::npos)
        << r.output;
  }
}

}  // namespace
}  // namespace fuserlab::cli
