#include "core/scheduler/persistent/outer_persistent_scheduler.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/scheduler/persistent/normalization_checks.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::scheduler {
namespace {

// Threads along the kept axis: up to 16 (16 x 16-byte vectors = 256
// contiguous bytes per row of the block), at least 8 (128 bytes, a full
// cache line) before the columns are split across blocks instead.
constexpr int64_t kMaxIterationThreads = 16;
constexpr int64_t kMinIterationThreads = 8;
// Threads per block the reduction axis fills up to.
constexpr int64_t kBlockThreads = 512;
// As for inner persistence: a thread keeps at most half its registers' worth.
constexpr int64_t kMaxBufferBytesPerThread = 128 * 4;

// Bytes one block keeps: its share of a column (the column split over
// `gridY` blocks) for each of its `iterationThreads * vectorize` columns.
int64_t blockBytes(int64_t bytesPerColumn, int64_t gridY, int64_t iterationThreads,
                   int64_t vectorize) {
  return ceilDiv(bytesPerColumn, gridY) * iterationThreads * vectorize;
}

struct GridShape {
  int64_t iterationThreads = 1;
  int64_t gridX = 1;
  int64_t gridY = 1;
};

// The fewest blocks per column (gridY) at the widest block (down to
// kMinIterationThreads, then to 1 if the grid must shrink to stay resident)
// that `capacity` bytes per block hold.
GridShape fitGrid(int64_t bytesPerColumn, int64_t columns, int64_t vectorize, int64_t capacity,
                  const DeviceSpec& device) {
  GridShape g;
  g.iterationThreads = std::min(kMaxIterationThreads, nextPowerOfTwo(columns));
  auto update = [&] {
    // At least one block a column group, also where nothing is kept (a
    // segment that reads no tensor input: difftest seed 440388).
    g.gridY = std::max<int64_t>(
        1, ceilDiv(blockBytes(bytesPerColumn, 1, g.iterationThreads, vectorize), capacity));
    g.gridX = ceilDiv(columns, g.iterationThreads);
  };
  update();
  while (g.gridY > 1 && g.iterationThreads > kMinIterationThreads) {
    g.iterationThreads /= 2;
    update();
  }
  while (g.gridY > 1 && g.gridX * g.gridY > device.smCount && g.iterationThreads > 1) {
    g.iterationThreads /= 2;
    update();
  }
  return g;
}

bool resident(const GridShape& g, const DeviceSpec& device) {
  return g.gridY == 1 || g.gridX * g.gridY <= device.smCount;
}

}  // namespace

std::optional<std::string> OuterPersistentScheduler::rejectCompileTime(
    const ir::Fusion& segment) const {
  return rejectNormalizationCompileTime(segment, /*innermost=*/false);
}

std::optional<std::string> OuterPersistentScheduler::rejectRunTime(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info) const {
  const PersistentBufferAnalysis analysis = analyzePersistentBuffers(segment, info);
  if (auto reason = rejectNormalizationRunTime(segment, info, analysis)) {
    return reason;
  }
  if (auto reason = rejectParams(segment, info, computeHeuristics(segment, info))) {
    return "no launch shape keeps these columns resident: " + *reason;
  }
  return std::nullopt;
}

HeuristicParams OuterPersistentScheduler::computeHeuristics(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info) const {
  const PersistentBufferAnalysis a = analyzeNormalization(segment, info);
  const DeviceSpec& device = *info.device;
  ReductionParams p;
  p.fastestDimReduction = false;
  p.persistentKernel = true;
  p.projectPersistentBuffers = a.sizes.projectPersistentBuffers;
  const int64_t bytesPerColumn = a.sizes.bytesPerRow(p.projectPersistentBuffers);
  const int64_t reduction = std::max<int64_t>(1, a.extents.reductionExtent);
  const int64_t iteration = std::max<int64_t>(1, a.extents.iterationExtent);
  p.vectorizationFactor = a.vectorize.factor;
  const int64_t columns = ceilDiv(iteration, p.vectorizationFactor);

  // Registers when a resident grid of them holds the columns, else shared
  // memory; registers again if neither does (rejectParams says why).
  p.persistentStorage = PersistentStorage::Registers;
  GridShape g =
      fitGrid(bytesPerColumn, columns, p.vectorizationFactor, a.budget.registerBytes, device);
  if (!resident(g, device) && a.budget.sharedMemoryBytes > 0) {
    const GridShape s =
        fitGrid(bytesPerColumn, columns, p.vectorizationFactor, a.budget.sharedMemoryBytes, device);
    if (resident(s, device)) {
      g = s;
      p.persistentStorage = PersistentStorage::SharedMemory;
    }
  }
  p.blockDimY = g.iterationThreads;
  p.gridDimX = g.gridX;
  p.gridDimY = g.gridY;
  p.crossGridReduction = g.gridY > 1;

  // Threads along the reduction: enough for the block's share of each
  // column, so a register-resident share stays within a thread's budget.
  const int64_t share = ceilDiv(reduction, p.gridDimY);
  p.blockDimX = std::min(nextPowerOfTwo(share), std::max<int64_t>(1, kBlockThreads / p.blockDimY));
  if (p.persistentStorage == PersistentStorage::Registers) {
    const int64_t bytes =
        blockBytes(bytesPerColumn, p.gridDimY, p.blockDimY, p.vectorizationFactor);
    while (p.blockDimX * p.blockDimY * 2 <= device.maxThreadsPerBlock && p.blockDimX < share &&
           bytes > kMaxBufferBytesPerThread * p.blockDimX * p.blockDimY) {
      p.blockDimX *= 2;
    }
  }
  p.persistentBatchSize = ceilDiv(share, p.blockDimX);
  p.crossBlockReduction = p.blockDimX > 1;
  // On sm_90 a column group split over up to 8 blocks (16 on an H100 or
  // H200, a non-portable size) is one thread-block cluster: its blocks
  // exchange partials through each other's shared memory at one cluster
  // barrier per reduction, instead of the workspace and a grid barrier (a
  // fence, an atomic, a spin, then loads from L2). BatchNorm forward
  // [16384, 128] bf16, 8 blocks a group: 18.6 -> 13.2 us on an H100
  // (docs/performance.md).
  // Only where the rows stay in registers: a shared-memory buffer sized to
  // the block's budget leaves no room for the exchange slots. And only where
  // the GPU holds every cluster at once: a cluster stays within one GPC, so
  // fewer clusters of 12 than 132 / 12 fit an H100, and a second wave would
  // double the time (BatchNorm [24576, 256], 8 clusters of 12: 28.3 us
  // against 23.1 at grid barriers).
  p.clusterReduction = p.crossGridReduction && p.gridDimY <= maxClusterBlocks(device) &&
                       p.gridDimX <= clustersAtOnce(device, p.gridDimY) &&
                       p.persistentStorage == PersistentStorage::Registers;
  p.useInt32Indexing = fitsInt32Indexing(segment, *info.evaluator);
  return p;
}

std::optional<std::string> OuterPersistentScheduler::rejectParams(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info,
    const HeuristicParams& params) const {
  std::string reason;
  const ReductionParams* p = asReductionParams(params, &reason);
  if (p == nullptr) return reason;
  const PersistentBufferAnalysis a = analyzeNormalization(segment, info);
  if (auto r = rejectCommonNormalizationParams(segment, info, a, *p)) return r;
  const int64_t reductionCover = p->blockDimX * p->persistentBatchSize * p->gridDimY;
  if (reductionCover < a.extents.reductionExtent) {
    return "block_dim_x * persistent_batch_size * grid_dim_y = " + std::to_string(reductionCover) +
           " does not cover the " + std::to_string(a.extents.reductionExtent) +
           " elements each output element reduces";
  }
  const int64_t columnCover = p->gridDimX * p->blockDimY * p->vectorizationFactor;
  if (columnCover < a.extents.iterationExtent) {
    return "grid_dim_x * block_dim_y * vectorization_factor = " + std::to_string(columnCover) +
           " does not cover the " + std::to_string(a.extents.iterationExtent) + " output elements";
  }
  if (p->persistentStorage == PersistentStorage::Reload) {
    return std::string(
        "persistent_storage reload reads an inner persistent kernel's rows again each pass; an "
        "outer persistent kernel keeps its columns in registers or shared memory");
  }
  const int64_t bytesPerColumn = a.sizes.bytesPerRow(p->projectPersistentBuffers);
  const int64_t bytes =
      blockBytes(bytesPerColumn, p->gridDimY, p->blockDimY, p->vectorizationFactor);
  const int64_t capacity = a.budget.bytesOf(p->persistentStorage);
  if (bytes > capacity) {
    return "persistent_storage " + std::string(toString(p->persistentStorage)) + " holds " +
           std::to_string(capacity) + " bytes per block, but each block keeps " +
           std::to_string(bytes) + " (" + std::to_string(bytesPerColumn) + " bytes per column" +
           (p->projectPersistentBuffers ? " projected" : "") + ", over " +
           std::to_string(p->gridDimY) + " block(s), for " +
           std::to_string(p->blockDimY * p->vectorizationFactor) + " columns)";
  }
  if (p->clusterReduction && p->persistentStorage == PersistentStorage::SharedMemory) {
    return std::string(
        "cluster_reduction keeps the rows in registers: a shared-memory buffer sized to the "
        "block's budget leaves no room for the cluster's exchange slots");
  }
  // Grid barriers need every block resident at once; a cluster's blocks
  // wait only for each other, and the hardware starts a cluster whole.
  if (p->crossGridReduction && !p->clusterReduction &&
      p->gridDimX * p->gridDimY > info.device->smCount) {
    return "a grid-persistent kernel needs all its blocks resident at once, "
           "but grid_dim_x * grid_dim_y = " +
           std::to_string(p->gridDimX * p->gridDimY) + " blocks exceed the " +
           std::to_string(info.device->smCount) + " SMs";
  }
  return std::nullopt;
}

report::Json OuterPersistentScheduler::properties(const ir::Fusion& segment,
                                                  const SegmentRuntimeInfo& info) const {
  report::Json json = normalizationProperties(segment, info);
  if (info.device == nullptr ||
      rejectNormalizationRunTime(segment, info, analyzePersistentBuffers(segment, info))) {
    return json;
  }
  // How the heuristic's column groups combine across blocks, and why.
  const auto p = std::get<ReductionParams>(computeHeuristics(segment, info));
  const DeviceSpec& device = *info.device;
  const std::string blocks = std::to_string(p.gridDimY) + " blocks";
  std::string why;
  if (!p.crossGridReduction) {
    why = "each column group's rows fit one block: no exchange across blocks";
  } else if (p.clusterReduction) {
    why = "each column group's " + blocks +
          " form a thread-block cluster and exchange partials "
          "in shared memory (one cluster barrier per reduction)";
  } else if (device.computeCapability() < 90) {
    why = device.arch() + " has no thread-block clusters: each column group's " + blocks +
          " meet at grid barriers";
  } else if (p.gridDimY > maxClusterBlocks(device)) {
    why = "each column group spans " + blocks + ", more than the " +
          std::to_string(maxClusterBlocks(device)) + " a cluster may have on " + device.name +
          ": they meet at grid barriers";
  } else if (p.persistentStorage == PersistentStorage::SharedMemory) {
    why =
        "the rows are kept in shared memory, which leaves no room for a cluster's exchange "
        "slots: each column group's " +
        blocks + " meet at grid barriers";
  } else {
    why = "the grid's " + std::to_string(p.gridDimX) + " clusters of " + blocks + " exceed the " +
          std::to_string(clustersAtOnce(device, p.gridDimY)) + " that " + device.name +
          " holds at once (a cluster stays within one GPC): they meet at grid barriers";
  }
  json.set("cluster_reduction_choice", why);
  return json;
}

}  // namespace fuserlab::scheduler
