#include "core/scheduler/reduction/reduction_scheduler.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ir/error.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::scheduler {
namespace {

// Threads along an inner reduction: enough to keep loads in flight without
// leaving most of a block idle at the end of short rows.
constexpr int64_t kMaxInnerReductionThreads = 512;
// Vector loads each thread of an inner reduction has in flight.
constexpr int64_t kInnerLoadsPerThread = 4;
// Where the rows' vectors are narrower than 16 bytes (an odd extent leaves
// them at one element), each thread takes twice as many loads, in half the
// threads a row. The sum_reduction example (float [2048, 1023], H100,
// bench, three passes): 128 threads of 8 loads 6.93 to 6.98 us against
// 7.23 to 7.26 for 256 threads of 4; 64 x 2 threads of 16 loads 7.02 to
// 7.04, a warp of 32 loads a row 6.94 to 7.07 (torch.compile's Triton
// kernel: a warp a row).
constexpr int64_t kNarrowInnerLoadsPerThread = 8;
// A block has at least this many threads; small rows share a block.
constexpr int64_t kMinBlockThreads = 128;
// Threads along the kept axis of an outer reduction (each row's 8 threads
// load 128 contiguous bytes of bf16 vectors) and in the whole block: blocks
// of 128 threads, 8 of them per SM (the suite's col_sum, H100, clean L2:
// 30.5 us against 33.7 us for 32 x 8 threads at 4 blocks per SM; more row
// splits were slower, each block's partial and its arrival cost as much as
// its loads).
constexpr int64_t kMaxOuterIterationThreads = 8;
constexpr int64_t kOuterBlockThreads = 128;
// Outer reductions: vector loads each thread has in flight along the
// reduction (unrolled), and the blocks per SM a grid split aims at (rounded
// down, so the split never spills a few blocks into a second wave), so that
// a few hundred columns still keep enough bytes in flight to reach the
// memory bandwidth (one block per SM with one load each reaches a third).
constexpr int64_t kOuterLoadsInFlight = 4;
constexpr int64_t kOuterBlocksPerSm = 8;
// Outer reductions on sm_90+: the threads per SM a split into thread-block
// clusters (of kMinClusterSplit to 8 blocks per column group) keeps to (see
// clusterSplit): 2 to 4 blocks of 128 threads.
constexpr int64_t kMinClusterThreadsPerSm = 256;
constexpr int64_t kMaxClusterThreadsPerSm = 512;
constexpr int64_t kMinClusterSplit = 2;
// A cluster split first tries blocks twice as wide: 16 column threads (256
// contiguous bytes of each row) x 16 along the reduction, the same threads
// per SM in half the blocks. The suite's col_sum (bf16 [8192, 4096], H100,
// tests/perf/harness/col_sum_variants.cu, events after the clean-L2 flush):
// 32 x 8 blocks of 16 x 16 threads 26.6 to 26.7 us against 27.0 to 27.1 for
// 64 x 8 of 8 x 16; 8 or 2 rows in flight (27.6, 29.1), 16 x 32 threads
// (27.5) and 8 x 32 (27.7) were slower.
constexpr int64_t kWideClusterColumnThreads = 16;
constexpr int64_t kWideClusterBlockThreads = 256;
// Serial iterations per thread below which splitting the reduction across
// blocks costs more (a second pass over partial results) than it gains.
constexpr int64_t kMinSerialPerGridBlock = 16;
// One-pass Welford (var_mean) along a row: a Welford combine across threads
// costs a division and moves three values, so rows go to fewer threads that
// each fold chunks of kWelfordChunkElements elements (a sum, then squared
// deviations from the chunk's mean, then one combine: no division per
// element; see ReductionEmitter). Rows of up to kMaxInnerReductionThreads
// chunks go one chunk per thread instead, held whole for two passes.
constexpr int64_t kMaxInnerWelfordThreads = 128;
// Rows enough for a block an SM but too few to give the SMs threads
// enough at kMaxInnerWelfordThreads a row (fewer rows split over blocks,
// below): up to kMaxFewRowsWelfordThreads a row, aiming at
// kWelfordThreadsPerSm threads an SM, every thread keeping at least
// kMinFewRowsWelfordChunks chunks. Learned from the tuner (H200, fp16
// GroupNorm [8, 320, 63, 63]: 256 rows of 39,690, a random sweep of 300
// variants): 256 threads a row (what this rule gives there) 13.2 us, 512
// threads 12.3 us, against 19.2 us for the 128 of the rule above. 512
// threads an SM keeps 512 rows and more at 128 threads (no measurement
// says otherwise there).
constexpr int64_t kMaxFewRowsWelfordThreads = 512;
constexpr int64_t kWelfordThreadsPerSm = 512;
constexpr int64_t kMinFewRowsWelfordChunks = 2;
// Outer var_mean: lanes a thread, and the blocks of 8 column threads x 32
// row threads it tries as a third cluster shape (outerWelfordHeuristic).
constexpr int64_t kMaxOuterWelfordVectorize = 4;
constexpr int64_t kTallWelfordBlockThreads = 256;
constexpr int64_t kWelfordChunkElements = 32;

struct Analysis {
  ReductionPattern pattern;
  ReductionExtents extents;
  VectorizeLimit vectorize;
  bool welford = false;  //!< a var_mean among the reductions
};

Analysis analyze(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  FL_ASSERT(info.device != nullptr && info.evaluator != nullptr,
            "the reduction scheduler needs a device and sizes");
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  FL_ASSERT(pattern.pattern.has_value(),
            "the reduction scheduler was asked about a segment it refused: ", pattern.reason);
  Analysis a{*pattern.pattern, {}, {}};
  ReductionExtentsResult extents = reductionExtents(a.pattern, *info.evaluator);
  FL_ASSERT(extents.reason.empty(), extents.reason);
  a.extents = extents.extents;
  a.vectorize = maxVectorizeFactor(segment, a.pattern, a.extents, info);
  for (const ReductionInfo& r : a.pattern.reductions) {
    if (r.expr->type() == ir::ExprType::Welford) a.welford = true;
  }
  return a;
}

// Loads in flight per thread reach 16 bytes: unroll what vectorization could
// not cover (an odd extent leaves vectorization at 1).
int64_t unrollFor(int64_t vectorize, int64_t maxVectorize16Bytes, int64_t serialIterations) {
  const int64_t wanted = std::max<int64_t>(1, maxVectorize16Bytes / vectorize);
  return std::min(wanted, previousPowerOfTwo(std::max<int64_t>(1, serialIterations)));
}

ReductionParams innerHeuristic(const Analysis& a, const DeviceSpec& device) {
  ReductionParams p;
  p.fastestDimReduction = true;
  const int64_t reduction = std::max<int64_t>(1, a.extents.reductionExtent);
  const int64_t iteration = std::max<int64_t>(1, a.extents.iterationExtent);
  p.vectorizationFactor = a.vectorize.factor;
  const int64_t afterVect = ceilDiv(reduction, p.vectorizationFactor);
  // Each thread takes kInnerLoadsPerThread vector loads of its row (issued
  // together), at least a warp per row unless the row is shorter: fewer
  // threads per row mean more bytes in flight per thread and a cheaper
  // block reduction (row_sum bf16 [8192, 4096]: 128 threads of 4 x 16 bytes
  // instead of 512 of one). Narrower vectors: kNarrowInnerLoadsPerThread
  // (Welford rows take their threads and chunks below).
  const int64_t loads = !a.welford && p.vectorizationFactor < a.vectorize.dtypeFactor
                            ? kNarrowInnerLoadsPerThread
                            : kInnerLoadsPerThread;
  const int64_t spread = std::max(std::min<int64_t>(32, nextPowerOfTwo(afterVect)),
                                  nextPowerOfTwo(ceilDiv(afterVect, loads)));
  p.blockDimX = std::min(a.welford ? kMaxInnerWelfordThreads : kMaxInnerReductionThreads, spread);
  // A Welford row of up to kMaxInnerReductionThreads chunks, with rows
  // enough to fill the SMs: a chunk per thread, so each block holds its row
  // whole and the emitter takes two passes over the registers (two float
  // allreduces instead of Welford combines across threads; var_mean f32
  // 4096x8192 on an H100: 48.4 -> 46.1 us, bf16 4096x8192 28.8 -> 25.4).
  int64_t wholeRowUnroll = 0;
  if (a.welford && iteration >= device.smCount) {
    const int64_t chunkVectors =
        std::max<int64_t>(1, kWelfordChunkElements / p.vectorizationFactor);
    const int64_t threads = nextPowerOfTwo(ceilDiv(afterVect, chunkVectors));
    if (threads > p.blockDimX && threads <= kMaxInnerReductionThreads) {
      p.blockDimX = threads;
      wholeRowUnroll = ceilDiv(afterVect, threads);
    }
  }
  if (a.welford && wholeRowUnroll == 0 && p.blockDimX == kMaxInnerWelfordThreads &&
      iteration >= device.smCount) {
    const int64_t chunks =
        ceilDiv(afterVect, std::max<int64_t>(1, kWelfordChunkElements / p.vectorizationFactor));
    const int64_t wanted =
        previousPowerOfTwo(std::max<int64_t>(1, device.smCount * kWelfordThreadsPerSm / iteration));
    const int64_t most =
        previousPowerOfTwo(std::max<int64_t>(1, chunks / kMinFewRowsWelfordChunks));
    p.blockDimX = std::clamp(std::min(wanted, most), p.blockDimX, kMaxFewRowsWelfordThreads);
  }
  if (p.blockDimX < kMinBlockThreads) {
    p.blockDimY = std::min(nextPowerOfTwo(iteration), kMinBlockThreads / p.blockDimX);
  }
  p.gridDimX = ceilDiv(iteration, p.blockDimY);
  int64_t serial = ceilDiv(afterVect, p.blockDimX);
  // Too few rows to fill the SMs and long rows: split each row over blocks.
  if (p.gridDimX < device.smCount && serial >= 2 * kMinSerialPerGridBlock) {
    p.gridDimY = std::min<int64_t>(
        {ceilDiv(device.smCount, p.gridDimX), serial / kMinSerialPerGridBlock, 65535});
    p.crossGridReduction = p.gridDimY > 1;
    serial = ceilDiv(serial, p.gridDimY);
  }
  p.unrollFactorReduction =
      std::max(unrollFor(p.vectorizationFactor, a.vectorize.dtypeFactor, serial),
               std::min(loads, previousPowerOfTwo(std::max<int64_t>(1, serial))));
  if (a.welford) {
    p.unrollFactorReduction =
        std::min(std::max<int64_t>(1, kWelfordChunkElements / p.vectorizationFactor),
                 previousPowerOfTwo(std::max<int64_t>(1, serial)));
  }
  if (wholeRowUnroll > 0) p.unrollFactorReduction = wholeRowUnroll;
  p.crossBlockReduction = p.blockDimX > 1;
  return p;
}

// sm_90+: split each column group over one thread-block cluster when that
// keeps the grid between kMinClusterThreadsPerSm and kMaxClusterThreadsPerSm
// threads per SM with at least kMinClusterSplit blocks per cluster: the
// partials are combined in the cluster's shared memory, with no workspace,
// fence or semaphore. More blocks risk a second wave of clusters (each must
// fit in one GPC), fewer leave the SMs short of loads. H100, bf16 column
// sums (bench, clean L2), clusters of 128-thread blocks against the
// workspace split this heuristic took before: [8192, 4096] 64 clusters of
// 8, 27.5 us against 30.3 (16 splits); [2048, 8192] 128 of 4, 16.4 against
// 19.8 (8 splits; 128 clusters of 8: 18.7); [4096, 16384] 256 of 2, 49.9
// against 51.7 (4 splits; 256 clusters of 4: 58.2); [16384, 1024] 16 of 8,
// 30.2 against 19.5 (64 splits, kept).
struct ClusterSplit {
  bool take = false;
  int64_t split = 1;
  std::string why;  //!< for the report's properties
};

ClusterSplit clusterSplit(int64_t columnGroups, int64_t blockThreads, int64_t workspaceSplit,
                          const DeviceSpec& device) {
  ClusterSplit c;
  if (device.computeCapability() < 90) {
    c.why = device.arch() + " has no thread-block clusters: " + std::to_string(workspaceSplit) +
            " splits through the workspace";
    return c;
  }
  c.split =
      std::min<int64_t>({workspaceSplit, int64_t{kPortableClusterBlocks},
                         kMaxClusterThreadsPerSm * device.smCount / (columnGroups * blockThreads)});
  const int64_t blocks = columnGroups * c.split;
  const std::string shape = std::to_string(columnGroups) + " column groups x " +
                            std::to_string(c.split) + " = " + std::to_string(blocks) +
                            " blocks of " + std::to_string(blockThreads) + " threads";
  const std::string range = std::to_string(kMinClusterThreadsPerSm) + " to " +
                            std::to_string(kMaxClusterThreadsPerSm) + " threads per SM";
  if (c.split < kMinClusterSplit) {
    c.why = "clusters of " + std::to_string(c.split) + " (" + shape + ", at most " +
            std::to_string(kMaxClusterThreadsPerSm) +
            " threads per SM) split too little: " + std::to_string(workspaceSplit) +
            " splits through the workspace";
  } else if (blocks * blockThreads < kMinClusterThreadsPerSm * device.smCount) {
    c.why = "clusters of " + std::to_string(c.split) + " (" + shape + ") leave under " +
            std::to_string(kMinClusterThreadsPerSm) +
            " threads per SM: " + std::to_string(workspaceSplit) + " splits through the workspace";
  } else {
    c.take = true;
    c.why = "clusters of " + std::to_string(c.split) + " (" + shape + ", " + range +
            ") combine in shared memory instead of " + std::to_string(workspaceSplit) +
            " splits through the workspace";
  }
  return c;
}

// An outer reduction's launch with `columnThreads` threads along the kept
// axis in blocks of up to `blockThreads`; `clusterOnly`: nullopt unless the
// split becomes a cluster.
std::optional<ReductionParams> outerShape(const Analysis& a, const DeviceSpec& device,
                                          int64_t columnThreads, int64_t blockThreads,
                                          bool clusterOnly, std::string* clusterWhy) {
  ReductionParams p;
  p.fastestDimReduction = false;
  const int64_t reduction = std::max<int64_t>(1, a.extents.reductionExtent);
  const int64_t iteration = std::max<int64_t>(1, a.extents.iterationExtent);
  p.vectorizationFactor = a.vectorize.factor;
  const int64_t columns = ceilDiv(iteration, p.vectorizationFactor);
  // blockDimY: threads along the kept axis; blockDimX: along the reduction.
  p.blockDimY = std::min(columnThreads, nextPowerOfTwo(columns));
  p.blockDimX =
      std::min(nextPowerOfTwo(reduction), std::max<int64_t>(1, blockThreads / p.blockDimY));
  p.gridDimX = ceilDiv(columns, p.blockDimY);
  int64_t serial = ceilDiv(reduction, p.blockDimX);
  const int64_t targetBlocks = kOuterBlocksPerSm * device.smCount;
  std::string why = "the reduction is not split across blocks";
  if (p.gridDimX < targetBlocks && serial >= 2 * kMinSerialPerGridBlock) {
    p.gridDimY =
        std::min<int64_t>({targetBlocks / p.gridDimX, serial / kMinSerialPerGridBlock, 65535});
    p.crossGridReduction = p.gridDimY > 1;
    if (p.crossGridReduction) {
      const ClusterSplit cluster =
          clusterSplit(p.gridDimX, p.blockDimX * p.blockDimY, p.gridDimY, device);
      if (cluster.take) {
        p.gridDimY = cluster.split;
        p.clusterReduction = true;
      }
      why = cluster.why;
    }
    serial = ceilDiv(serial, p.gridDimY);
  }
  if (clusterOnly && !p.clusterReduction) return std::nullopt;
  if (clusterWhy != nullptr) *clusterWhy = why;
  // Each unrolled step is a separate row: independent loads in flight.
  p.unrollFactorReduction = std::min(
      kOuterLoadsInFlight * unrollFor(p.vectorizationFactor, a.vectorize.dtypeFactor, serial),
      previousPowerOfTwo(std::max<int64_t>(1, serial)));
  p.crossBlockReduction = p.blockDimX > 1;
  return p;
}

// Outer var_mean: at most kMaxOuterWelfordVectorize lanes a thread, and
// clusters tried in blocks of 16 x 16, 8 x 16 and 8 x 32 threads (column x
// row threads) before a workspace split. Short blocks spend most of their
// time combining (the block's rows, then the split's partials), which costs
// more, and takes more registers, with more lanes a thread; clusters skip
// the workspace's partials, fence and semaphore. H100, bench, var_mean over
// the rows, shapes pinned with `db put` (docs/performance.md): bf16 [16384,
// 1024] 8 lanes through the workspace 41 to 48 us at any split, 4 lanes
// 23.6 to 24.6; bf16 [16384, 2048] 4 lanes in 32 clusters of 8 blocks of
// 16 x 16 29.4 us, 64 of 8 x 16 30.7, through the workspace 33.0, 8 lanes
// 55.5 to 59.2; f32 [16384, 1024] 32 clusters of 8 x 32 28.1 us against
// 33.5 through the workspace (the 16 x 16 and 8 x 16 clusters leave under
// 256 threads an SM). This heuristic against the one before it (8 lanes
// but for workspace splits, clusters of 16 x 16 or 8 x 16 only): bf16
// [16384, 1024] 23.9 -> 18.7 us, [32768, 1024] 36.2 -> 31.3, [8192, 4096]
// 32.7 -> 29.7, [4099, 2056] 20.1 -> 14.3, [333, 1000] 10.9 -> 7.0; f32
// [16384, 1024] 33.5 -> 28.2.
ReductionParams outerWelfordHeuristic(const Analysis& a, const DeviceSpec& device,
                                      std::string* clusterWhy) {
  Analysis narrower = a;
  narrower.vectorize.factor = std::min(a.vectorize.factor, kMaxOuterWelfordVectorize);
  const std::string lanes = narrower.vectorize.factor < a.vectorize.factor
                                ? " (var_mean: " + std::to_string(narrower.vectorize.factor) +
                                      " lanes a thread, not " + std::to_string(a.vectorize.factor) +
                                      ")"
                                : "";
  std::string why;
  for (const auto& [columnThreads, blockThreads] :
       {std::pair<int64_t, int64_t>{kWideClusterColumnThreads, kWideClusterBlockThreads},
        {kMaxOuterIterationThreads, kOuterBlockThreads},
        {kMaxOuterIterationThreads, kTallWelfordBlockThreads}}) {
    std::string shapeWhy;
    if (auto p = outerShape(narrower, device, columnThreads, blockThreads,
                            /*clusterOnly=*/true, &shapeWhy)) {
      if (clusterWhy != nullptr) *clusterWhy = shapeWhy + lanes;
      return *p;
    }
    if (why.empty()) why = shapeWhy;
  }
  ReductionParams p = *outerShape(narrower, device, kMaxOuterIterationThreads, kOuterBlockThreads,
                                  /*clusterOnly=*/false, &why);
  if (clusterWhy != nullptr) *clusterWhy = why + lanes;
  return p;
}

ReductionParams outerHeuristic(const Analysis& a, const DeviceSpec& device,
                               std::string* clusterWhy = nullptr) {
  if (a.welford) return outerWelfordHeuristic(a, device, clusterWhy);
  if (auto wide = outerShape(a, device, kWideClusterColumnThreads, kWideClusterBlockThreads,
                             /*clusterOnly=*/true, clusterWhy)) {
    return *wide;
  }
  return *outerShape(a, device, kMaxOuterIterationThreads, kOuterBlockThreads,
                     /*clusterOnly=*/false, clusterWhy);
}

// A reduction kernel makes one pass over its rows: a reduction of another
// reduction's result (a max over the kept size-1 axis of a sum) needs a
// second pass, which the persistent schedulers make, or a segment of its
// own (the differential tester's seed 102797 reached code generation).
std::optional<std::string> rejectChainedReductions(const ReductionPattern& pattern) {
  std::unordered_map<const ir::Val*, const ir::Expr*> reducedBy;
  for (const ReductionInfo& r : pattern.reductions) {
    for (const ir::Val* out : r.expr->outputs()) reducedBy[out] = r.expr;
  }
  for (const ReductionInfo& r : pattern.reductions) {
    std::vector<const ir::Val*> stack{r.input};
    std::unordered_set<const ir::Val*> seen;
    while (!stack.empty()) {
      const ir::Val* val = stack.back();
      stack.pop_back();
      if (!seen.insert(val).second) continue;
      if (const auto it = reducedBy.find(val); it != reducedBy.end()) {
        return "reduction " + r.output->name() + " reads the result of reduction " +
               it->second->output(0)->name() +
               "; a reduction kernel makes one pass over its rows (a persistent "
               "scheduler keeps them for a second)";
      }
      if (const ir::Expr* def = val->definition()) {
        for (const ir::Val* in : def->inputs()) {
          if (in->as<ir::TensorView>() != nullptr) stack.push_back(in);
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ReductionScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  if (!pattern.pattern) return pattern.reason;
  if (auto reason = rejectColumnReductions(*pattern.pattern, "the reduction scheduler")) {
    return reason;
  }
  if (auto reason = rejectUnsupportedReductionOps(segment, *pattern.pattern)) {
    return reason;
  }
  if (auto reason = rejectChainedReductions(*pattern.pattern)) return reason;
  const PersistentBufferInfo buffers = findPersistentBuffers(segment, *pattern.pattern);
  if (!buffers.buffers.empty()) {
    const PersistentBuffer& b = buffers.buffers.front();
    return b.tv->name() + " is used both by the reduction " + b.reduction->name() +
           " and after it by " + b.usedAfterBy->name() +
           ": a persistent buffer is needed (persistent schedulers)";
  }
  if (buffers.fullRowAfterReduction != nullptr) {
    return buffers.fullRowAfterReduction->name() + " combines the result of reduction " +
           buffers.fullRowReduction->name() +
           ", broadcast back along its reduced axes, with full rows: a "
           "reduction kernel ends at its reduction, so the ops after it "
           "belong in a pointwise segment";
  }
  return std::nullopt;
}

std::optional<std::string> ReductionScheduler::rejectRunTime(const ir::Fusion& segment,
                                                             const SegmentRuntimeInfo& info) const {
  FL_ASSERT(info.evaluator != nullptr, "run-time checks need sizes");
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  if (!pattern.pattern) return pattern.reason;
  if (auto reason = rejectColumnReductions(*pattern.pattern, "the reduction scheduler")) {
    return reason;
  }
  ReductionExtentsResult extents = reductionExtents(*pattern.pattern, *info.evaluator);
  if (!extents.reason.empty()) return extents.reason;
  if (auto reason = rejectReshapeExtents(segment, *info.evaluator)) {
    return reason;
  }
  return rejectUntracedTensors(segment, *pattern.pattern, *info.evaluator);
}

HeuristicParams ReductionScheduler::computeHeuristics(const ir::Fusion& segment,
                                                      const SegmentRuntimeInfo& info) const {
  const Analysis a = analyze(segment, info);
  ReductionParams p =
      a.pattern.innermost ? innerHeuristic(a, *info.device) : outerHeuristic(a, *info.device);
  p.persistentKernel = false;
  p.useInt32Indexing = fitsInt32Indexing(segment, *info.evaluator);
  return p;
}

std::optional<std::string> ReductionScheduler::rejectParams(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info,
                                                            const HeuristicParams& params) const {
  std::string reason;
  const ReductionParams* p = asReductionParams(params, &reason);
  if (p == nullptr) return reason;
  const Analysis a = analyze(segment, info);
  if (p->persistentKernel) {
    return std::string(
        "persistent_kernel is set, but the reduction "
        "scheduler keeps nothing resident");
  }
  if (p->fastestDimReduction != a.pattern.innermost) {
    return std::string("fastest_dim_reduction is ") + (p->fastestDimReduction ? "true" : "false") +
           ", but " + a.pattern.reference()->name() + " is reduced over " +
           (a.pattern.innermost ? "its innermost" : "outer") + " " + a.pattern.axesDescription();
  }
  if (auto r = rejectLaunchShape(*p, *info.device, a.vectorize.factor)) {
    if (p->vectorizationFactor > a.vectorize.factor) {
      *r += " (limited by " + a.vectorize.limitedBy + ")";
    }
    return r;
  }
  if (p->useInt32Indexing && !fitsInt32Indexing(segment, *info.evaluator)) {
    return std::string(
        "use_int32_indexing is set, but a tensor of this "
        "segment has more than 2^31 - 1 elements");
  }
  const int64_t iteration = a.extents.iterationExtent;
  // Each block walks groups of block_dim_y * unroll_factor_iteration rows
  // (columns: times the vector width) until the grid has covered them all.
  const int64_t covered = p->gridDimX * p->blockDimY * p->unrollFactorIteration *
                          (a.pattern.innermost ? 1 : p->vectorizationFactor);
  if (covered < iteration) {
    return "the grid covers " + std::to_string(covered) + " of the " + std::to_string(iteration) +
           " output elements (grid_dim_x * block_dim_y * unroll_factor_iteration" +
           (a.pattern.innermost ? "" : " * vectorization_factor") + ")";
  }
  return std::nullopt;
}

report::Json ReductionScheduler::properties(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info) const {
  report::Json json = report::Json::object();
  ReductionPatternResult pattern = analyzeReductionPattern(segment);
  if (!pattern.pattern || info.evaluator == nullptr) return json;
  ReductionExtentsResult extents = reductionExtents(*pattern.pattern, *info.evaluator);
  if (!extents.reason.empty()) return json;
  const VectorizeLimit vectorize =
      maxVectorizeFactor(segment, *pattern.pattern, extents.extents, info);
  json.set("reduction_extent", extents.extents.reductionExtent);
  json.set("iteration_extent", extents.extents.iterationExtent);
  json.set("fastest_dim_reduction", pattern.pattern->innermost);
  json.set("reduced_axes", report::Json::arrayOf(pattern.pattern->axes));
  json.set("reductions", static_cast<int64_t>(pattern.pattern->reductions.size()));
  json.set("max_allowed_vectorize_factor", vectorize.factor);
  json.set("vectorize_limited_by", vectorize.limitedBy);
  if (!pattern.pattern->innermost && info.device != nullptr) {
    // Why the heuristic's split of the rows is (not) a cluster's.
    std::string why;
    (void)outerHeuristic(analyze(segment, info), *info.device, &why);
    json.set("cluster_reduction_choice", why);
  }
  return json;
}

}  // namespace fuserlab::scheduler
