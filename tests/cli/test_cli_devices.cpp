// fuserlab-cli devices: the built-in table and this machine's GPUs, as text
// and as JSON; on a machine without a GPU it says so and still exits 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/report/json.h"
#include "tests/cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using fuserlab::cli::CliResult;
using fuserlab::cli::runCli;
using fuserlab::report::Json;

const Json* findByKey(const Json& devices, const std::string& key) {
  for (const Json& device : devices.items()) {
    if (device.get("key")->asString() == key) return &device;
  }
  return nullptr;
}

TEST(CliDevicesTest, ListsTheBuiltinTableAndThisMachinesGpus) {
  const CliResult r = runCli("devices");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* key : {"v100", "a100-80gb", "h100", "h200", "l40s", "rtx6000-ada"}) {
    EXPECT_NE(r.output.find(std::string("\n  ") + key + " "), std::string::npos) << key << "\n"
                                                                                 << r.output;
  }
  // The H100 row: arch, SMs, L2, bandwidth, opt-in shared memory per block.
  EXPECT_NE(r.output.find("NVIDIA H100 SXM5 80GB"), std::string::npos);
  EXPECT_NE(r.output.find("sm_90   132   50 MiB"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3.35 TB/s    227 KiB"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CUDA devices of this machine"), std::string::npos);
  // Either a GPU is listed or the output says why there is none.
  const bool noGpu =
      r.output.find("no CUDA device present (cudaGetDeviceCount: ") != std::string::npos;
  const bool gpu = r.output.find("\n  cuda:0 ") != std::string::npos;
  EXPECT_NE(noGpu, gpu) << r.output;
}

TEST(CliDevicesTest, JsonToStdoutHasEveryDevice) {
  const CliResult r = runCli("devices --json -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const Json json = Json::parse(r.stdoutText);
  EXPECT_EQ(json.get("default")->asString(), "h100");
  const Json* h100 = findByKey(*json.get("builtin"), "h100");
  ASSERT_NE(h100, nullptr) << r.output;
  EXPECT_EQ(h100->get("arch")->asString(), "sm_90");
  EXPECT_EQ(h100->get("sm_count")->asInt(), 132);
  EXPECT_EQ(h100->get("l2_cache_bytes")->asInt(), 50 * 1024 * 1024);
  EXPECT_EQ(h100->get("shared_memory_per_block_optin_bytes")->asInt(), 227 * 1024);
  EXPECT_NE(findByKey(*json.get("builtin"), "rtx6000-ada"), nullptr);
  const auto& cuda = json.get("cuda")->items();
  if (cuda.empty()) {
    EXPECT_NE(json.get("cuda_unavailable")->asString().find("cudaGetDeviceCount"),
              std::string::npos);
  } else {
    EXPECT_EQ(cuda[0].get("key")->asString(), "cuda:0");
    EXPECT_TRUE(cuda[0].get("from_hardware")->asBool());
  }
}

TEST(CliDevicesTest, JsonToAFile) {
  const fs::path path = fs::temp_directory_path() / "fuserlab_cli_devices.json";
  fs::remove(path);
  const CliResult r = runCli("devices --json " + path.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("built-in devices"), std::string::npos);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const Json json = Json::parse(text.str());
  EXPECT_NE(findByKey(*json.get("builtin"), "v100"), nullptr);
  fs::remove(path);
}

TEST(CliDevicesTest, BadArgumentsExitWithTwo) {
  CliResult r = runCli("devices --device h100");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option --device"), std::string::npos);
  r = runCli("devices h100");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("devices takes no arguments, found 'h100'"), std::string::npos)
      << r.output;
}

}  // namespace
