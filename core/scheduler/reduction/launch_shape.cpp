#include "core/scheduler/reduction/launch_shape.h"

#include <algorithm>
#include <limits>

namespace fuserlab::scheduler {

int64_t nextPowerOfTwo(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

int64_t maxClusterBlocks(const DeviceSpec& device) {
  if (device.computeCapability() < 90) return 0;
  return std::clamp<int64_t>(device.maxClusterBlocks, kPortableClusterBlocks,
                             kMaxNonPortableClusterBlocks);
}

int64_t clustersAtOnce(const DeviceSpec& device, int64_t blocks) {
  if (blocks <= 1) return device.smCount;
  if (blocks > maxClusterBlocks(device)) return 0;
  if (static_cast<size_t>(blocks) < device.residentClusters.size()) {
    return device.residentClusters[static_cast<size_t>(blocks)];
  }
  return device.smCount / blocks;
}

int64_t previousPowerOfTwo(int64_t x) {
  int64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

const ReductionParams* asReductionParams(const HeuristicParams& params, std::string* reason) {
  if (const auto* p = std::get_if<ReductionParams>(&params)) return p;
  if (reason != nullptr) {
    *reason = "expected reduction params, got " + std::string(paramsKind(params)) + " params";
  }
  return nullptr;
}

std::optional<std::string> rejectLaunchShape(const ReductionParams& params,
                                             const DeviceSpec& device, int64_t maxVectorizeFactor) {
  const int64_t vect = params.vectorizationFactor;
  if (vect < 1 || (vect & (vect - 1)) != 0) {
    return "vectorization_factor " + std::to_string(vect) + " is not a power of two";
  }
  if (vect > maxVectorizeFactor) {
    return "vectorization_factor " + std::to_string(vect) +
           " exceeds the largest this segment allows, " + std::to_string(maxVectorizeFactor);
  }
  struct Field {
    const char* name;
    int64_t value;
  };
  for (const Field& f :
       {Field{"persistent_batch_size", params.persistentBatchSize},
        Field{"unroll_factor_reduction", params.unrollFactorReduction},
        Field{"unroll_factor_iteration", params.unrollFactorIteration},
        Field{"block_dim_x", params.blockDimX}, Field{"block_dim_y", params.blockDimY},
        Field{"grid_dim_x", params.gridDimX}, Field{"grid_dim_y", params.gridDimY}}) {
    if (f.value < 1) {
      return std::string(f.name) + " is " + std::to_string(f.value) + ", expected at least 1";
    }
  }
  const int64_t threads = params.blockDimX * params.blockDimY;
  if (threads > device.maxThreadsPerBlock) {
    return "a block of " + std::to_string(params.blockDimX) + " x " +
           std::to_string(params.blockDimY) + " = " + std::to_string(threads) +
           " threads exceeds the device's " + std::to_string(device.maxThreadsPerBlock);
  }
  if (params.gridDimX > std::numeric_limits<int32_t>::max()) {
    return "grid_dim_x " + std::to_string(params.gridDimX) +
           " exceeds the limit of 2147483647 blocks";
  }
  if (params.gridDimY > 65535) {
    return "grid_dim_y " + std::to_string(params.gridDimY) + " exceeds the limit of 65535 blocks";
  }
  if ((params.gridDimY > 1) != params.crossGridReduction) {
    return params.crossGridReduction
               ? std::string("cross_grid_reduction is set but grid_dim_y is 1")
               : "grid_dim_y " + std::to_string(params.gridDimY) +
                     " splits the reduction across blocks but "
                     "cross_grid_reduction is not set";
  }
  if (params.clusterReduction) {
    if (params.fastestDimReduction && !params.persistentKernel) {
      return std::string(
          "cluster_reduction is set, but an inner reduction kernel does not split its rows "
          "over a cluster (outer reduction and persistent kernels do)");
    }
    if (!params.crossGridReduction) {
      return std::string(
          "cluster_reduction is set, but the reduction is not split across "
          "blocks (grid_dim_y 1)");
    }
    if (device.computeCapability() < 90) {
      return "cluster_reduction is set, but " + device.name + " (" + device.arch() +
             ") has no thread-block clusters (sm_90 and later)";
    }
    if (params.gridDimY > maxClusterBlocks(device)) {
      return "cluster_reduction is set, but grid_dim_y " + std::to_string(params.gridDimY) +
             " exceeds the " + std::to_string(maxClusterBlocks(device)) +
             " blocks a cluster may have on " + device.name;
    }
  }
  if (params.registerCap < 0 || params.registerCap > device.maxRegistersPerThread) {
    return "register_cap " + std::to_string(params.registerCap) + " is outside 0 (no cap) to " +
           std::to_string(device.maxRegistersPerThread);
  }
  return std::nullopt;
}

}  // namespace fuserlab::scheduler
