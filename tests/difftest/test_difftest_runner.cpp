// The differential tester's runner: one case's statuses in compile mode (no
// GPU), and the whole program with a worker that dies on one seed: the case
// is recorded as a crash, the rest of its range still runs, and the fusion
// is written as a script, then shrunk.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "tests/difftest/case_runner.h"

namespace fuserlab::difftest {
namespace {

std::string script(const std::string& body, const std::string& inputs) {
  return "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n"
         "with FusionDefinition() as fd:\n" +
         body + "inputs = [" + inputs + "]\nfd.execute(inputs)\n";
}

TEST(DifftestCaseTest, CompileModeBuildsEveryKernel) {
  const CaseResult r =
      runCase(script("    t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)\n"
                     "    t1 = fd.ops.sum(fd.ops.exp(t0), dims=[1])\n"
                     "    fd.add_output(fd.ops.mul(t0, t0))\n    fd.add_output(t1)\n",
                     "torch.randn(33, 129, device='cuda')"),
              "ok.py", {"upcast=forward", "dependent_launch=off"}, Mode::Compile, 0);
  EXPECT_EQ(r.status, Status::Pass) << r.detail;
  EXPECT_GE(r.kernels, 1);
}

TEST(DifftestCaseTest, WhatTheReaderRefusesIsInvalidNotAFailure) {
  const CaseResult r =
      runCase(script("    t0 = fd.ops.no_such_op()\n", ""), "bad.py", {}, Mode::Compile, 0);
  EXPECT_EQ(r.status, Status::Invalid);
  EXPECT_NE(r.detail.find("bad.py"), std::string::npos) << r.detail;
  EXPECT_FALSE(isFailure(r.status));
  const CaseResult option =
      runCase(script("    t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
                     "    fd.add_output(fd.ops.neg(t0))\n",
                     "torch.randn(8, device='cuda')"),
              "option.py", {"upcast=sideways"}, Mode::Compile, 0);
  EXPECT_EQ(option.status, Status::Invalid) << option.detail;
}

TEST(DifftestCaseTest, StatusNamesRoundTrip) {
  for (Status s :
       {Status::Pass, Status::Unavailable, Status::Refused, Status::Invalid, Status::WrongResult,
        Status::InternalError, Status::BuildFailure, Status::Crash}) {
    EXPECT_EQ(statusFromString(toString(s)), s);
  }
  EXPECT_TRUE(isFailure(Status::WrongResult));
  EXPECT_TRUE(isFailure(Status::Crash));
  EXPECT_FALSE(isFailure(Status::Unavailable));
}

std::string runProgram(const std::string& command, int& exitCode) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::array<char, 4096> buffer{};
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    output.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

TEST(DifftestProgramTest, AWorkerThatDiesCostsOnlyItsCase) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / "fuserlab-difftest-crash-test";
  std::filesystem::remove_all(out);
  int exitCode = 0;
  const std::string output = runProgram(
      "FUSERLAB_DIFFTEST_ABORT_SEED=12 " + std::string(FUSERLAB_DIFFTEST_BINARY) +
          " --mode compile --seed 10 --count 6 --jobs 2 --max-ops 4 --shrink-evaluations 6 --out " +
          out.string() + " 2>/dev/null",
      exitCode);
  EXPECT_EQ(exitCode, 1) << output;
  EXPECT_NE(output.find(", 1 failed (of 6 run"), std::string::npos) << output;
  EXPECT_NE(output.find("1 crash"), std::string::npos) << output;
  EXPECT_NE(output.find("seed 12: crash: the worker killed by signal 6"), std::string::npos)
      << output;
  EXPECT_TRUE(std::filesystem::exists(out / "difftest_12.py")) << output;
  EXPECT_TRUE(std::filesystem::exists(out / "difftest_12_min.py")) << output;
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace fuserlab::difftest
