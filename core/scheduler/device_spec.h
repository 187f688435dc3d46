// DeviceSpec: the GPU properties every heuristic reasons from. Read from a
// real GPU (core/cuda/cuda_device.h) or taken from the built-in table, so
// a machine without a GPU can ask "what would happen on an H100?".
// Heuristics read nothing else about the device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/report/json.h"

namespace fuserlab::scheduler {

//! Blocks every sm_90+ GPU starts as one thread-block cluster; up to
//! kMaxNonPortableClusterBlocks need the kernel's non-portable opt-in and a
//! GPU that has them (DeviceSpec::maxClusterBlocks).
constexpr int kPortableClusterBlocks = 8;
//! The largest cluster CUDA allows at all.
constexpr int kMaxNonPortableClusterBlocks = 16;

struct DeviceSpec {
  std::string key;   //!< short name for --device: "h100", "a100-80gb"
  std::string name;  //!< marketing name: "NVIDIA H100 SXM5 80GB"
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  int smCount = 0;
  int warpSize = 32;
  int maxThreadsPerSm = 2048;
  int maxThreadsPerBlock = 1024;
  int registersPerSm = 65536;
  int registersPerBlock = 65536;
  int maxRegistersPerThread = 255;
  int64_t sharedMemoryPerSmBytes = 0;
  //! Without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  int64_t sharedMemoryPerBlockBytes = 48 * 1024;
  int64_t sharedMemoryPerBlockOptinBytes = 0;
  int64_t l2CacheBytes = 0;
  int64_t memoryBytes = 0;
  //! Peak DRAM bandwidth in bytes per second.
  double memoryBandwidthBytesPerSecond = 0;
  int clockKhz = 0;
  //! The most blocks a thread-block cluster can have on this device when
  //! each block fills an SM: 0 before sm_90 (no clusters), 8 (the portable
  //! size), up to 16 where the GPU starts larger clusters after a kernel's
  //! opt-in (cudaFuncAttributeNonPortableClusterSizeAllowed; the H100 and
  //! H200 do). A GPU reports it through the occupancy API.
  int maxClusterBlocks = 0;
  //! [n]: how many clusters of n such blocks the GPU holds at once (a
  //! cluster stays within one GPC, so some SMs of a GPC can be left over),
  //! for n up to maxClusterBlocks; empty where unknown (launch_shape.h's
  //! clustersAtOnce then assumes every SM can take part).
  std::vector<int> residentClusters;
  bool fromHardware = false;  //!< read from a GPU rather than the table

  int computeCapability() const { return computeCapabilityMajor * 10 + computeCapabilityMinor; }
  //! "sm_90"
  std::string arch() const;
  report::Json toJson() const;
};

//! V100, A100-80GB, H100-SXM, H200, L40S, RTX 6000 Ada, ... in a fixed order.
const std::vector<DeviceSpec>& builtinDevices();

//! Looks a device up by key or name, case-insensitively ("h100", "H100-SXM",
//! "rtx6000ada"); nullopt if unknown.
std::optional<DeviceSpec> findBuiltinDevice(std::string_view name);

//! The default device for compiling without --device: the H100 entry.
const DeviceSpec& defaultDevice();

}  // namespace fuserlab::scheduler
