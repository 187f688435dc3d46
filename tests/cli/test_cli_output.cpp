// What fuserlab-cli writes either arrives or is an error (issue 43): output
// into a full disk (/dev/full) was reported as success with exit 0. Every
// write, to a file or to stdout, is checked, its flush included, and a
// failed one is exit 2 with the reason on stderr. And --db names a file:
// ':memory:' and 'file:' URIs stored nothing and said 'stored entry 1'.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/cuda/cuda_device.h"
#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

// The heuristic's params for seed 001's segment 0 on the H100.
const char* kParams =
    R"({"schema_version":1,"fastest_dim_reduction":true,"persistent_kernel":true,"project_persistent_buffers":true,"persistent_storage":"registers","vectorization_factor":8,"persistent_batch_size":4,"unroll_factor_reduction":1,"unroll_factor_iteration":1,"block_dim_x":64,"block_dim_y":2,"grid_dim_x":1024,"grid_dim_y":1,"cross_block_reduction":true,"cross_grid_reduction":false,"cluster_reduction":false,"register_cap":0,"use_int32_indexing":true})";

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

// The other commands that write a file a user names: compile --out DIR
// (the kernels), run --save-inputs/--save-outputs DIR (.npy and the
// manifest), graph -o FILE and tune --json FILE. A file inside an output
// directory is made a link to /dev/full to make its write fail.
TEST_F(CliOutputTest, KernelsTensorsGraphsAndTuneReportsIntoAFullDiskAreExitTwo) {
  const auto fullDirectory = [&](const std::string& name, const std::string& inside) {
    std::filesystem::create_directories(file(name));
    std::filesystem::create_symlink("/dev/full", file(name + "/" + inside));
    return file(name);
  };
  const std::string layerNorm = source("resources/examples/layer_norm.py");
  struct Case {
    std::string args;
    std::string failedPath;  // named in the message
    std::string success;     // a line the command prints only on success
  };
  const Case cases[] = {
      {"compile " + seed001() + " --out " + fullDirectory("k", "fuserlab_device.cuh"),
       file("k/fuserlab_device.cuh"), "wrote the kernels"},
      {"run " + seed001() + " --save-outputs " + fullDirectory("o", "output_0.npy"),
       file("o/output_0.npy"), "saved 1 outputs"},
      {"run " + seed001() + " --save-outputs " + fullDirectory("m", "manifest.json"),
       file("m/manifest.json"), "saved 1 outputs"},
      {"run " + seed001() + " --save-inputs " + fullDirectory("i", "input_1.npy"),
       file("i/input_1.npy"), "saved 3 inputs"},
      {"graph " + seed001() + " --format dot -o /dev/full", "/dev/full", "wrote /dev/full"},
      {"tune " + layerNorm +
           " --inputs 512x4096:bf16,4096:bf16,4096:bf16 --dry-run "
           "--json /dev/full",
       "/dev/full", ""},
  };
  for (const Case& c : cases) {
    const CliResult r = runCli(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("writing '" + c.failedPath +
                            "' failed after 0 bytes: No space "
                            "left on device"),
              std::string::npos)
        << c.args << "\n"
        << r.output;
    if (!c.success.empty()) {
      EXPECT_EQ(r.output.find(c.success), std::string::npos) << c.args << "\n" << r.output;
    }
  }
}

// bench --json PATH: the same, on a machine with a GPU (bench needs one).
TEST_F(CliOutputTest, BenchJsonIntoAFullDiskIsExitTwo) {
  if (runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << runtime::cudaUnavailableReason();
  }
  const CliResult r = runCli("bench " + source("resources/examples/silu_mul.py") +
                             " --samples 20 --warmup 1 --json /dev/full");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("writing '/dev/full' failed after 0 bytes: No space left on device"),
            std::string::npos)
      << r.output;
}

// An output path that is a named pipe hung the command forever when nothing
// read the pipe (the open waited for a reader). Now it is an error at once;
// with a reader holding the pipe open the output goes through it.
TEST_F(CliOutputTest, ANamedPipeWithoutAReaderIsAnErrorNotAHang) {
  const std::string db = file("h.db");
  ASSERT_EQ(put(db).exitCode, 0);
  const std::string fifo = file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto pipeIn = [&](const std::string& name, const std::string& inside) {
    std::filesystem::create_directories(file(name));
    EXPECT_EQ(::mkfifo(file(name + "/" + inside).c_str(), 0600), 0);
    return file(name);
  };
  const std::string layerNorm = source("resources/examples/layer_norm.py");
  const std::vector<std::vector<std::string>> cases = {
      {"inspect", seed001(), "--json", fifo},
      {"devices", "--json", fifo},
      {"db", "export", "--db", db, "--output", fifo},
      {"db", "list", "--db", db, "--json", fifo},
      {"graph", seed001(), "--format", "dot", "-o", fifo},
      {"tune", layerNorm, "--inputs", "512x4096:bf16,4096:bf16,4096:bf16", "--dry-run", "--json",
       fifo},
      {"compile", seed001(), "--out", pipeIn("k", "fuserlab_device.cuh")},
      {"run", seed001(), "--save-outputs", pipeIn("o", "output_0.npy")},
  };
  for (const auto& args : cases) {
    std::string line;
    for (const std::string& a : args) line += a + " ";
    const BoundedCliResult r = runCliBounded(args, 0, /*timeoutSeconds=*/60);
    EXPECT_FALSE(r.timedOut) << line;
    EXPECT_EQ(r.exitCode, 2) << line << "\n" << r.output;
    EXPECT_NE(r.output.find("no reader on the named pipe"), std::string::npos) << line << "\n"
                                                                               << r.output;
  }
  // A reader that holds the pipe open gets the report (it fits the pipe's
  // buffer, so the command need not wait for it to be read).
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const BoundedCliResult r = runCliBounded({"db", "list", "--db", db, "--json", fifo}, 0, 60);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::string received(1 << 16, '\0');
  const ssize_t n = ::read(reader, received.data(), received.size());
  ::close(reader);
  ASSERT_GT(n, 0);
  received.resize(static_cast<size_t>(n));
  EXPECT_NE(received.find("inner_persistent"), std::string::npos) << received;
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

// Issue 43, the second hostile corpus: an output path that names a file the
// command reads replaced it. `graph x.py -o x.py` and `inspect x.py
// --segment 0 --repro x.py` wrote over the script (exit 0), and
// `db export --db h.db --output h.db` replaced the database with its own
// export. Each is refused now, and the input is kept, through a link too.
TEST_F(CliOutputTest, AnOutputPathThatNamesAnInputIsRefused) {
  const std::string db = file("h.db");
  ASSERT_EQ(put(db).exitCode, 0);
  const std::string script = file("script.py");
  std::filesystem::copy_file(seed001(), script);
  std::filesystem::create_symlink(script, file("link.py"));
  std::ifstream original(script);
  const std::string text((std::istreambuf_iterator<char>(original)), {});
  const auto dbBytes = std::filesystem::file_size(db);
  const std::pair<std::string, std::string> cases[] = {
      {"graph " + script + " --format dot -o " + script, "it is the script this command reads"},
      {"graph " + script + " --format dot -o " + file("link.py"), "it is the script"},
      {"inspect " + script + " --segment 0 --repro " + script, "it is the script"},
      {"inspect " + script + " --json " + script, "it is the script"},
      {"db export --db " + db + " --output " + db, "it is the heuristics database this command"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("refusing to write"), std::string::npos) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  std::ifstream after(script);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(after)), {}), text);
  EXPECT_EQ(std::filesystem::file_size(db), dbBytes);
  EXPECT_EQ(runCli("db list --db " + db).exitCode, 0);
  // Another path is written as before.
  EXPECT_EQ(runCli("graph " + script + " --format dot -o " + file("g.dot")).exitCode, 0);
}

}  // namespace
}  // namespace fuserlab::cli
