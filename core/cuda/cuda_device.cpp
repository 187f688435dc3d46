#include "core/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <charconv>
#include <map>
#include <mutex>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

struct CudaStatus {
  int count = 0;
  std::string reason;  // why count is 0
};

// Asked once per process: without a driver the runtime answers the same
// every time, and the first call pays for loading it.
const CudaStatus& cudaStatus() {
  static const CudaStatus status = [] {
    CudaStatus s;
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();  // so later runtime calls do not report it
      s.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(error);
      if (error == cudaErrorInsufficientDriver) {
        // Also what the runtime says when there is no driver at all.
        s.reason += "; no NVIDIA driver, or one older than the CUDA " +
                    std::to_string(CUDART_VERSION / 1000) + "." +
                    std::to_string(CUDART_VERSION % 1000 / 10) + " runtime";
      }
      return s;
    }
    s.count = count;
    if (count == 0) s.reason = "cudaGetDeviceCount: no CUDA-capable device";
    return s;
  }();
  return status;
}

int attribute(cudaDeviceAttr attr, int index) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return value;
}

// An empty kernel, as PTX for the driver to compile: the occupancy API asks
// a kernel, and the runtime links none of its own.
constexpr char kClusterProbePtx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry fuserlab_cluster_probe()\n"
    "{\n"
    "\tret;\n"
    "}\n";

struct ClusterLimits {
  int maxBlocks = 0;
  std::vector<int> resident;
};

// What the occupancy API says of clusters on device `index` for a kernel
// whose blocks each fill an SM (all its threads, the most shared memory a
// block may opt into), after the non-portable opt-in: the most blocks a
// cluster can have, and how many clusters of each size up to that are
// resident at once (the GPCs decide: a cluster stays within one). Before
// sm_90 none; the portable 8 and SMs / n if a step fails. Asked once per
// device and process (a PTX compile, ~ms).
ClusterLimits probeClusters(int index, const cudaDeviceProp& prop) {
  if (prop.major < 9) return {};
  static std::mutex mutex;
  static std::map<int, ClusterLimits> probed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = probed.find(index); it != probed.end()) return it->second;
  ClusterLimits limits;
  limits.maxBlocks = scheduler::kPortableClusterBlocks;
  int current = 0;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  const int sharedBytes = static_cast<int>(prop.sharedMemPerBlockOptin);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(720720);  // a multiple of every size from 1 to 16
  config.blockDim = dim3(static_cast<unsigned>(prop.maxThreadsPerBlock));
  config.dynamicSmemBytes = static_cast<size_t>(sharedBytes);
  const void* func = nullptr;
  if (cudaGetDevice(&current) == cudaSuccess && cudaSetDevice(index) == cudaSuccess &&
      cudaLibraryLoadData(&library, kClusterProbePtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
          cudaSuccess &&
      cudaLibraryGetKernel(&kernel, library, "fuserlab_cluster_probe") == cudaSuccess &&
      cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
                                      index) == cudaSuccess &&
      cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      sharedBytes, index) == cudaSuccess) {
    func = reinterpret_cast<const void*>(kernel);
    int size = 0;
    if (cudaOccupancyMaxPotentialClusterSize(&size, func, &config) == cudaSuccess && size > 0) {
      limits.maxBlocks = size;
    }
  }
  limits.resident.assign(static_cast<size_t>(limits.maxBlocks) + 1, 0);
  for (int n = 1; n <= limits.maxBlocks; ++n) {
    int clusters = 0;
    if (func != nullptr) {
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = static_cast<unsigned>(n);
      attribute.val.clusterDim.y = 1;
      attribute.val.clusterDim.z = 1;
      cudaLaunchConfig_t sized = config;
      sized.attrs = &attribute;
      sized.numAttrs = 1;
      if (cudaOccupancyMaxActiveClusters(&clusters, func, &sized) != cudaSuccess) clusters = -1;
    }
    // Unknown: as if every SM could take part.
    limits.resident[n] = clusters >= 0 && func != nullptr ? clusters : prop.multiProcessorCount / n;
  }
  (void)cudaGetLastError();  // a failed step leaves nothing for later calls
  if (library != nullptr) (void)cudaLibraryUnload(library);
  (void)cudaSetDevice(current);
  (void)cudaGetLastError();
  probed[index] = limits;
  return limits;
}

std::string builtinKeys() {
  std::string keys;
  for (const auto& spec : scheduler::builtinDevices()) {
    keys += (keys.empty() ? "" : ", ") + spec.key;
  }
  return keys;
}

}  // namespace

int cudaDeviceCount() { return cudaStatus().count; }

std::string cudaUnavailableReason() { return cudaStatus().reason; }

std::optional<scheduler::DeviceSpec> queryCudaDevice(int index) {
  if (index < 0 || index >= cudaDeviceCount()) return std::nullopt;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  scheduler::DeviceSpec spec;
  spec.key = "cuda:" + std::to_string(index);
  spec.name = prop.name;
  spec.computeCapabilityMajor = prop.major;
  spec.computeCapabilityMinor = prop.minor;
  spec.smCount = prop.multiProcessorCount;
  spec.warpSize = prop.warpSize;
  spec.maxThreadsPerSm = prop.maxThreadsPerMultiProcessor;
  spec.maxThreadsPerBlock = prop.maxThreadsPerBlock;
  spec.registersPerSm = prop.regsPerMultiprocessor;
  spec.registersPerBlock = prop.regsPerBlock;
  spec.maxRegistersPerThread = 255;  // every architecture since Kepler
  spec.sharedMemoryPerSmBytes = static_cast<int64_t>(prop.sharedMemPerMultiprocessor);
  spec.sharedMemoryPerBlockBytes = static_cast<int64_t>(prop.sharedMemPerBlock);
  spec.sharedMemoryPerBlockOptinBytes = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  spec.l2CacheBytes = prop.l2CacheSize;
  spec.memoryBytes = static_cast<int64_t>(prop.totalGlobalMem);
  // CUDA 13 dropped the clock fields of cudaDeviceProp; the attributes
  // remain. The memory clock is in kHz and DDR: two transfers per clock.
  const int memoryClockKhz = attribute(cudaDevAttrMemoryClockRate, index);
  const int busWidthBits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  spec.memoryBandwidthBytesPerSecond = 2.0 * memoryClockKhz * 1000.0 * (busWidthBits / 8.0);
  spec.clockKhz = attribute(cudaDevAttrClockRate, index);
  const ClusterLimits clusters = probeClusters(index, prop);
  spec.maxClusterBlocks = clusters.maxBlocks;
  spec.residentClusters = clusters.resident;
  spec.fromHardware = true;
  return spec;
}

std::optional<scheduler::DeviceSpec> resolveDevice(std::string_view nameOrCudaIndex) {
  if (nameOrCudaIndex.empty()) return std::nullopt;
  if (nameOrCudaIndex == "cuda" || nameOrCudaIndex.substr(0, 5) == "cuda:") {
    int index = 0;
    if (nameOrCudaIndex != "cuda") {
      const std::string_view digits = nameOrCudaIndex.substr(5);
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      FL_CHECK(!digits.empty() && error == std::errc() && end == digits.data() + digits.size() &&
                   index >= 0,
               "--device ", nameOrCudaIndex,
               ": expected cuda:N with N the index of a GPU of this machine "
               "(cuda:0, cuda:1, ...)");
    }
    const int count = cudaDeviceCount();
    FL_CHECK(count > 0, "no CUDA device ", index, ": this machine has no GPU (",
             cudaUnavailableReason(), "); use a built-in device such as --device h100");
    FL_CHECK(index < count, "no CUDA device ", index, ": this machine has ", count,
             count == 1 ? " GPU (cuda:0)" : " GPUs (cuda:0 to cuda:",
             count == 1 ? "" : std::to_string(count - 1) + ")");
    auto spec = queryCudaDevice(index);
    FL_CHECK(spec.has_value(), "cannot read the properties of CUDA device ", index,
             " (cudaGetDeviceProperties failed)");
    return spec;
  }
  auto spec = scheduler::findBuiltinDevice(nameOrCudaIndex);
  FL_CHECK(spec.has_value(), "unknown device '", nameOrCudaIndex,
           "'; built-in devices: ", builtinKeys(),
           "; or cuda:N for a GPU of this machine (fuserlab-cli devices "
           "lists them)");
  return spec;
}

}  // namespace fuserlab::runtime
