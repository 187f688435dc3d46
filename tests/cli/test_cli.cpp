// End-to-end tests of fuserlab-cli: every bundled example runs on the CPU
// backend, --save-* write what was read and computed, and bad scripts and
// mismatched inputs exit with code 2 and say where and what.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/tensor/npy.h"
#include "tests/cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using fuserlab::cli::bundledExamples;
using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::cli::source;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CliExampleTest : public testing::TestWithParam<std::string> {};

TEST_P(CliExampleTest, RunsOnCpuBackendAndSavesOutputs) {
  const fs::path out = fs::temp_directory_path() / ("fuserlab_cli_" + GetParam());
  fs::remove_all(out);
  CliResult r = runCli("run " + source("resources/examples/" + GetParam()) +
                       " --backend cpu --seed 3 --save-inputs " + (out / "in").string() +
                       " --save-outputs " + (out / "out").string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("outputs:"), std::string::npos) << r.output;
  const std::string manifest = readFile(out / "out" / "manifest.json");
  EXPECT_NE(manifest.find("\"shape\""), std::string::npos) << manifest;
  EXPECT_TRUE(fs::exists(out / "out" / "output_0.npy"));
  EXPECT_TRUE(fs::exists(out / "in" / "manifest.json"));
  fs::remove_all(out);
}

TEST_P(CliExampleTest, InspectPrintsSignatureAndIr) {
  CliResult r = runCli("inspect " + source("resources/examples/" + GetParam()) +
                       " --dump fusion_ir --json -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("input signature"), std::string::npos);
  EXPECT_NE(r.output.find("%kernel {"), std::string::npos);
  EXPECT_NE(r.output.find("\"fusion_ir\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Examples, CliExampleTest, testing::ValuesIn(bundledExamples()),
                         [](const testing::TestParamInfo<std::string>& test) {
                           std::string name = test.param.substr(0, test.param.size() - 3);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(CliTest, SavedOutputsMatchSavedInputs) {
  // contiguous_pair adds two inputs: the saved output must be their sum.
  const fs::path out = fs::temp_directory_path() / "fuserlab_cli_pair";
  fs::remove_all(out);
  CliResult r = runCli("run " + source("tests/cli/scripts/contiguous_pair.py") +
                       " --inputs 4x8:f32,4x8:f32 --save-inputs " + (out / "in").string() +
                       " --save-outputs " + (out / "out").string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto a = fuserlab::runtime::readNpy((out / "in" / "input_0.npy").string());
  auto b = fuserlab::runtime::readNpy((out / "in" / "input_1.npy").string());
  auto c = fuserlab::runtime::readNpy((out / "out" / "output_0.npy").string());
  ASSERT_EQ(c.sizes(), (std::vector<int64_t>{4, 8}));
  int nonZero = 0;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 8; ++j) {
      EXPECT_FLOAT_EQ(c.item({i, j}), float(a.item({i, j}) + b.item({i, j})));
      nonZero += a.item({i, j}) != 0;
    }
  }
  EXPECT_GT(nonZero, 16) << "inputs must be random, not zeros";
  fs::remove_all(out);
}

TEST(CliTest, SeedChangesInputsDeterministically) {
  auto first = runCli("run " + source("tests/cli/scripts/contiguous_pair.py") +
                      " --inputs 2x2:f32,2x2:f32 --seed 1");
  auto again = runCli("run " + source("tests/cli/scripts/contiguous_pair.py") +
                      " --inputs 2x2:f32,2x2:f32 --seed 1");
  auto other = runCli("run " + source("tests/cli/scripts/contiguous_pair.py") +
                      " --inputs 2x2:f32,2x2:f32 --seed 2");
  ASSERT_EQ(first.exitCode, 0) << first.output;
  auto strip = [](const std::string& s) {  // drop the timing line
    return s.substr(0, s.find("reference run:"));
  };
  EXPECT_EQ(strip(first.output), strip(again.output));
  EXPECT_NE(strip(first.output), strip(other.output));
}

TEST(CliTest, SyntaxErrorGivesPositionAndCaret) {
  CliResult r = runCli("run " + source("tests/cli/scripts/unclosed_call.py"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  // Reported where the call should have closed, naming where it opened.
  EXPECT_NE(r.output.find("unclosed_call.py:6:5:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("opened at 5:20"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("^"), std::string::npos) << r.output;
}

TEST(CliTest, UnknownOpIsNamedWithPosition) {
  CliResult r = runCli("inspect " + source("tests/cli/scripts/unknown_op.py"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("unknown_op.py:5:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("frobnicate"), std::string::npos) << r.output;
}

TEST(CliTest, BlockInputWithWrongStridesIsAUserError) {
  // The script's second input is column-major but declared contiguous.
  CliResult r = runCli("run " + source("tests/cli/scripts/contiguous_pair.py"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("input 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stride"), std::string::npos) << r.output;
}

TEST(CliTest, MismatchedInputsAreUserErrors) {
  const std::string file = source("tests/cli/scripts/contiguous_pair.py");
  CliResult rank = runCli("run " + file + " --inputs 4x8:f32,4x8x2:f32");
  EXPECT_EQ(rank.exitCode, 2) << rank.output;
  EXPECT_NE(rank.output.find("input 1"), std::string::npos) << rank.output;
  EXPECT_NE(rank.output.find("rank 2"), std::string::npos) << rank.output;

  CliResult size = runCli("run " + file + " --inputs 4x8:f32,4x9:f32");
  EXPECT_EQ(size.exitCode, 2) << size.output;
  // The two inputs have independent symbolic extents, so the mismatch is
  // found where they meet: the add.
  EXPECT_NE(size.output.find("sizes 8 and 9 do not match on axis 1"), std::string::npos)
      << size.output;

  CliResult dtype = runCli("run " + file + " --inputs 4x8:f32,4x8:bf16");
  EXPECT_EQ(dtype.exitCode, 2) << dtype.output;
  EXPECT_NE(dtype.output.find("Float"), std::string::npos) << dtype.output;

  CliResult count = runCli("run " + file + " --inputs 4x8:f32");
  EXPECT_EQ(count.exitCode, 2) << count.output;

  CliResult spec = runCli("run " + file + " --inputs 4x8:f99,4x8:f32");
  EXPECT_EQ(spec.exitCode, 2) << spec.output;
  EXPECT_NE(spec.output.find("f99"), std::string::npos) << spec.output;
}

TEST(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(runCli("").exitCode, 2);
  EXPECT_EQ(runCli("frobnicate").exitCode, 2);
  EXPECT_EQ(runCli("run").exitCode, 2);
  EXPECT_EQ(runCli("run /nonexistent/file.py").exitCode, 2);
  CliResult opt = runCli("run " + source("resources/examples/softmax.py") + " --no-such-option 1");
  EXPECT_EQ(opt.exitCode, 2);
  EXPECT_NE(opt.output.find("--no-such-option"), std::string::npos);
}

}  // namespace

namespace {

TEST(CliTest, EachDefinitionRunsWithItsOwnInputsBlock) {
  // two_fusions.py builds two fusions, each followed by its own inputs block.
  const std::string file = source("resources/examples/two_fusions.py");
  CliResult first = runCli("run " + file + " --fusion nvfuser_fusion_id0");
  EXPECT_EQ(first.exitCode, 0) << first.output;
  CliResult second = runCli("run " + file + " --fusion nvfuser_fusion_id1");
  EXPECT_EQ(second.exitCode, 0) << second.output;
}

// Issue 44: every front end picks through frontend::selectFusion; an
// unknown name is an error listing the definitions.
TEST(CliTest, AnUnknownDefinitionListsTheDefinitions) {
  const std::string file = source("tests/cli/scripts/two_defs_one_block.py");
  const CliResult r = runCli("inspect " + file + " --fusion nope");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("has no fusion definition named 'nope'; it defines: unused, used"),
            std::string::npos)
      << r.output;
}

TEST(CliTest, ChoosingADefinitionWithoutInputsAsksForThem) {
  const std::string file = source("tests/cli/scripts/two_defs_one_block.py");
  CliResult r = runCli("run " + file + " --fusion unused");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("pass --inputs for unused"), std::string::npos) << r.output;
  CliResult ok = runCli("run " + file + " --fusion unused --inputs 8:f32");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
}

// Issue 44: every subcommand answers --help with its options and an
// example (`tune --help` said "unknown option --help").
TEST(CliTest, EverySubcommandAnswersHelp) {
  for (const std::string command : {"run", "inspect", "compile", "graph", "devices", "tune"}) {
    SCOPED_TRACE(command);
    for (const char* flag : {"--help", "-h"}) {
      const CliResult r = runCli(command + " " + flag);
      EXPECT_EQ(r.exitCode, 0) << r.output;
      EXPECT_NE(r.stdoutText.find("usage: fuserlab-cli " + command), std::string::npos)
          << r.stdoutText;
      EXPECT_NE(r.stdoutText.find("  " + command + " "), std::string::npos) << r.stdoutText;
      EXPECT_NE(r.stdoutText.find("example:\n  fuserlab-cli " + command), std::string::npos)
          << r.stdoutText;
    }
  }
  const CliResult bench = runCli("bench --help");
  EXPECT_EQ(bench.exitCode, 0);
  EXPECT_EQ(runCli("db --help").exitCode, 0);
}

}  // namespace
