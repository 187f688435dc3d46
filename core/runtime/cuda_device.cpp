#include "core/runtime/cuda_device.h"

#include <cuda_runtime_api.h>

#include <charconv>

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
  spec.sharedMemoryPerBlockOptinBytes =
      static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  spec.l2CacheBytes = prop.l2CacheSize;
  spec.memoryBytes = static_cast<int64_t>(prop.totalGlobalMem);
  // CUDA 13 dropped the clock fields of cudaDeviceProp; the attributes
  // remain. The memory clock is in kHz and DDR: two transfers per clock.
  const int memoryClockKhz = attribute(cudaDevAttrMemoryClockRate, index);
  const int busWidthBits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  spec.memoryBandwidthBytesPerSecond =
      2.0 * memoryClockKhz * 1000.0 * (busWidthBits / 8.0);
  spec.clockKhz = attribute(cudaDevAttrClockRate, index);
  spec.fromHardware = true;
  return spec;
}

std::optional<scheduler::DeviceSpec> resolveDevice(
    std::string_view nameOrCudaIndex) {
  if (nameOrCudaIndex.empty()) return std::nullopt;
  if (nameOrCudaIndex == "cuda" || nameOrCudaIndex.substr(0, 5) == "cuda:") {
    int index = 0;
    if (nameOrCudaIndex != "cuda") {
      const std::string_view digits = nameOrCudaIndex.substr(5);
      auto [end, error] =
          std::from_chars(digits.data(), digits.data() + digits.size(), index);
      FL_CHECK(!digits.empty() && error == std::errc() &&
                   end == digits.data() + digits.size() && index >= 0,
               "--device ", nameOrCudaIndex,
               ": expected cuda:N with N the index of a GPU of this machine "
               "(cuda:0, cuda:1, ...)");
    }
    const int count = cudaDeviceCount();
    FL_CHECK(count > 0, "no CUDA device ", index,
             ": this machine has no GPU (", cudaUnavailableReason(),
             "); use a built-in device such as --device h100");
    FL_CHECK(index < count, "no CUDA device ", index, ": this machine has ",
             count, count == 1 ? " GPU (cuda:0)" : " GPUs (cuda:0 to cuda:",
             count == 1 ? "" : std::to_string(count - 1) + ")");
    auto spec = queryCudaDevice(index);
    FL_CHECK(spec.has_value(), "cannot read the properties of CUDA device ",
             index, " (cudaGetDeviceProperties failed)");
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
