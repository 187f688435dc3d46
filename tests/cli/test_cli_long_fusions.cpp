// Issue 43 defect 1: a 100,000-op chain through every command that reads a
// fusion. Each compiles or is refused (exit 2, saying why and the limit)
// without a crash: compile stopped at the kernel source limit before NVRTC,
// the full graph's SVG at the layout limit, while inspect, run on the CPU
// reference, the DOT text and the segment overview work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "tests/cli/cli_runner.h"

namespace {

using fuserlab::cli::BoundedCliResult;
using fuserlab::cli::runCliBounded;

// x -> add 1, mul 0.5, sub 1, ... : written once per test process.
const std::string& chainFile() {
  static const std::string path = [] {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("fuserlab_cli_long_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "chain100000.py").string();
    std::ofstream out(file);
    out << "from nvfuser_direct import FusionDefinition, DataType\n"
           "with FusionDefinition() as fd:\n"
           "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n";
    const char* const ops[] = {"add", "mul", "sub"};
    const char* const constants[] = {"1.0", "0.5", "1.0"};
    for (int i = 0; i < 100000; ++i) {
      out << "    T" << i + 1 << " = fd.ops." << ops[i % 3] << "(T" << i << ", " << constants[i % 3]
          << ")\n";
    }
    out << "    fd.add_output(T100000)\n"
           "inputs = [torch.randn(1024, dtype=torch.float32, device='cuda:0')]\n";
    return file;
  }();
  return path;
}

std::string scratch(const std::string& name) {
  return (std::filesystem::path(chainFile()).parent_path() / name).string();
}

BoundedCliResult run(std::vector<std::string> args) {
  // Well above the few seconds each takes here, well below a hang.
  return runCliBounded(args, /*addressSpaceBytes=*/0, /*timeoutSeconds=*/120);
}

void expectExit(const BoundedCliResult& r, int code) {
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_FALSE(r.timedOut) << r.output;
  EXPECT_EQ(r.exitCode, code) << r.output;
}

TEST(CliLongFusionTest, CompileOfA100000OpChainIsRefusedAtTheSourceLimit) {
  const BoundedCliResult r = run({"compile", chainFile()});
  expectExit(r, 2);
  EXPECT_NE(r.output.find("bytes of CUDA source; FuserLab compiles at most 4194304"),
            std::string::npos)
      << r.output;
}

TEST(CliLongFusionTest, InspectAndRunTakeA100000OpChain) {
  BoundedCliResult r = run({"inspect", chainFile()});
  expectExit(r, 0);
  EXPECT_NE(r.output.find("T100000"), std::string::npos) << r.output.substr(0, 2000);
  r = run({"run", chainFile()});
  expectExit(r, 0);
  EXPECT_NE(r.output.find("T100000  f32[1024]"), std::string::npos) << r.output;
}

TEST(CliLongFusionTest, GraphOfA100000OpChainWritesDotAndRefusesTheFullLayout) {
  BoundedCliResult r = run({"graph", chainFile(), "--format", "dot", "-o", scratch("g.dot")});
  expectExit(r, 0);
  r = run({"graph", chainFile(), "--format", "svg", "-o", scratch("g.svg")});
  expectExit(r, 2);
  EXPECT_NE(r.output.find("too large to lay out: 200001 nodes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--overview"), std::string::npos) << r.output;
  r = run({"graph", chainFile(), "--overview", "--format", "svg", "-o", scratch("o.svg")});
  expectExit(r, 0);
}

}  // namespace
