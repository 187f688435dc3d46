// Reduction-family knobs (reduction, inner_persistent, outer_persistent):
// vectorization, threads along the reduction and the iteration axes, the
// register cap, for persistent kernels the storage of the resident rows
// and projection, for outer reductions split across blocks the number of
// blocks and (sm_90+) whether they combine in a thread-block cluster, and
// for outer persistent kernels split across blocks (sm_90+) whether they
// meet at grid barriers or in a cluster; on sm_90+ an inner persistent
// kernel without column sums splits each row over 1 to 8 blocks of a
// cluster. An inner persistent kernel with column sums (the combined normalization backward) also
// varies its resident blocks per SM, which set its grid. The persistent batch size is derived, not
// a knob of its own: with the row's chunks spread over block_dim_x threads, the smallest batch that
// covers the row is the only one that does not leave threads idle, so
// enumerating threads enumerates batches.
#include <algorithm>

#include "core/ir/error.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "tuner/search_space_families.h"

namespace fuserlab::tuner {
namespace {

using scheduler::ceilDiv;
using scheduler::PersistentStorage;
using scheduler::ReductionParams;
using scheduler::SchedulerType;

enum Knobs : size_t {
  kVectorize,
  kThreadsX,
  kThreadsY,
  kRegisterCap,
  kUnrollReduction,
  kStorage,
  kProjection,
  kCluster,
  kSplit,
  kBlocksPerSm,
};

}  // namespace

KnobGrid reductionGrid(const ir::Fusion& segment, SchedulerType type,
                       const scheduler::SegmentRuntimeInfo& info, const ReductionParams& d) {
  const auto pattern = scheduler::analyzeReductionPattern(segment);
  FL_CHECK(pattern.pattern.has_value(), "no reduction pattern to tune: ", pattern.reason);
  const auto extentsResult = scheduler::reductionExtents(*pattern.pattern, *info.evaluator);
  FL_CHECK(extentsResult.reason.empty(), "no reduction extents to tune: ", extentsResult.reason);
  const scheduler::ReductionExtents extents = extentsResult.extents;
  const bool innermost = pattern.pattern->innermost;
  const bool persistent = type != SchedulerType::Reduction;
  // An outer reduction split across blocks: how many blocks split it (the
  // default's split and powers of two up to 64), and on sm_90+ whether they
  // combine through the workspace or in a thread-block cluster (splits of
  // at most 8; the checks refuse the others).
  // An outer persistent kernel keeps the default's split; on sm_90+ its
  // blocks meet at grid barriers or in a cluster (the default's choice and
  // the other).
  const bool splitChoice = !persistent && !innermost && d.crossGridReduction;
  const bool persistentSplit = persistent && !innermost && d.crossGridReduction;
  const bool clusterChoice = (splitChoice || persistentSplit) && info.device != nullptr &&
                             info.device->computeCapability() >= 90;
  // An inner persistent kernel on sm_90+ without column sums also splits
  // each row over 1 to 8 blocks of a thread-block cluster (the checks refuse
  // splits of rows with gathers).
  const bool rowSplit = persistent && innermost && info.device != nullptr &&
                        info.device->computeCapability() >= 90 &&
                        pattern.pattern->columnReductions.empty();
  // The default's split and powers of two up to the largest tried.
  const int64_t maxSplit = splitChoice ? 64 : rowSplit ? 8 : 0;
  std::vector<int64_t> splits = {d.gridDimY};
  for (int64_t split = 1; split <= maxSplit; split *= 2) {
    if (split != d.gridDimY) splits.push_back(split);
  }
  std::sort(splits.begin(), splits.end());

  // Column sums: the grid is every block resident at once, smCount times
  // the blocks an SM keeps (the default's, and 1 to 4 more or fewer).
  const bool columns = !pattern.pattern->columnReductions.empty() && info.device != nullptr;
  const int64_t smCount = info.device != nullptr ? info.device->smCount : 1;
  std::vector<int64_t> blocksPerSm = {columns ? ceilDiv(d.gridDimX, smCount) : 0};
  if (columns) {
    for (int64_t b : {1, 2, 3, 4, 6, 8}) {
      if (b != blocksPerSm.front()) blocksPerSm.push_back(b);
    }
    std::sort(blocksPerSm.begin(), blocksPerSm.end());
  }

  KnobGrid grid;
  std::vector<int64_t> threadsX, threadsY;
  if (innermost) {
    threadsX = {32, 64, 128, 256, 512, 1024};
    threadsY = {1, 2, 4, 8};
  } else {
    threadsX = {1, 2, 4, 8, 16, 32};
    threadsY = {8,  16,  32,
                64, 128, 256};  // 8: the narrow cluster blocks (the default before 16 x 16)
  }
  grid.knobs = {
      {"vectorization_factor", {1, 2, 4, 8}},
      {"block_dim_x", threadsX},
      {"block_dim_y", threadsY},
      {"register_cap", {0, 64, 128}},
      {"unroll_factor_reduction",
       persistent ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 2, 4}},
      // 2 (reload): inner persistent kernels only.
      {"persistent_storage", !persistent ? std::vector<int64_t>{0}
                             : innermost ? std::vector<int64_t>{0, 1, 2}
                                         : std::vector<int64_t>{0, 1}},
      {"project_persistent_buffers",
       persistent ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}},
      {"cluster_reduction", clusterChoice ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}},
      {"grid_dim_y", splits},
      {"blocks_per_sm", blocksPerSm},
  };
  grid.defaultValues = {d.vectorizationFactor,
                        d.blockDimX,
                        d.blockDimY,
                        d.registerCap,
                        d.unrollFactorReduction,
                        static_cast<int64_t>(d.persistentStorage),
                        d.projectPersistentBuffers ? 1 : 0,
                        d.clusterReduction ? 1 : 0,
                        d.gridDimY,
                        columns ? ceilDiv(d.gridDimX, smCount) : 0};

  grid.materialize = [d, type, extents, innermost, columns,
                      smCount](const std::vector<int64_t>& v) {
    ReductionParams p = d;
    p.vectorizationFactor = v[kVectorize];
    p.blockDimX = v[kThreadsX];
    p.blockDimY = v[kThreadsY];
    p.registerCap = v[kRegisterCap];
    p.unrollFactorReduction = v[kUnrollReduction];
    p.persistentStorage = static_cast<PersistentStorage>(v[kStorage]);
    p.projectPersistentBuffers = v[kProjection] != 0;
    p.clusterReduction = v[kCluster] != 0;
    p.gridDimY = v[kSplit];
    p.crossGridReduction = p.gridDimY > 1;
    const int64_t reduction = std::max<int64_t>(1, extents.reductionExtent);
    const int64_t iteration = std::max<int64_t>(1, extents.iterationExtent);
    p.crossBlockReduction = p.blockDimX > 1;
    if (type == SchedulerType::InnerPersistent) {
      // Each row in one block, or split over a cluster of grid_dim_y: its
      // chunks over block_dim_x threads of each.
      const int64_t chunks =
          scheduler::rowChunks(reduction, p.vectorizationFactor, scheduler::shiftsRows(p));
      p.clusterReduction = p.gridDimY > 1;
      p.persistentBatchSize = ceilDiv(chunks, p.blockDimX * p.gridDimY);
      p.gridDimX = ceilDiv(iteration, p.blockDimY);
      if (columns) p.gridDimX = std::min(p.gridDimX, smCount * v[kBlocksPerSm]);
    } else if (type == SchedulerType::OuterPersistent) {
      // The default's split of the reduction over blocks stays.
      const int64_t share = ceilDiv(reduction, std::max<int64_t>(1, p.gridDimY));
      p.persistentBatchSize = ceilDiv(share, p.blockDimX);
      p.gridDimX = ceilDiv(iteration, p.blockDimY * p.vectorizationFactor);
    } else {
      p.gridDimX = innermost ? ceilDiv(iteration, p.blockDimY)
                             : ceilDiv(iteration, p.blockDimY * p.vectorizationFactor);
    }
    return scheduler::HeuristicParams(p);
  };
  grid.valueName = [](const std::string& knob, int64_t value) -> std::string {
    if (knob == "persistent_storage") {
      return std::string(scheduler::toString(static_cast<PersistentStorage>(value)));
    }
    if (knob == "project_persistent_buffers" || knob == "cluster_reduction") {
      return value != 0 ? "on" : "off";
    }
    return std::to_string(value);
  };
  return grid;
}

}  // namespace fuserlab::tuner
