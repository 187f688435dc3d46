// The differential tester's fixed failures (tests/difftest/findings), each
// run on GPU 0 as the tester runs a case: outputs poisoned, every output and
// every input written in place compared with the CPU reference. A kernel
// the product refuses by name skips; anything else but a pass fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda/cuda_device.h"
#include "tests/difftest/case_runner.h"
#include "tests/source_dir.h"

namespace fuserlab {
namespace {

TEST(GpuDifftestFindingsTest, EveryShrunkFailurePassesOnTheGpu) {
  if (runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << runtime::cudaUnavailableReason();
  }
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(fuserlab::test::sourceDir()) / "tests/difftest/findings")) {
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_FALSE(paths.empty());
  for (const auto& path : paths) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const difftest::CaseResult r =
        difftest::runCase(text.str(), path.filename().string(),
                          difftest::optionsInHeader(text.str()), difftest::Mode::Gpu, 0);
    EXPECT_TRUE(r.status == difftest::Status::Pass || r.status == difftest::Status::Unavailable)
        << difftest::toString(r.status) << ": " << r.detail;
  }
}

}  // namespace
}  // namespace fuserlab
