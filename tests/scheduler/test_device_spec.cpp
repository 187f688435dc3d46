// The built-in device table, name lookup with aliases, the JSON of a
// DeviceSpec, and --device resolution (cuda:N and built-in names), which on
// a machine without a GPU must fail with a message that names a way out.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/cuda/cuda_device.h"
#include "core/ir/error.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::scheduler {
namespace {

std::string userErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(DeviceSpecTest, TableHasTheDevicesTheHeuristicsTarget) {
  std::vector<std::string> keys;
  for (const DeviceSpec& spec : builtinDevices()) keys.push_back(spec.key);
  const std::vector<std::string> required = {"v100", "a100-80gb", "h100",
                                             "h200", "l40s",      "rtx6000-ada"};
  ASSERT_GE(keys.size(), required.size());
  // The first entries come in the documented order.
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 6), required);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size())
      << "keys must be unique";
}

TEST(DeviceSpecTest, EveryEntryIsConsistent) {
  for (const DeviceSpec& spec : builtinDevices()) {
    SCOPED_TRACE(spec.key);
    EXPECT_FALSE(spec.fromHardware);
    EXPECT_GT(spec.smCount, 0);
    EXPECT_GE(spec.computeCapability(), 70);
    EXPECT_LE(spec.sharedMemoryPerBlockBytes, spec.sharedMemoryPerBlockOptinBytes);
    EXPECT_LE(spec.sharedMemoryPerBlockOptinBytes, spec.sharedMemoryPerSmBytes);
    EXPECT_GT(spec.l2CacheBytes, 0);
    EXPECT_GT(spec.memoryBytes, spec.l2CacheBytes);
    EXPECT_GT(spec.memoryBandwidthBytesPerSecond, 1e11);
    EXPECT_GT(spec.clockKhz, 0);
    EXPECT_LE(spec.maxThreadsPerBlock, spec.maxThreadsPerSm);
    // Both the key and the marketing name find the entry.
    ASSERT_TRUE(findBuiltinDevice(spec.key).has_value());
    EXPECT_EQ(findBuiltinDevice(spec.key)->key, spec.key);
    ASSERT_TRUE(findBuiltinDevice(spec.name).has_value());
    EXPECT_EQ(findBuiltinDevice(spec.name)->key, spec.key);
  }
}

TEST(DeviceSpecTest, H100FiguresFromTheDataSheet) {
  auto h100 = findBuiltinDevice("h100");
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->arch(), "sm_90");
  EXPECT_EQ(h100->computeCapability(), 90);
  EXPECT_EQ(h100->smCount, 132);
  EXPECT_EQ(h100->l2CacheBytes, 50 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h100->memoryBandwidthBytesPerSecond, 3.35e12);
  EXPECT_EQ(h100->sharedMemoryPerSmBytes, 228 * 1024);
  EXPECT_EQ(h100->sharedMemoryPerBlockOptinBytes, 227 * 1024);
  EXPECT_EQ(h100->maxThreadsPerSm, 2048);
  // Clusters of 16 blocks of one SM each (non-portable, as the GPU's
  // occupancy API reports); none before sm_90.
  EXPECT_EQ(h100->maxClusterBlocks, 16);
  // And how many clusters of each size it holds at once: a cluster stays in
  // one GPC, so 15 of 8 (not 132 / 8) and 7 of 10 to 16.
  ASSERT_EQ(h100->residentClusters.size(), 17u);
  EXPECT_EQ(h100->residentClusters[1], 132);
  EXPECT_EQ(h100->residentClusters[8], 15);
  EXPECT_EQ(h100->residentClusters[16], 7);
  EXPECT_EQ(findBuiltinDevice("a100")->maxClusterBlocks, 0);
  EXPECT_EQ(findBuiltinDevice("l40s")->maxClusterBlocks, 0);

  auto h200 = findBuiltinDevice("h200");
  ASSERT_TRUE(h200.has_value());
  EXPECT_EQ(h200->arch(), "sm_90");
  EXPECT_EQ(h200->smCount, 132);
  EXPECT_DOUBLE_EQ(h200->memoryBandwidthBytesPerSecond, 4.8e12);
  EXPECT_EQ(h200->memoryBytes, 141 * int64_t{1000000000});
  EXPECT_EQ(h200->l2CacheBytes, 60 * 1024 * 1024);  // as the hardware reports

  EXPECT_EQ(findBuiltinDevice("v100")->arch(), "sm_70");
  EXPECT_EQ(findBuiltinDevice("a100-80gb")->arch(), "sm_80");
  EXPECT_EQ(findBuiltinDevice("l40s")->arch(), "sm_89");
  EXPECT_EQ(findBuiltinDevice("rtx6000-ada")->arch(), "sm_89");
}

TEST(DeviceSpecTest, FindAcceptsAliasesCaseInsensitively) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"H100", "h100"},
      {"h100-sxm", "h100"},
      {"H100_SXM5", "h100"},
      {"NVIDIA H100 80GB HBM3", "h100"},
      {"A100", "a100-80gb"},
      {"a100-sxm4-80gb", "a100-80gb"},
      {"rtx 6000 ada", "rtx6000-ada"},
      {"rtx6000ada", "rtx6000-ada"},
      {"NVIDIA RTX 6000 Ada Generation", "rtx6000-ada"},
      {"Tesla V100-SXM2-32GB", "v100"},
      {"L40S", "l40s"},
      {"H200", "h200"},
  };
  for (const auto& [name, key] : cases) {
    auto spec = findBuiltinDevice(name);
    ASSERT_TRUE(spec.has_value()) << name;
    EXPECT_EQ(spec->key, key) << name;
  }
  EXPECT_FALSE(findBuiltinDevice("h900").has_value());
  EXPECT_FALSE(findBuiltinDevice("").has_value());
  EXPECT_FALSE(findBuiltinDevice("nvidia").has_value());
}

TEST(DeviceSpecTest, DefaultIsH100) { EXPECT_EQ(defaultDevice().key, "h100"); }

TEST(DeviceSpecTest, JsonNamesTheFieldsInSnakeCase) {
  const report::Json json = findBuiltinDevice("h100")->toJson();
  ASSERT_NE(json.get("compute_capability"), nullptr);
  EXPECT_EQ(json.get("compute_capability")->asString(), "9.0");
  EXPECT_EQ(json.get("arch")->asString(), "sm_90");
  EXPECT_EQ(json.get("sm_count")->asInt(), 132);
  EXPECT_EQ(json.get("max_cluster_blocks")->asInt(), 16);
  EXPECT_EQ(json.get("resident_clusters")->dump(-1),
            "[0,132,66,39,30,22,17,15,15,9,7,7,7,7,7,7,7]");
  EXPECT_EQ(json.get("shared_memory_per_block_optin_bytes")->asInt(), 232448);
  EXPECT_EQ(json.get("l2_cache_bytes")->asInt(), 52428800);
  EXPECT_DOUBLE_EQ(json.get("memory_bandwidth_bytes_per_second")->asDouble(), 3.35e12);
  EXPECT_FALSE(json.get("from_hardware")->asBool());
  // It reads back as the same JSON.
  EXPECT_EQ(report::Json::parse(json.dump()), json);
}

TEST(DeviceSpecTest, ResolveDeviceTakesBuiltinNames) {
  EXPECT_FALSE(runtime::resolveDevice("").has_value());
  auto spec = runtime::resolveDevice("H100-SXM");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->key, "h100");
  const std::string error = userErrorOf([] { runtime::resolveDevice("h900"); });
  EXPECT_NE(error.find("unknown device 'h900'"), std::string::npos) << error;
  EXPECT_NE(error.find("v100, a100-80gb, h100, h200, l40s, rtx6000-ada"), std::string::npos)
      << error;
  const std::string badIndex = userErrorOf([] { runtime::resolveDevice("cuda:x"); });
  EXPECT_NE(badIndex.find("expected cuda:N"), std::string::npos) << badIndex;
}

// Holds on both kinds of machine: without a GPU (or driver) the count is 0
// and cuda:0 is a UserError that suggests a built-in device; with one,
// cuda:0 is read from the hardware.
TEST(DeviceSpecTest, CudaDevicesOfThisMachine) {
  const int count = runtime::cudaDeviceCount();
  ASSERT_GE(count, 0);
  EXPECT_FALSE(runtime::queryCudaDevice(count).has_value());
  EXPECT_FALSE(runtime::queryCudaDevice(-1).has_value());
  if (count == 0) {
    EXPECT_FALSE(runtime::queryCudaDevice(0).has_value());
    EXPECT_NE(runtime::cudaUnavailableReason().find("cudaGetDeviceCount"), std::string::npos);
    const std::string error = userErrorOf([] { runtime::resolveDevice("cuda:0"); });
    EXPECT_NE(error.find("no CUDA device 0: this machine has no GPU "
                         "(cudaGetDeviceCount: "),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("use a built-in device such as --device h100"), std::string::npos)
        << error;
    return;
  }
  auto spec = runtime::resolveDevice("cuda:0");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->key, "cuda:0");
  EXPECT_TRUE(spec->fromHardware);
  EXPECT_GT(spec->smCount, 0);
  EXPECT_GE(spec->computeCapability(), 70);
  EXPECT_GT(spec->memoryBandwidthBytesPerSecond, 1e11);
  EXPECT_GT(spec->l2CacheBytes, 0);
  EXPECT_GE(spec->sharedMemoryPerBlockOptinBytes, spec->sharedMemoryPerBlockBytes);
  const std::string error =
      userErrorOf([count] { runtime::resolveDevice("cuda:" + std::to_string(count)); });
  EXPECT_NE(error.find("no CUDA device " + std::to_string(count)), std::string::npos) << error;
}

}  // namespace
}  // namespace fuserlab::scheduler
