// What fuserlab-cli writes either arrives or is an error (issue 43): output
// into a full disk (/dev/full) was reported as success with exit 0. Every
// write, to a file or to stdout, is checked, its flush included, and a
// failed one is exit 2 with the reason on stderr. And --db names a file:
// ':memory:' and 'file:' URIs stored nothing and said 'stored entry 1'.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

// The heuristic's params for seed 001's segment 0 on the H100.
const char* kParams = R"({"schema_version":1,"fastest_dim_reduction":true,"persistent_kernel":true,"project_persistent_buffers":true,"persistent_storage":"registers","vectorization_factor":8,"persistent_batch_size":4,"unroll_factor_reduction":1,"unroll_factor_iteration":1,"block_dim_x":64,"block_dim_y":2,"grid_dim_x":1024,"grid_dim_y":1,"cross_block_reduction":true,"cross_grid_reduction":false,"cluster_reduction":false,"register_cap":0,"use_int32_indexing":true})";

class CliOutputTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    dir_ = std::filesystem::temp_directory_path() /
           ("fuserlab_cli_output_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(file("params.json")) << kParams;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  CliResult put(const std::string& db) {
    return runCli("db put --db '" + db + "' " + seed001() +
                  " --segment 0 --device h100 --params @" + file("params.json"));
  }
  static std::string seed001() {
    return source("resources/examples/seed001_nanogpt_layer_norm.py");
  }
  std::filesystem::path dir_;
};

TEST_F(CliOutputTest, WritesIntoAFullDiskAreExitTwo) {
  const std::string db = file("h.db");
  ASSERT_EQ(put(db).exitCode, 0);
  const std::string toFile = "No space left on device";
  const std::string toStdout = "writing the output to stdout failed";
  const std::pair<std::string, std::string> cases[] = {
      {"db export --db " + db + " --output /dev/full", toFile},
      {"db export --db " + db + " >/dev/full", toStdout},
      {"db list --db " + db + " >/dev/full", toStdout},
      {"db list --db " + db + " --json - >/dev/full", toStdout},
      {"db list --db " + db + " --json /dev/full", toFile},
      {"db show --db " + db + " 1 >/dev/full", toStdout},
      {"inspect " + seed001() + " --json /dev/full", toFile},
      {"inspect " + seed001() + " --json - >/dev/full", toStdout},
      {"devices --json /dev/full", toFile},
      {"devices --json - >/dev/full", toStdout},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  // The same commands into a file that takes the bytes succeed.
  EXPECT_EQ(runCli("db export --db " + db + " --output " + file("out.jsonl")).exitCode, 0);
  EXPECT_EQ(runCli("db list --db " + db + " --json - >" + file("out.json")).exitCode, 0);
}

TEST_F(CliOutputTest, DbNamesAFileNotASqliteUri) {
  for (const std::string& db :
       std::vector<std::string>{":memory:", "file:x?mode=memory", "file:" + file("u.db")}) {
    const CliResult r = put(db);
    EXPECT_EQ(r.exitCode, 2) << db << "\n" << r.output;
    EXPECT_NE(r.output.find("must be a file path"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("stored entry"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(file("u.db")));
  // A file whose name merely looks like a URI is a file like any other.
  const std::string odd = file("file:odd?mode=memory&x=%41.db");
  ASSERT_EQ(odd.front(), '/');
  const CliResult r = put(odd);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(odd));
  EXPECT_EQ(runCli("db list --db '" + odd + "'").exitCode, 0);
}

}  // namespace
}  // namespace fuserlab::cli
