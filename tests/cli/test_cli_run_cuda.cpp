// fuserlab-cli run --backend cuda: a clear user error without a GPU, option
// checks, and on a GPU a checked run of a bundled example.
#include <gtest/gtest.h>

#include <string>

#include "core/cuda/cuda_device.h"
#include "tests/cli/cli_runner.h"

namespace {

using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::cli::source;

TEST(CliRunCudaTest, WithoutAGpuCudaIsAUserError) {
  if (fuserlab::runtime::cudaDeviceCount() > 0) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  CliResult r =
      runCli("run " + source("resources/examples/silu_mul.py") + " --backend cuda --check");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no CUDA device: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--backend cpu"), std::string::npos) << r.output;
}

TEST(CliRunCudaTest, CheckAndCompileOptionsNeedTheCudaBackend) {
  const std::string file = source("resources/examples/silu_mul.py");
  CliResult check = runCli("run " + file + " --check");
  EXPECT_EQ(check.exitCode, 2) << check.output;
  EXPECT_NE(check.output.find("--check"), std::string::npos) << check.output;
  CliResult device = runCli("run " + file + " --device cuda:0");
  EXPECT_EQ(device.exitCode, 2) << device.output;
}

TEST(CliRunCudaTest, DeviceMustNameAGpu) {
  CliResult r =
      runCli("run " + source("resources/examples/silu_mul.py") + " --backend cuda --device h100");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("'cuda' or 'cuda:N'"), std::string::npos) << r.output;
}

TEST(CliRunCudaTest, CheckedRunOnTheGpu) {
  if (fuserlab::runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << fuserlab::runtime::cudaUnavailableReason();
  }
  CliResult r =
      runCli("run " + source("resources/examples/silu_mul.py") + " --backend cuda --check");
  if (r.exitCode == 2 && r.output.find("unavailable on the cuda backend") != std::string::npos) {
    GTEST_SKIP() << r.output;
  }
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("check passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel launch"), std::string::npos) << r.output;
}

}  // namespace
