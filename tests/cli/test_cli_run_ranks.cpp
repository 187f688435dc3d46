// fuserlab-cli run --ranks N: multi-device fusions on CPU ranks (threads)
// checked against the unsharded reference; inspect shows the communication
// segment; on a machine with N GPUs, the same on the cuda backend (NCCL).
#include <gtest/gtest.h>

#include <string>

#include "core/cuda/cuda_device.h"
#include "tests/cli/cli_runner.h"

namespace {

using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::cli::source;

TEST(CliRunRanksTest, CpuRanksMatchTheUnshardedReference) {
  for (const char* example : {"loop_split_mlp", "attention_heads", "collectives", "residual_add",
                              "reshape_sharded_heads"}) {
    CliResult r =
        runCli("run " + source(std::string("resources/examples/multidevice/") + example + ".py") +
               " --ranks 2 --check");
    EXPECT_EQ(r.exitCode, 0) << example << "\n" << r.output;
    EXPECT_NE(r.output.find("outputs of 2 ranks match the unsharded cpu reference"),
              std::string::npos)
        << r.output;
  }
}

TEST(CliRunRanksTest, ProgramLinesNameTheCollective) {
  CliResult r =
      runCli("run " + source("resources/examples/multidevice/loop_split_mlp.py") + " --ranks 2");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("3 segments (2 compute, 1 communication)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("segment 2: allreduce (partial over mesh{0 1}"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("2 ranks (threads, cpu reference)"), std::string::npos) << r.output;
}

TEST(CliRunRanksTest, InspectShowsTheCommunicationSegment) {
  CliResult r = runCli("inspect " + source("resources/examples/multidevice/attention_heads.py"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("T15 = linear(...): partial over mesh{0 1}"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(": communication, 1 exprs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("collective: allreduce (partial over mesh{0 1}"), std::string::npos)
      << r.output;
}

TEST(CliRunRanksTest, BadRankCountsAreUserErrors) {
  const std::string file = source("resources/examples/multidevice/loop_split_mlp.py");
  CliResult zero = runCli("run " + file + " --ranks 0");
  EXPECT_EQ(zero.exitCode, 2) << zero.output;
  EXPECT_NE(zero.output.find("--ranks expects"), std::string::npos) << zero.output;
  CliResult four = runCli("run " + file + " --ranks 4");
  EXPECT_EQ(four.exitCode, 2) << four.output;
  EXPECT_NE(four.output.find("--ranks 2"), std::string::npos) << four.output;
}

TEST(CliRunRanksTest, CudaRanksNeedAsManyGpus) {
  if (fuserlab::runtime::cudaDeviceCount() >= 2) {
    CliResult r = runCli("run " + source("resources/examples/multidevice/loop_split_mlp.py") +
                         " --ranks 2 --backend cuda --check");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("processes, one GPU each, NCCL"), std::string::npos) << r.output;
    return;
  }
  CliResult r = runCli("run " + source("resources/examples/multidevice/loop_split_mlp.py") +
                       " --ranks 2 --backend cuda");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("needs 2 GPUs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--backend cpu runs the ranks as threads"), std::string::npos)
      << r.output;
}

}  // namespace
