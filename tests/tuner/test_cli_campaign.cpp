// tune --plan / --from-record / --shard / --devices as a user runs them, on
// a machine without a GPU (dry runs list what each shard would tune), and
// db merge OUT IN... (issue 48 items 1, 2, 4).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/cuda/cuda_device.h"
#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

class CliCampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fuserlab_cli_campaign_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
                             "SLURM_ARRAY_TASK_MIN", "RANK", "WORLD_SIZE"}) {
      ::unsetenv(name);
    }
    // Three items: silu_mul at two sizes and at its inputs block.
    plan_ = (dir_ / "plan.json").string();
    std::ofstream(plan_) << R"({"format": 1, "fusions": [
      {"script": ")" << source("resources/examples/silu_mul.py")
                         << R"(",
       "sizes": ["64x2048:bf16,64x2048:bf16", "32x1024:bf16,32x1024:bf16"]},
      {"script": ")" << source("resources/examples/silu_mul.py")
                         << R"("}]})";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string plan_;
};

TEST_F(CliCampaignTest, ShardsOfAPlanListDisjointItemsThatCoverIt) {
  std::string all;
  for (int k = 0; k < 2; ++k) {
    const CliResult r = runCli("tune --plan " + plan_ + " --dry-run --budget 2 --shard " +
                               std::to_string(k) + "/2");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("plan: 3 item(s); shard " + std::to_string(k) +
                            "/2 (from --shard) takes " + (k == 0 ? "2" : "1")),
              std::string::npos)
        << r.output;
    all += r.output;
  }
  for (const char* sizes :
       {"sizes 64x2048,64x2048", "sizes 32x1024,32x1024", "sizes 256x11008,256x11008"}) {
    EXPECT_NE(all.find(sizes), std::string::npos) << sizes << "\n" << all;
  }
  const CliResult shard0 = runCli("tune --plan " + plan_ + " --dry-run --shard 0/2");
  EXPECT_EQ(shard0.output.find("sizes 32x1024"), std::string::npos) << shard0.output;
}

TEST_F(CliCampaignTest, ShardComesFromASlurmArrayOrTorchrun) {
  ::setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
  ::setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
  CliResult r = runCli("tune --plan " + plan_ + " --dry-run --budget 1");
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("shard 1/2 (from SLURM_ARRAY_TASK_ID) takes 1"), std::string::npos)
      << r.output;
  ::setenv("RANK", "0", 1);
  ::setenv("WORLD_SIZE", "3", 1);
  r = runCli("tune --plan " + plan_ + " --dry-run --budget 1");
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  EXPECT_NE(r.output.find("shard 0/3 (from RANK) takes 1"), std::string::npos) << r.output;
}

TEST_F(CliCampaignTest, RecordFileBecomesAPlanOfItsSegments) {
  const std::string record = (dir_ / "met.jsonl").string();
  std::ofstream(record) << R"({"script": ")" << source("resources/examples/silu_mul.py")
                        << R"(", "fusion": null, "inputs": "16x512:bf16,16x512:bf16", )"
                        << R"("structure_hash": "0000000000000000"})"
                        << "\n";
  // The recorded hash matches no segment: nothing is listed for it.
  CliResult r = runCli("tune --from-record " + record + " --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("plan: 1 item(s)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("knobs:"), std::string::npos) << r.output;
  // Without a hash the item tunes every tunable segment.
  std::ofstream(record) << R"({"script": ")" << source("resources/examples/silu_mul.py")
                        << R"(", "inputs": "16x512:bf16,16x512:bf16"})"
                        << "\n";
  r = runCli("tune --from-record " + record + " --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("sizes 16x512,16x512"), std::string::npos) << r.output;
}

TEST_F(CliCampaignTest, ABadItemIsSkippedAndTheOthersGoOn) {
  const std::string plan = (dir_ / "bad.json").string();
  std::ofstream(plan) << R"({"fusions": [{"script": "gone.py"}, {"script": ")"
                      << source("resources/examples/silu_mul.py")
                      << R"(", "sizes": ["64x2048:bf16,64x2048:bf16"]}]})";
  const CliResult r = runCli("tune --plan " + plan + " --dry-run --budget 1");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("plan item 0 (" + (dir_ / "gone.py").string()), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sizes 64x2048,64x2048"), std::string::npos) << r.output;
}

TEST_F(CliCampaignTest, BadCampaignOptionsAreUserErrors) {
  const std::string file = source("resources/examples/silu_mul.py");
  for (const std::string& args :
       {"tune --plan " + plan_ + " " + file + " --dry-run",
        "tune --plan " + plan_ + " --from-record " + plan_ + " --dry-run",
        "tune --plan " + plan_ + " --dry-run --shard 2/2",
        "tune --plan " + (dir_ / "none.json").string() + " --dry-run",
        "tune " + file + " --dry-run --time-limit -3",
        // Recording is of GPU runs: the cpu reference backend compiles nothing.
        "run " + file + " --record " + (dir_ / "met.jsonl").string()}) {
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
  }
  if (runtime::cudaDeviceCount() == 0) {
    const CliResult r =
        runCli("tune " + file + " --db " + (dir_ / "t.db").string() + " --devices 0,1");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace fuserlab::cli
