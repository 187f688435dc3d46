#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

TEST(CliTuneTest, DryRunListsThePersistentSpaceWithoutAGpu) {
  const CliResult r = runCli("tune " + source("resources/examples/layer_norm.py") +
                             " --inputs 512x4096:bf16,4096:bf16,4096:bf16 --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("inner_persistent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vectorization_factor: 1 2 4 8"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("persistent_storage: 0 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("project_persistent_buffers: 0 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 (default)"), std::string::npos) << r.output;
}

TEST(CliTuneTest, DryRunHonoursStrategyAndBudget) {
  const CliResult r = runCli("tune " + source("resources/examples/silu_mul.py") +
                             " --dry-run --strategy random --budget 5 --seed 3");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("would measure 5 variants"), std::string::npos) << r.output;
}

TEST(CliTuneTest, EarlyStopCanBeTurnedOff) {
  const CliResult r = runCli("tune " + source("resources/examples/silu_mul.py") +
                             " --dry-run --budget 3 --no-early-stop");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("would measure 3 variants"), std::string::npos) << r.output;
}

TEST(CliTuneTest, TheCheckIsDefaultOrReference) {
  const std::string script = source("resources/examples/silu_mul.py");
  const CliResult ok = runCli("tune " + script + " --dry-run --budget 3 --check reference");
  ASSERT_EQ(ok.exitCode, 0) << ok.output;
  const CliResult bad = runCli("tune " + script + " --dry-run --check gpu");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("--check is default"), std::string::npos) << bad.output;
}

TEST(CliTuneTest, SizesFromTheInputsBlockAreTheViewsSizes) {
  // silu_mul.py's inputs are torch.randn(2818048).as_strided((256, 11008), ...):
  // the tuned tensor is the 2-D view (the worker was once handed the flat
  // 1-D size and every variant failed to set up on the GPU).
  const std::string json =
      (std::filesystem::temp_directory_path() / "fuserlab_tune_sizes.json").string();
  const CliResult r =
      runCli("tune " + source("resources/examples/silu_mul.py") + " --dry-run --json " + json);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(json);
  EXPECT_NE(text.find("\"256x11008:bf16,256x11008:bf16\""), std::string::npos)
      << text.substr(0, 400);
  EXPECT_EQ(text.find("2818048:bf16"), std::string::npos);
}

TEST(CliTuneTest, RealRunNeedsADatabaseAndRejectsBadOptions) {
  const std::string file = source("resources/examples/silu_mul.py");
  EXPECT_EQ(runCli("tune " + file).exitCode, 2);
  const CliResult bad = runCli("tune " + file + " --dry-run --strategy greedy");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find("exhaustive, random or coordinate"), std::string::npos);
  EXPECT_EQ(runCli("tune " + file + " --dry-run --segment 7").exitCode, 2);
}

}  // namespace
}  // namespace fuserlab::cli
