#include "core/cuda/device_memory_pool.h"

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/cuda/cuda_error.h"

namespace fuserlab::runtime {
namespace {

constexpr int64_t kCacheLimitBytes = int64_t{4} << 30;

struct DevicePool {
  std::map<int64_t, std::vector<void*>> free;  // by rounded size
  int64_t cachedBytes = 0;                     // in `free`
};

struct Pools {
  std::mutex mutex;
  std::map<int, DevicePool> devices;
};

// Never destroyed: freeing blocks after the CUDA runtime has shut down at
// exit would fail.
Pools& pools() {
  static Pools* instance = new Pools();
  return *instance;
}

// cudaFree of every cached block; the caller holds the lock.
void trimLocked(int device, DevicePool& pool) noexcept {
  if (pool.free.empty()) return;
  int current = 0;
  const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device &&
                        cudaSetDevice(device) == cudaSuccess;
  for (auto& [bytes, blocks] : pool.free) {
    for (void* block : blocks) {
      if (cudaFree(block) != cudaSuccess) (void)cudaGetLastError();
    }
  }
  pool.free.clear();
  pool.cachedBytes = 0;
  if (switched) (void)cudaSetDevice(current);
}

}  // namespace

int64_t poolRoundedBytes(int64_t bytes) {
  const int64_t granule = bytes < (int64_t{1} << 20) ? 512 : int64_t{128} << 10;
  return (bytes + granule - 1) / granule * granule;
}

void* poolAllocate(int device, int64_t bytes, std::string_view what) {
  const int64_t rounded = poolRoundedBytes(bytes);
  Pools& p = pools();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    DevicePool& pool = p.devices[device];
    auto it = pool.free.find(rounded);
    if (it != pool.free.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      pool.cachedBytes -= rounded;
      return block;
    }
  }
  void* data = nullptr;
  checkCuda(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")", what);
  cudaError_t status = cudaMalloc(&data, static_cast<size_t>(rounded));
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::lock_guard<std::mutex> lock(p.mutex);
    trimLocked(device, p.devices[device]);
    status = cudaMalloc(&data, static_cast<size_t>(rounded));
  }
  if (status != cudaSuccess) {
    checkCuda(status, "cudaMalloc(" + std::to_string(bytes) + " bytes)", what);
  }
  return data;
}

void poolRelease(int device, void* data, int64_t bytes) noexcept {
  if (data == nullptr) return;
  const int64_t rounded = poolRoundedBytes(bytes);
  Pools& p = pools();
  std::lock_guard<std::mutex> lock(p.mutex);
  DevicePool& pool = p.devices[device];
  if (pool.cachedBytes + rounded > kCacheLimitBytes) {
    if (cudaFree(data) != cudaSuccess) (void)cudaGetLastError();
    return;
  }
  pool.free[rounded].push_back(data);
  pool.cachedBytes += rounded;
}

}  // namespace fuserlab::runtime
