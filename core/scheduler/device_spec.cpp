#include "core/scheduler/device_spec.h"

#include <cctype>

#include "core/ir/error.h"

namespace fuserlab::scheduler {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGB = 1'000'000'000;  // memory sizes are sold in decimal GB

// The figures of one table entry; the fields not listed keep DeviceSpec's
// defaults (warp 32, 1024 threads and 64 Ki registers per block, 255
// registers per thread, 48 KiB shared memory per block without opt-in),
// which hold for every architecture in the table.
struct TableEntry {
  const char* key;
  const char* name;
  int major;
  int minor;
  int smCount;
  int maxThreadsPerSm;
  int64_t sharedMemoryPerSmBytes;
  int64_t sharedMemoryPerBlockOptinBytes;
  int64_t l2CacheBytes;
  int64_t memoryBytes;
  double memoryBandwidthBytesPerSecond;
  int clockKhz;          // boost clock
  int maxClusterBlocks;  // 0 before sm_90
  // Other spellings accepted by --device, in normalized form (see normalize).
  std::vector<const char*> aliases;
  // DeviceSpec::residentClusters; empty where not measured.
  std::vector<int> residentClusters = {};
};

// Clusters of n one-SM blocks an H100 SXM (132 SMs) holds at once, n = 0 to
// 16, as its occupancy API reported (cudaOccupancyMaxActiveClusters, 1024
// threads and 227 KiB of shared memory a block; driver 580): a cluster
// stays within one GPC, so only 15 clusters of 8 fit, and 7 of any size from
// 10 to 16. The H200 is the same GH100 with 132 SMs; its entry assumes the
// same GPCs (not measured).
const std::vector<int> kGh100ResidentClusters = {0, 132, 66, 39, 30, 22, 17, 15, 15,
                                                 9, 7,   7,  7,  7,  7,  7,  7};

// Figures from the vendors' public data sheets and the CUDA programming
// guide's per-architecture tables (shared memory: 96 KiB per SM on Volta,
// 164 KiB on A100, 100 KiB on GA10x/AD10x, 228 KiB on Hopper; opt-in per
// block is 1 KiB less except on Volta). Memory is the marketing size in
// decimal GB; a GPU reports somewhat less. The H200's L2 is what the
// hardware reports (60 MiB; the H100 SXM reports 50 MiB). Clusters: the
// H100 SXM and H200 start clusters of 16 blocks of one SM each after the
// non-portable opt-in (an H100 measured with
// cudaOccupancyMaxPotentialClusterSize).
const std::vector<TableEntry>& table() {
  static const std::vector<TableEntry> entries = {
      {"v100",
       "NVIDIA V100 SXM2 32GB",
       7,
       0,
       80,
       2048,
       96 * kKiB,
       96 * kKiB,
       6 * kMiB,
       32 * kGB,
       900e9,
       1530000,
       0,
       {"v100sxm2", "v100sxm232gb", "v10032gb"}},
      {"a100-80gb",
       "NVIDIA A100 SXM4 80GB",
       8,
       0,
       108,
       2048,
       164 * kKiB,
       163 * kKiB,
       40 * kMiB,
       80 * kGB,
       2039e9,
       1410000,
       0,
       {"a100", "a100sxm", "a100sxm4", "a10080gb", "a100sxm80gb", "a10080gbhbm2e"}},
      {"h100",
       "NVIDIA H100 SXM5 80GB",
       9,
       0,
       132,
       2048,
       228 * kKiB,
       227 * kKiB,
       50 * kMiB,
       80 * kGB,
       3.35e12,
       1980000,
       16,
       {"h100sxm", "h100sxm5", "h10080gb", "h100sxm80gb", "h10080gbhbm3"},
       kGh100ResidentClusters},
      {"h200",
       "NVIDIA H200 SXM 141GB",
       9,
       0,
       132,
       2048,
       228 * kKiB,
       227 * kKiB,
       60 * kMiB,
       141 * kGB,
       4.8e12,
       1980000,
       16,
       {"h200sxm", "h200141gb", "h200sxm141gb", "h200sxm5"},
       kGh100ResidentClusters},
      {"l40s",
       "NVIDIA L40S",
       8,
       9,
       142,
       1536,
       100 * kKiB,
       99 * kKiB,
       96 * kMiB,
       48 * kGB,
       864e9,
       2520000,
       0,
       {"l40s48gb"}},
      {"rtx6000-ada",
       "NVIDIA RTX 6000 Ada Generation",
       8,
       9,
       142,
       1536,
       100 * kKiB,
       99 * kKiB,
       96 * kMiB,
       48 * kGB,
       960e9,
       2505000,
       0,
       {"rtx6000ada", "rtx6000adageneration", "6000ada"}},
      {"a10",
       "NVIDIA A10",
       8,
       6,
       72,
       1536,
       100 * kKiB,
       99 * kKiB,
       6 * kMiB,
       24 * kGB,
       600e9,
       1695000,
       0,
       {"a1024gb"}},
      {"rtx4090",
       "NVIDIA GeForce RTX 4090",
       8,
       9,
       128,
       1536,
       100 * kKiB,
       99 * kKiB,
       72 * kMiB,
       24 * kGB,
       1008e9,
       2520000,
       0,
       {"4090"}},
  };
  return entries;
}

DeviceSpec fromEntry(const TableEntry& entry) {
  DeviceSpec spec;
  spec.key = entry.key;
  spec.name = entry.name;
  spec.computeCapabilityMajor = entry.major;
  spec.computeCapabilityMinor = entry.minor;
  spec.smCount = entry.smCount;
  spec.maxThreadsPerSm = entry.maxThreadsPerSm;
  spec.sharedMemoryPerSmBytes = entry.sharedMemoryPerSmBytes;
  spec.sharedMemoryPerBlockOptinBytes = entry.sharedMemoryPerBlockOptinBytes;
  spec.l2CacheBytes = entry.l2CacheBytes;
  spec.memoryBytes = entry.memoryBytes;
  spec.memoryBandwidthBytesPerSecond = entry.memoryBandwidthBytesPerSecond;
  spec.clockKhz = entry.clockKhz;
  spec.maxClusterBlocks = entry.maxClusterBlocks;
  spec.residentClusters = entry.residentClusters;
  return spec;
}

// Lower case, letters and digits only, without the vendor and product-line
// prefixes: "NVIDIA RTX 6000 Ada" and "rtx6000-ada" both give "rtx6000ada".
std::string normalize(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (std::string_view prefix : {"nvidia", "tesla", "geforce"}) {
    if (out.size() > prefix.size() && out.compare(0, prefix.size(), prefix) == 0) {
      out.erase(0, prefix.size());
    }
  }
  return out;
}

}  // namespace

std::string DeviceSpec::arch() const {
  return "sm_" + std::to_string(computeCapabilityMajor) + std::to_string(computeCapabilityMinor);
}

report::Json DeviceSpec::toJson() const {
  report::Json json = report::Json::object();
  json.set("key", key);
  json.set("name", name);
  json.set("compute_capability",
           std::to_string(computeCapabilityMajor) + "." + std::to_string(computeCapabilityMinor));
  json.set("arch", arch());
  json.set("sm_count", smCount);
  json.set("warp_size", warpSize);
  json.set("max_threads_per_sm", maxThreadsPerSm);
  json.set("max_threads_per_block", maxThreadsPerBlock);
  json.set("registers_per_sm", registersPerSm);
  json.set("registers_per_block", registersPerBlock);
  json.set("max_registers_per_thread", maxRegistersPerThread);
  json.set("shared_memory_per_sm_bytes", sharedMemoryPerSmBytes);
  json.set("shared_memory_per_block_bytes", sharedMemoryPerBlockBytes);
  json.set("shared_memory_per_block_optin_bytes", sharedMemoryPerBlockOptinBytes);
  json.set("l2_cache_bytes", l2CacheBytes);
  json.set("memory_bytes", memoryBytes);
  json.set("memory_bandwidth_bytes_per_second", memoryBandwidthBytesPerSecond);
  json.set("clock_khz", clockKhz);
  json.set("max_cluster_blocks", maxClusterBlocks);
  {
    report::Json resident = report::Json::array();
    for (int n : residentClusters) resident.push(report::Json(n));
    json.set("resident_clusters", std::move(resident));
  }
  json.set("from_hardware", fromHardware);
  return json;
}

const std::vector<DeviceSpec>& builtinDevices() {
  static const std::vector<DeviceSpec> devices = [] {
    std::vector<DeviceSpec> out;
    for (const TableEntry& entry : table()) out.push_back(fromEntry(entry));
    return out;
  }();
  return devices;
}

std::optional<DeviceSpec> findBuiltinDevice(std::string_view name) {
  const std::string wanted = normalize(name);
  if (wanted.empty()) return std::nullopt;
  const auto& entries = table();
  for (size_t i = 0; i < entries.size(); ++i) {
    bool match = wanted == normalize(entries[i].key) || wanted == normalize(entries[i].name);
    for (const char* alias : entries[i].aliases) match = match || wanted == alias;
    if (match) return builtinDevices()[i];
  }
  return std::nullopt;
}

const DeviceSpec& defaultDevice() {
  static const DeviceSpec& device = []() -> const DeviceSpec& {
    for (const DeviceSpec& spec : builtinDevices()) {
      if (spec.key == "h100") return spec;
    }
    FL_ASSERT(false, "the built-in device table has no h100 entry");
  }();
  return device;
}

}  // namespace fuserlab::scheduler
