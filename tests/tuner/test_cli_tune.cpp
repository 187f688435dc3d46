#include <gtest/gtest.h>

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
