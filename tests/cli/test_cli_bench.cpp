// fuserlab-cli bench: without a GPU a clear user error (exit 2), option
// checks and the help text on any machine; on a GPU, a benchmark of a
// bundled example with plausible figures in the table and the JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/cuda/cuda_device.h"
#include "core/report/json.h"
#include "tests/cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::cli::source;
using fuserlab::report::Json;

std::string siluMul() { return source("resources/examples/silu_mul.py"); }

TEST(CliBenchTest, WithoutAGpuBenchIsAUserError) {
  if (fuserlab::runtime::cudaDeviceCount() > 0) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  const CliResult r = runCli("bench " + siluMul());
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("fuserlab-cli bench: no CUDA device: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("median"), std::string::npos) << r.output;
}

TEST(CliBenchTest, OptionErrorsExitTwo) {
  CliResult r = runCli("bench " + siluMul() + " --samples 5");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--samples must be between 20 and 100000"), std::string::npos)
      << r.output;
  r = runCli("bench " + siluMul() + " --samples many");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--samples expects an integer, found 'many'"), std::string::npos)
      << r.output;
  r = runCli("bench " + siluMul() + " --warmup -1");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--warmup must be between 0"), std::string::npos) << r.output;
  r = runCli("bench " + siluMul() + " --device h100");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--device for bench names a GPU of this machine, 'cuda' or "
                          "'cuda:N', found 'h100'"),
            std::string::npos)
      << r.output;
  r = runCli("bench " + siluMul() + " --backend cuda");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option --backend"), std::string::npos) << r.output;
  r = runCli("bench");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("missing argument FILE"), std::string::npos) << r.output;
  r = runCli("bench " + source("tests/cli/scripts/no_such_file.py"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST(CliBenchTest, HelpTextDescribesTheCommand) {
  CliResult r = runCli("bench --help");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("usage: fuserlab-cli bench FILE"), std::string::npos);
  EXPECT_NE(r.output.find("--samples N"), std::string::npos);
  EXPECT_NE(r.output.find("copy bandwidth"), std::string::npos);
  EXPECT_NE(r.output.find("L2"), std::string::npos);
  r = runCli("--help");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("bench FILE"), std::string::npos) << r.output;
}

TEST(CliBenchTest, BenchesSiluMulOnTheGpu) {
  if (fuserlab::runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << fuserlab::runtime::cudaUnavailableReason();
  }
  const fs::path path = fs::temp_directory_path() / "fuserlab_cli_bench.json";
  fs::remove(path);
  const CliResult r = runCli("bench " + siluMul() + " --samples 20 --json " + path.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("fusion on the GPU (events)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bandwidth ratio"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("host time per launch"), std::string::npos) << r.output;

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const Json json = Json::parse(text.str());
  for (const char* key : {"fusion",
                          "device",
                          "inputs",
                          "gpu_us",
                          "samples_us",
                          "launches",
                          "bytes_moved",
                          "effective_bandwidth_bytes_per_s",
                          "copy",
                          "bandwidth_ratio",
                          "host_us",
                          "host_us_per_launch",
                          "run_wall_us",
                          "first_run_ms",
                          "compile_ms",
                          "compile_us",
                          "params_sources",
                          "l2_flush_bytes",
                          "kernels_built",
                          "compile_ms_per_kernel",
                          "first_run_images",
                          "kernel_build"}) {
    EXPECT_NE(json.get(key), nullptr) << key << " missing in " << text.str();
  }
  ASSERT_NE(json.get("gpu_us"), nullptr);
  const double median = json.get("gpu_us")->get("median")->asDouble();
  EXPECT_GT(median, 0);
  EXPECT_LE(json.get("gpu_us")->get("p20")->asDouble(), median);
  EXPECT_GE(json.get("gpu_us")->get("p80")->asDouble(), median);
  EXPECT_EQ(json.get("samples_us")->items().size(), 20u);
  // Two bf16 [256, 11008] inputs read, one written.
  EXPECT_EQ(json.get("bytes_moved")->asInt(), 3 * 256 * 11008 * 2);
  const double ratio = json.get("bandwidth_ratio")->asDouble();
  EXPECT_GT(ratio, 0);
  EXPECT_LT(ratio, 1.2);
  EXPECT_GT(json.get("copy")->get("bandwidth_bytes_per_s")->asDouble(), 1e11);
  EXPECT_GE(json.get("kernel_launches")->asInt(), 1);
  EXPECT_GT(json.get("host_us_per_launch")->asDouble(), 0);
  EXPECT_GT(json.get("compile_us")->asDouble(), 0);
  EXPECT_GT(json.get("first_run_ms")->asDouble(), 0);
  // Each kernel built both ways: NVRTC into an empty cache, then read back.
  const Json* build = json.get("kernel_build");
  ASSERT_NE(build, nullptr);
  EXPECT_GE(build->get("kernels")->asInt(), 1);
  EXPECT_GT(build->get("warm_ms_per_kernel")->asDouble(), 0);
  EXPECT_GT(build->get("cold_ms_per_kernel")->asDouble(),
            build->get("warm_ms_per_kernel")->asDouble());
  EXPECT_NE(r.output.find("kernel build, cold"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel build, warm"), std::string::npos) << r.output;
  const Json* images = json.get("first_run_images");
  ASSERT_NE(images, nullptr);
  EXPECT_EQ(images->get("compiled")->asInt() + images->get("from_cache")->asInt(),
            json.get("kernels_built")->asInt());
  EXPECT_EQ(json.get("params_sources")->items().size(),
            size_t(json.get("launches")->items().size()));
  // The kernels' own time from CUPTI's records: inside the events' window,
  // which also holds the GPU's start of the kernel and the end event.
  EXPECT_NE(r.output.find("kernels on the GPU (CUPTI records)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over the kernels' time"), std::string::npos) << r.output;
  const Json* cupti = json.get("cupti_kernels");
  ASSERT_NE(cupti, nullptr);
  ASSERT_EQ(cupti->get("unavailable"), nullptr) << cupti->get("unavailable")->asString();
  const double span = cupti->get("span_us")->get("median")->asDouble();
  EXPECT_GT(span, 0);
  EXPECT_LT(span, median);
  EXPECT_EQ(cupti->get("kernels")->items().size(), size_t(json.get("kernel_launches")->asInt()));
  EXPECT_GT(cupti->get("bandwidth_ratio")->asDouble(), ratio);
  fs::remove(path);
}

TEST(CliBenchTest, JsonToStdoutKeepsTheTableOnStderr) {
  if (fuserlab::runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << fuserlab::runtime::cudaUnavailableReason();
  }
  const CliResult r = runCli("bench " + siluMul() + " --samples 20 --warmup 1 --json -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const Json json = Json::parse(r.stdoutText);
  EXPECT_GT(json.get("gpu_us")->get("median")->asDouble(), 0);
  EXPECT_NE(r.output.find("bandwidth ratio"), std::string::npos) << r.output;
}

}  // namespace
