// Every failure the differential tester found and that was fixed stays a
// test: its shrunk script (tests/difftest/findings) is read, run on the CPU
// reference and compiled, every kernel built by NVRTC. The GPU run of the
// same scripts is GpuDifftestFindingsTest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/difftest/case_runner.h"
#include "tests/source_dir.h"

namespace fuserlab::difftest {
namespace {

std::vector<std::filesystem::path> findings() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(fuserlab::test::sourceDir()) / "tests/difftest/findings")) {
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DifftestFindingsTest, EveryShrunkFailureCompiles) {
  const auto paths = findings();
  ASSERT_GE(paths.size(), 29u);
  for (const auto& path : paths) {
    SCOPED_TRACE(path.filename().string());
    const std::string source = readText(path);
    const CaseResult r =
        runCase(source, path.filename().string(), optionsInHeader(source), Mode::Compile, 0);
    EXPECT_EQ(r.status, Status::Pass) << r.detail;
  }
}

TEST(DifftestFindingsTest, OptionsComeFromTheHeader) {
  EXPECT_EQ(optionsInHeader("# x\n# Compile options: --set upcast=forward --set bookend=none\n"),
            (std::vector<std::string>{"upcast=forward", "bookend=none"}));
  EXPECT_TRUE(optionsInHeader("import torch\n").empty());
}

}  // namespace
}  // namespace fuserlab::difftest
