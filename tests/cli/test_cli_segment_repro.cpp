// inspect --segment N --repro OUT.py and --repro-dir DIR (issue 47 item 2):
// each segment written as a standalone script that `run` runs and `inspect`
// compiles to one segment with the original segment's scheduler.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

namespace fs = std::filesystem;

class CliSegmentReproTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fuserlab_segment_repro_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(CliSegmentReproTest, OneSegmentIsWrittenAndRunsAlone) {
  const fs::path out = dir_ / "seg1.py";
  CliResult r = runCli("inspect " + source("resources/examples/seed000_forwarding_miss.py") +
                       " --segment 0 --repro " + out.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("segment 0 written to " + out.string()), std::string::npos);
  const std::string script = read(out);
  EXPECT_NE(script.find("def nvfuser_fusion_segment0(fd : FusionDefinition)"), std::string::npos)
      << script;
  EXPECT_NE(script.find("inputs = ["), std::string::npos) << script;
  EXPECT_NE(script.find("fd.execute(inputs)"), std::string::npos) << script;
  CliResult run = runCli("run " + out.string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  // The segment compiles alone to one segment with the scheduler it had.
  CliResult again = runCli("inspect " + out.string());
  EXPECT_EQ(again.exitCode, 0) << again.output;
  EXPECT_NE(again.output.find("segments: 1 "), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("segment 0: inner_persistent"), std::string::npos) << again.output;
}

TEST_F(CliSegmentReproTest, EverySegmentGoesIntoTheDirectory) {
  const fs::path out = dir_ / "segments";
  CliResult r = runCli("inspect " + source("resources/examples/meta_op_chain.py") +
                       " --repro-dir " + out.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("3 segment scripts written to"), std::string::npos) << r.output;
  for (int segment = 0; segment < 3; ++segment) {
    const fs::path file = out / ("segment_" + std::to_string(segment) + ".py");
    ASSERT_TRUE(fs::exists(file)) << file;
    CliResult run = runCli("run " + file.string());
    EXPECT_EQ(run.exitCode, 0) << file << "\n" << run.output;
  }
}

TEST_F(CliSegmentReproTest, ASegmentWithPrivatizedUpcastsIsWrittenInDependencyOrder) {
  // A LayerNorm backward's column sums read dy through two privatized
  // upcasts, made after the exprs that read them: the segment's script used
  // T12 a line before defining it ("T12 is not defined"). The segment is
  // now the whole backward (the combined kernel).
  const fs::path out = dir_ / "ln_bwd";
  CliResult r = runCli("inspect " + source("resources/examples/layer_norm_backward_weights.py") +
                       " --repro-dir " + out.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (int segment = 0; segment < 1; ++segment) {
    const fs::path file = out / ("segment_" + std::to_string(segment) + ".py");
    ASSERT_TRUE(fs::exists(file)) << file;
    CliResult run = runCli("run " + file.string());
    EXPECT_EQ(run.exitCode, 0) << file << "\n" << read(file) << "\n" << run.output;
  }
}

TEST_F(CliSegmentReproTest, BadCombinationsAreUserErrors) {
  const std::string file = source("resources/examples/layer_norm.py");
  CliResult r = runCli("inspect " + file + " --segment 0");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("--segment N needs --repro OUT.py"), std::string::npos) << r.output;
  r = runCli("inspect " + file + " --repro " + (dir_ / "x.py").string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("--repro OUT.py needs --segment N"), std::string::npos) << r.output;
  r = runCli("inspect " + file + " --segment 9 --repro " + (dir_ / "x.py").string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("--segment 9: the fusion has 1 segments (0 to 0)"), std::string::npos)
      << r.output;
  r = runCli("inspect " + file + " --segment x --repro " + (dir_ / "x.py").string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("--segment takes a segment number"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fuserlab::cli
