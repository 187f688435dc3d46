// fuserlab-cli devices [--json PATH|-]
// The built-in device table (what --device NAME accepts) and the CUDA
// devices of this machine (--device cuda:N).
#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/cuda/cuda_device.h"
#include "core/ir/error.h"
#include "core/report/json.h"

namespace fuserlab::cli {
namespace {

using report::Json;
using scheduler::DeviceSpec;

// Cache and shared memory sizes in binary units, as data sheets give them.
std::string bytesString(int64_t bytes) {
  constexpr int64_t kKiB = 1024;
  constexpr int64_t kMiB = 1024 * kKiB;
  char buffer[32];
  if (bytes >= kMiB && bytes % kMiB == 0) {
    std::snprintf(buffer, sizeof(buffer), "%lld MiB", (long long)(bytes / kMiB));
  } else if (bytes >= kMiB) {
    std::snprintf(buffer, sizeof(buffer), "%.1f MiB", double(bytes) / kMiB);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld KiB", (long long)(bytes / kKiB));
  }
  return buffer;
}

// Device memory in decimal GB, as it is sold.
std::string memoryString(int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.0f GB", double(bytes) / 1e9);
  return buffer;
}

std::string bandwidthString(double bytesPerSecond) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f TB/s", bytesPerSecond / 1e12);
  return buffer;
}

void printHeader(std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof(line), "  %-12s %-32s %-6s %4s %8s %10s %9s %10s\n", "key", "name",
                "arch", "SMs", "L2", "memory", "bandwidth", "smem/block");
  out << line;
}

void printRow(const DeviceSpec& spec, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof(line), "  %-12s %-32s %-6s %4d %8s %10s %9s %10s\n", spec.key.c_str(),
                spec.name.c_str(), spec.arch().c_str(), spec.smCount,
                bytesString(spec.l2CacheBytes).c_str(), memoryString(spec.memoryBytes).c_str(),
                bandwidthString(spec.memoryBandwidthBytesPerSecond).c_str(),
                bytesString(spec.sharedMemoryPerBlockOptinBytes).c_str());
  out << line;
}

}  // namespace

int devicesCommand(const std::vector<std::string>& args) {
  CommandLine cl(args, {"json"}, {});
  FL_CHECK(cl.positional().empty(), "devices takes no arguments, found '", cl.positional().front(),
           "'");

  std::vector<DeviceSpec> gpus;
  for (int i = 0; i < runtime::cudaDeviceCount(); ++i) {
    if (auto spec = runtime::queryCudaDevice(i)) gpus.push_back(*spec);
  }

  const bool jsonToStdout = cl.value("json") == "-";
  std::ostream& text = jsonToStdout ? std::cerr : std::cout;
  text << "built-in devices (--device KEY; smem/block is the opt-in "
          "maximum; default "
       << scheduler::defaultDevice().key << "):\n";
  printHeader(text);
  for (const DeviceSpec& spec : scheduler::builtinDevices()) printRow(spec, text);
  text << "\nCUDA devices of this machine (--device cuda:N):\n";
  if (gpus.empty()) {
    text << "  no CUDA device present (" << runtime::cudaUnavailableReason() << ")\n";
  } else {
    printHeader(text);
    for (const DeviceSpec& spec : gpus) printRow(spec, text);
  }

  if (auto path = cl.value("json")) {
    Json root = Json::object();
    Json builtin = Json::array();
    for (const DeviceSpec& spec : scheduler::builtinDevices()) {
      builtin.push(spec.toJson());
    }
    root.set("builtin", std::move(builtin));
    root.set("default", scheduler::defaultDevice().key);
    Json cuda = Json::array();
    for (const DeviceSpec& spec : gpus) cuda.push(spec.toJson());
    root.set("cuda", std::move(cuda));
    if (gpus.empty()) root.set("cuda_unavailable", runtime::cudaUnavailableReason());
    writeOutput(*path, root.dump() + "\n");
  }
  return 0;
}

}  // namespace fuserlab::cli
