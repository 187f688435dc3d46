#include "core/scheduler/persistent/inner_persistent_scheduler.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "core/ir/error.h"
#include "core/scheduler/analysis/row_gather.h"
#include "core/scheduler/persistent/normalization_checks.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::scheduler {
namespace {

// Blocks of 128 to 256 threads per row: fewer leave the SM's schedulers
// idle, more make the block reduction (and its synchronization) the
// bottleneck and keep fewer rows in flight per SM. (nvFuser allows up to
// 512; on an H100 a bf16 softmax of 16384-element rows ran 115.7 us with 512
// threads of 32 elements and 102.0 us with 256 of 64, docs/performance.md.)
constexpr int64_t kPreferredMinThreads = 128;
constexpr int64_t kPreferredMaxThreads = 256;
// Rows of at least this many elements give each thread at least
// kMinElementsPerThread of them, so per-thread work hides the reduction and
// its synchronization. (Measured on an H100, docs/performance.md: with 8 per
// thread, a bf16 8192x4096 softmax ran one 512-thread block per row at 38%
// of the copy bandwidth; the tuner's best variant gives each of 128 threads
// 32 elements and runs 1.86x faster. An RMSNorm backward in chunks of 1 ran
// 76.3 us with 256 threads of 16 and 73.0 us with 128 of 32.)
constexpr int64_t kLongRow = 1024;
constexpr int64_t kMinElementsPerThread = 32;
// Shorter rows keep about as many threads a row, give or take a factor of
// two: each thread takes the largest power of two at most 1/32 of the row.
// (H200, the tuner on bf16 LayerNorm and RMSNorm backward dx at 8191x1023,
// docs/performance.md: the old rule gave rows under 1,024 one chunk a
// thread, 256 threads of 4 elements, 19.0 and 16.4 us; 64 threads of 16
// ran 12.4 and 12.1, 128 of 8 13.1 and 12.2. Held-out sizes, bench: bf16
// RMSNorm 16384x1023 30.2 -> 19.8 us, LayerNorm 32768x1000 39.7 -> 34.1,
// 16384x768 17.2 -> 16.3.)
int64_t minElementsPerThread(int64_t rowLength) {
  if (rowLength >= kLongRow) return kMinElementsPerThread;
  int64_t elements = 1;
  while (elements * 2 * kMinElementsPerThread <= rowLength) elements *= 2;
  return elements;
}
// Unless that minimum leaves more than 1/kMaxIdleFraction of the block's
// chunk slots idle: then fewer chunks per thread for fewer idle slots. (A
// masked softmax of 2050-element rows in chunks of 2, 1025 chunks, got 96
// threads of 16, 1536 slots, and ran 67.8 us; 224 to 256 threads of 5 ran
// 40 to 44. LayerNorms of 1030 to 2500 bf16 elements in chunks of 4 on an
// H100, db-pinned shapes against the old rule's 160 to 192 threads of 2 to
// 4 chunks, docs/performance.md: 1030 18.4 -> 15.6 us with 96 x 3, 1500
// 20.8 -> 19.1 with 64 x 6, 2052 26.6 -> 24.9 with 96 x 6, 2500 30.0 ->
// 29.2 with 128 x 5.)
constexpr int64_t kMaxIdleFraction = 8;
// Shifted rows (a row length the 16-byte factor does not divide) take
// 16-byte chunks, or 8-byte ones (this divisor) when the buffers are
// projected to the inputs. Measured on an H100 with the tuner, the best of
// each factor at the same threads (docs/performance.md): kept buffers
// (softmaxes, masked or with a bias) 26.2 against 35.5 us, 25.4 against
// 29.6, 31.9 against 45.6; projected ones (LayerNorm 4099 and 2050) 49.5
// against 45.5 and 27.0 against 23.7 for 8-byte chunks, RMSNorm within 3%
// either way.
constexpr int64_t kProjectedShiftedRowsDivisor = 2;
// A register-resident buffer takes at most half of the 255 registers a
// thread may have; the rest holds addresses, partial sums and temporaries.
constexpr int64_t kMaxBufferBytesPerThread = 128 * 4;

// A row whose threads would keep more than this many chunks each in
// registers is split over the blocks of a thread-block cluster (sm_90+; not
// with column sums or row gathers), the fewest blocks (a power of two, at
// most kMaxRowSplit) that leave each thread at most kSplitRowChunks. (H200
// and ptxas sm_90, GroupNorm + SiLU fp16 in one kernel: rows of 65,536 at
// 8x512x64x64, 256 threads of 32 chunks of 8, spill 1,980 bytes at 64
// registers, over 4 blocks of 8 chunks 126 registers and no spill; rows of
// 39,690 at 8x320x63x63 in 39 chunks of 4, 53.4 us, over 4 blocks 36.7
// (before per-value approximations; 30.8 against 28 to 29 after, split 2
// to 8 ways in chunks of 8). Rows of 40,960 at 32x320x64x64, 20 chunks,
// stay whole: 57.6 us, over 2 blocks 58.2, over 4 62.7; a softmax of
// 16,384 in 8 chunks too: 66.0, over 2 77.4.)
constexpr int64_t kSplitRowAboveChunks = 24;
constexpr int64_t kSplitRowChunks = 10;
constexpr int64_t kMaxRowSplit = 8;

// The blocks of a cluster each row is split over (1: not split).
int64_t rowSplit(const ir::Fusion& segment, const PersistentBufferAnalysis& a,
                 const ReductionParams& p, const DeviceSpec& device) {
  if (p.persistentStorage != PersistentStorage::Registers ||
      p.persistentBatchSize <= kSplitRowAboveChunks || device.computeCapability() < 90 ||
      !a.pattern->columnReductions.empty() ||
      !findRowGathers(segment, *a.pattern).gathers.empty()) {
    return 1;
  }
  const int64_t limit = std::min(kMaxRowSplit, maxClusterBlocks(device));
  int64_t split = 2;
  while (split < limit && ceilDiv(p.persistentBatchSize, split) > kSplitRowChunks) split *= 2;
  return std::min(split, limit);
}

// Kernels with column sums (a normalization backward's dw and db beside
// dx) wait for every block at a grid barrier after their rows, so the grid
// must be resident at once: as many blocks per SM as the registers a thread
// is estimated to need allow (the launch bounds then promise them), the
// grid striding over the rows. The estimate: this many for addresses, row
// values and temporaries, a register per 4 bytes of the row kept in
// registers, one per column sum and element of the thread's chunks.
constexpr int64_t kCombinedBaseRegisters = 64;
// At most this many blocks an SM: more leave fewer rows to each block for
// the same partial sums (H200, bf16 RMSNorm backward with the weight
// gradient at 8192x4096, rows in shared memory in chunks of 4: 5 blocks an
// SM 56.3 us, 4 blocks 52.4; LayerNorm's, 4 blocks 70.9, 5 blocks 84.8).
constexpr int64_t kCombinedMaxBlocksPerSm = 4;

int64_t combinedBlocksPerSm(const ReductionParams& p, int64_t storageBytesPerThread,
                            int64_t columnSums, const DeviceSpec& device) {
  const int64_t threads = p.blockDimX * p.blockDimY;
  const int64_t kept =
      p.persistentStorage == PersistentStorage::Registers ? ceilDiv(storageBytesPerThread, 4) : 0;
  const int64_t registers =
      std::min<int64_t>(device.maxRegistersPerThread,
                        roundUpTo(kCombinedBaseRegisters + kept +
                                      columnSums * p.persistentBatchSize * p.vectorizationFactor,
                                  8));
  const int64_t byRegisters = device.registersPerSm / (threads * registers);
  return std::max<int64_t>(
      1, std::min({byRegisters, device.maxThreadsPerSm / threads, kCombinedMaxBlocksPerSm}));
}

// The blocks of a combined kernel an SM keeps: by registers and threads,
// and with rows in shared memory, by the SM's shared memory too.
int64_t combinedResidentBlocks(const ReductionParams& p, const PersistentBufferAnalysis& a,
                               int64_t columnSums, const DeviceSpec& device) {
  const int64_t rowBytes = a.sizes.bytesPerRow(p.projectPersistentBuffers);
  int64_t blocks = combinedBlocksPerSm(p, ceilDiv(rowBytes, p.blockDimX), columnSums, device);
  if (p.persistentStorage == PersistentStorage::SharedMemory && device.sharedMemoryPerSmBytes > 0) {
    // The block's rows and its reduction scratch (1 KiB).
    const int64_t perBlock = rowBytes * p.blockDimY + 1024;
    blocks = std::max<int64_t>(1, std::min(blocks, device.sharedMemoryPerSmBytes / perBlock));
  }
  return blocks;
}

// A combined kernel's partial column sums (written by each block, read
// back after the grid barrier) move at most this share of the bytes its
// rows read: the grid is capped so, and where even a block per SM would
// move more (few rows: each block would take only a couple), the column
// sums go in a kernel of their own. (The measured cases, H200, moved 6 to
// 26%: bf16 8192x4096 LayerNorm backward, 528 blocks, 35 MB of partials
// beside 134 MB read.)
constexpr int64_t kCombinedPartialShareDivisor = 3;

// The most blocks a combined kernel's partial sums allow (above).
int64_t combinedPartialBlockLimit(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                  const PersistentBufferAnalysis& a) {
  int64_t readBytes = 0;
  const std::vector<ir::Val*>& inputs = segment.inputs();
  for (size_t i = 0; i < inputs.size() && i < info.inputs.size(); ++i) {
    if (inputs[i]->as<ir::TensorView>() == nullptr) continue;
    int64_t numel = 1;
    for (int64_t size : info.inputs[i].sizes) numel *= size;
    readBytes += numel * ir::sizeInBytes(inputs[i]->dtype());
  }
  int64_t perBlock = 0;  // partial bytes a block writes and the grid reads back
  for (const ReductionInfo& c : a.pattern->columnReductions) {
    perBlock += 2 * a.extents.reductionExtent * ir::sizeInBytes(c.output->dtype());
  }
  return readBytes / (kCombinedPartialShareDivisor * std::max<int64_t>(1, perBlock));
}

// A combined kernel keeping fewer threads than this resident on an SM
// (its registers, the kept rows and the column sums together, limit the
// blocks) keeps its rows in shared memory instead where that lets more
// blocks in: the buffers themselves where they fit (no recomputation), in
// 8-byte chunks (half the 16-byte factor). (H200, bf16 LayerNorm and
// RMSNorm backward with weight gradients at 8192x4096, CUPTI kernel time,
// docs/performance.md: rows in registers, 2 and 3 blocks of 128 threads an
// SM, 84.7 and 64.1 us; in shared memory, 4 blocks, chunks of 8 87.4 and
// 66.1, of 4 63.4 and 52.5, of 2 66.3 and 54.6.)
constexpr int64_t kCombinedMinResidentThreads = 512;

struct RowShape {
  int64_t batch = 1;
  int64_t threads = 1;
};

// Splits `chunks` vectorized chunks of a row into blockDimX threads of
// `batch` chunks each: blocks in the preferred range first, then the least
// padding (idle thread slots), then the smallest batch.
RowShape chooseRowShape(int64_t chunks, int64_t minBatch, int64_t bytesPerChunk, bool inRegisters,
                        const DeviceSpec& device) {
  const int64_t warp = device.warpSize;
  const int64_t maxThreads = device.maxThreadsPerBlock;
  const int64_t wantedMin = std::min(kPreferredMinThreads, roundUpTo(chunks, warp));
  std::optional<std::tuple<int, int64_t, int64_t>> best;
  RowShape chosen;
  std::optional<RowShape> leastPerThread;
  const int64_t maxBatch = std::max(minBatch, chunks);
  for (int64_t batch = std::max<int64_t>(1, minBatch); batch <= maxBatch; ++batch) {
    const int64_t needed = ceilDiv(chunks, batch);
    const int64_t threads = needed >= warp ? roundUpTo(needed, warp) : nextPowerOfTwo(needed);
    if (threads > maxThreads) continue;
    const bool fitsThread = !inRegisters || batch * bytesPerChunk <= kMaxBufferBytesPerThread;
    if (!leastPerThread) leastPerThread = RowShape{batch, threads};
    if (fitsThread) {
      const int outOfRange = threads < wantedMin || threads > kPreferredMaxThreads ? 1 : 0;
      const auto score = std::make_tuple(outOfRange, threads * batch - chunks, batch);
      if (!best || score < *best) {
        best = score;
        chosen = RowShape{batch, threads};
      }
    }
    // Past this batch blocks only shrink below the preferred range.
    if (needed == 1 || (threads < wantedMin && best)) break;
  }
  if (best) return chosen;
  FL_ASSERT(leastPerThread.has_value(), "no block shape for a row of ", chunks, " chunks");
  return *leastPerThread;
}

// Whether the kernel projects its buffers to its inputs, and where it keeps
// them. Projection trades registers for recomputation in the last pass.
// When the buffers fit the registers as they are and the recomputation is a
// transcendental (a softmax's exp), keep them: the kernel then also keeps
// the exps of the sum's pass for the output's instead of computing them
// again. (H100, docs/performance.md: softmax 4096x16384 93 us kept, 102 us
// projected; 8192x4096 47.4 and 48.0 us.)
struct BufferChoice {
  bool projected = false;
  PersistentStorage storage = PersistentStorage::Registers;
};

BufferChoice chooseBuffers(const PersistentBufferAnalysis& a) {
  BufferChoice c;
  c.projected = a.sizes.projectPersistentBuffers;
  if (c.projected && a.info.projectionRecomputesTranscendental() &&
      a.sizes.persistentBufferBytes <= a.budget.registerBytes) {
    c.projected = false;
  }
  c.storage = a.budget.storageFor(a.sizes.bytesPerRow(c.projected))
                  .value_or(PersistentStorage::SharedMemory);
  return c;
}

// Whether `tv` is computed from `target`, walking definitions up.
bool computedFrom(const ir::Val* tv, const ir::Val* target) {
  std::vector<const ir::Val*> stack{tv};
  std::unordered_set<const ir::Val*> seen;
  while (!stack.empty()) {
    const ir::Val* v = stack.back();
    stack.pop_back();
    if (v == target) return true;
    if (!seen.insert(v).second || v->definition() == nullptr) continue;
    for (const ir::Val* in : v->definition()->inputs()) stack.push_back(in);
  }
  return false;
}

// Whether the kernel keeps any row across its reductions. A buffer is not
// kept where what reads it "after" its reduction is a row gather (the
// thread holding the row's gathered column keeps that element in the pass
// that reads it) or a sibling reduction not computed from it (reduced in
// the same pass): cross-entropy's max and log-sum-exp of the logits.
bool keepsRows(const ir::Fusion& segment, const PersistentBufferAnalysis& a) {
  const std::vector<RowGather> gathers = findRowGathers(segment, *a.pattern).gathers;
  return std::any_of(a.info.buffers.begin(), a.info.buffers.end(), [&](const PersistentBuffer& b) {
    const ir::TensorView* after = b.usedAfterBy;
    if (after == nullptr) return true;
    const bool gathered = std::any_of(gathers.begin(), gathers.end(),
                                      [&](const RowGather& g) { return g.output == after; });
    const ir::Expr* def = after->definition();
    const bool sibling = def != nullptr && def->type() == ir::ExprType::Reduction &&
                         !computedFrom(after, b.reduction);
    return !gathered && !sibling;
  });
}

// The chunk width (vectorization factor) of the kernel's rows. A row length
// the 16-byte factor does not divide gets shifted rows
// (VectorizeLimit::shiftedRowsFactor; registers only; the head and tail
// elements take a thread each), in 16-byte chunks where the kernel keeps its
// buffers or keeps nothing, and 8-byte ones where it projects the buffers it
// keeps to its inputs. `why`, if given, gets the reason for the report
// (empty where no row is shifted).
int64_t chooseChunkWidth(const ir::Fusion& segment, const PersistentBufferAnalysis& a,
                         bool projected, bool inRegisters, std::string* why) {
  const int64_t aligned = a.vectorize.factor;
  const int64_t shifted = a.vectorize.shiftedRowsFactor;
  if (shifted <= aligned) return aligned;
  const int64_t length = a.extents.reductionExtent;
  const std::string rows = "rows of " + std::to_string(length) + " elements, not a multiple of " +
                           std::to_string(a.vectorize.dtypeFactor);
  if (!inRegisters) {
    if (why != nullptr) {
      *why = rows +
             ", kept in shared memory, which has no shifted rows: "
             "chunks of " +
             std::to_string(aligned);
    }
    return aligned;
  }
  // A kernel that keeps nothing (its rows are read once, as cross-entropy's
  // online log-sum-exp reads them) has no buffers to project, whatever the
  // flag says. (H200, the tuner on cross-entropy of bf16 2047x50257: 96.2
  // us in 8-byte chunks, 78.8 in 16-byte ones.)
  const bool keepsProjected = projected && keepsRows(segment, a);
  const int64_t v =
      std::max(aligned, keepsProjected ? shifted / kProjectedShiftedRowsDivisor : shifted);
  if (why != nullptr) {
    const std::string buffers = keepsProjected ? "the kernel projects its buffers to its inputs"
                                : projected    ? "the kernel keeps no buffer: one pass over the row"
                                               : "the kernel keeps its buffers";
    if (length % v == 0) {
      *why = rows + ": chunks of " + std::to_string(v) + " (" + buffers +
             "), which divide the rows, so none is shifted";
    } else {
      *why = rows +
             ": each row's chunks start at its first aligned element, "
             "in chunks of " +
             std::to_string(v) + " (" + buffers + "); " +
             std::to_string(rowChunks(length, v, true)) +
             " whole chunks a row at most, the head and tail (up to " +
             std::to_string(shiftedRowExtraElements(v)) + " elements) one per thread";
    }
  }
  return v;
}

// Why a kernel with column sums cannot run with `p`: shifted rows (a
// thread's columns would change from row to row), or a grid that is not
// resident at once (its blocks wait for each other).
std::optional<std::string> rejectCombinedGrid(const PersistentBufferAnalysis& a,
                                              const ReductionParams& p, const DeviceSpec& device) {
  const std::string sums = "column sum " + a.pattern->columnReductions.front().output->name();
  const int64_t length = a.extents.reductionExtent;
  if (length % p.vectorizationFactor != 0) {
    return "vectorization_factor " + std::to_string(p.vectorizationFactor) +
           " does not divide the row length " + std::to_string(length) + ", but " + sums +
           " needs each thread to keep the same columns in every row";
  }
  const int64_t threads = p.blockDimX * p.blockDimY;
  const int64_t perSm = device.maxThreadsPerSm / std::max<int64_t>(1, threads);
  const int64_t resident = static_cast<int64_t>(device.smCount) * perSm;
  if (p.gridDimX > resident) {
    return "grid_dim_x " + std::to_string(p.gridDimX) + " is more blocks of " +
           std::to_string(threads) + " threads than " + device.name + " keeps resident (" +
           std::to_string(resident) + "), but " + sums + " waits for every block at a grid barrier";
  }
  if (p.persistentStorage == PersistentStorage::SharedMemory && device.sharedMemoryPerSmBytes > 0) {
    const int64_t blocksPerSm = ceilDiv(p.gridDimX, static_cast<int64_t>(device.smCount));
    const int64_t bytes = a.sizes.bytesPerRow(p.projectPersistentBuffers) * p.blockDimY;
    if (bytes * blocksPerSm > device.sharedMemoryPerSmBytes) {
      return "grid_dim_x " + std::to_string(p.gridDimX) + " needs " + std::to_string(blocksPerSm) +
             " blocks an SM of " + std::to_string(bytes) +
             " bytes of shared memory each, more than an SM has, but " + sums +
             " waits for every block at a grid barrier";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> InnerPersistentScheduler::rejectCompileTime(
    const ir::Fusion& segment) const {
  return rejectNormalizationCompileTime(segment, /*innermost=*/true);
}

std::optional<std::string> InnerPersistentScheduler::rejectRunTime(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info) const {
  const PersistentBufferAnalysis analysis = analyzePersistentBuffers(segment, info);
  if (auto reason = rejectNormalizationRunTime(segment, info, analysis)) {
    return reason;
  }
  const RowGatherResult gathers = findRowGathers(segment, *analysis.pattern);
  if (auto reason =
          rejectRowGatherExtents(segment, *analysis.pattern, gathers.gathers, *info.evaluator)) {
    return reason;
  }
  // The heuristic's proposal must be valid, or no launch shape is.
  if (auto reason = rejectParams(segment, info, computeHeuristics(segment, info))) {
    return "no launch shape keeps these rows resident: " + *reason;
  }
  if (!analysis.pattern->columnReductions.empty()) {
    const int64_t limit = combinedPartialBlockLimit(segment, info, analysis);
    if (limit < info.device->smCount) {
      return "column sum " + analysis.pattern->columnReductions.front().output->name() +
             ": the rows are too few for a combined kernel (its blocks' partial sums would "
             "move more than 1/" +
             std::to_string(kCombinedPartialShareDivisor) + " of the bytes the rows read with " +
             std::to_string(std::max<int64_t>(limit, 1)) + " blocks, fewer than the " +
             std::to_string(info.device->smCount) +
             " SMs); the column sums go in a kernel of their own";
    }
  }
  return std::nullopt;
}

HeuristicParams InnerPersistentScheduler::computeHeuristics(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info) const {
  const PersistentBufferAnalysis a = analyzeNormalization(segment, info);
  const DeviceSpec& device = *info.device;
  ReductionParams p;
  p.fastestDimReduction = true;
  p.persistentKernel = true;
  const BufferChoice buffers = chooseBuffers(a);
  p.projectPersistentBuffers = buffers.projected;
  p.persistentStorage = buffers.storage;
  const int64_t bytesPerRow = a.sizes.bytesPerRow(p.projectPersistentBuffers);

  const int64_t reduction = std::max<int64_t>(1, a.extents.reductionExtent);
  const int64_t iteration = std::max<int64_t>(1, a.extents.iterationExtent);
  const bool inRegisters = p.persistentStorage == PersistentStorage::Registers;
  const bool columns = !a.pattern->columnReductions.empty();
  // Column sums keep a thread's columns in every row: no shifted rows.
  p.vectorizationFactor =
      columns ? a.vectorize.factor
              : chooseChunkWidth(segment, a, p.projectPersistentBuffers, inRegisters, nullptr);
  // Shifted rows: the whole aligned chunks; the head and tail elements take a
  // thread each in one more pass.
  const int64_t chunks = rowChunks(reduction, p.vectorizationFactor, inRegisters);
  // Unless every chunk of the problem gets a thread of its own within one
  // wave of the GPU: such a kernel is latency-bound, and one chunk a thread
  // (every load in flight at once) beats per-thread work that hides the
  // reduction. (The rms_norm example, [1024, 2048] bf16 on an H100, the
  // tuner: 256 threads of 1 chunk 3.78 us against 64 threads of 4, the
  // rule's, 4.42.)
  const bool oneWave =
      iteration * chunks <= static_cast<int64_t>(device.smCount) * device.maxThreadsPerSm;
  const int64_t minElements = oneWave ? 1 : minElementsPerThread(reduction);
  const int64_t minBatch = std::min(chunks, ceilDiv(minElements, p.vectorizationFactor));
  const int64_t bytesPerChunk = ceilDiv(bytesPerRow, chunks);
  RowShape shape = chooseRowShape(chunks, minBatch, bytesPerChunk, inRegisters, device);
  const auto idleSlots = [&](const RowShape& r) { return r.threads * r.batch - chunks; };
  if (minBatch > 1 && idleSlots(shape) * kMaxIdleFraction > chunks) {
    // Fewer chunks per thread, down to two (one ran the 38% softmax above),
    // for fewer idle slots: the fewest, the larger batch on a tie, blocks of
    // up to kPreferredMaxThreads.
    for (int64_t batch = minBatch - 1; batch >= 2; --batch) {
      const RowShape fuller{batch, roundUpTo(ceilDiv(chunks, batch), device.warpSize)};
      if (fuller.threads > kPreferredMaxThreads) break;
      if (idleSlots(fuller) < idleSlots(shape)) shape = fuller;
    }
  }
  if (oneWave && iteration <= static_cast<int64_t>(device.smCount)) {
    // A row or so per SM (decode sizes): latency is all there is, and the
    // fewest chunks per thread win, in blocks of up to maxThreadsPerBlock.
    // (An H200, the tuner on residual add + RMSNorm of 16x4096 bf16 in
    // 16-byte chunks, 512 chunks a row: 128 threads of 4 4.45 us, 256 of 2
    // 2.94 (the preferred range's), 512 of 1 2.14, 1024 of 1 (half idle)
    // 2.21; docs/performance.md.)
    const int64_t batch = std::max<int64_t>(1, ceilDiv(chunks, device.maxThreadsPerBlock));
    const int64_t fewest = ceilDiv(chunks, batch);
    const RowShape latency{batch, fewest >= device.warpSize ? roundUpTo(fewest, device.warpSize)
                                                            : nextPowerOfTwo(fewest)};
    if (!inRegisters || batch * bytesPerChunk <= kMaxBufferBytesPerThread) shape = latency;
  }
  p.persistentBatchSize = shape.batch;
  p.blockDimX = shape.threads;
  if (reduction % p.vectorizationFactor != 0) {
    p.blockDimX = std::max(
        p.blockDimX, roundUpTo(shiftedRowExtraElements(p.vectorizationFactor), device.warpSize));
  }
  const int64_t split = rowSplit(segment, a, p, device);
  if (split > 1) {
    p.gridDimY = split;
    p.crossGridReduction = true;
    p.clusterReduction = true;
    p.persistentBatchSize = ceilDiv(chunks, p.blockDimX * split);
  }

  // Short rows share a block, as long as the storage holds them all and
  // enough blocks remain to fill the SMs.
  const int64_t storageBytes = a.budget.bytesOf(p.persistentStorage);
  if (p.blockDimX < kPreferredMinThreads) {
    p.blockDimY = std::min(nextPowerOfTwo(iteration), kPreferredMinThreads / p.blockDimX);
    while (p.blockDimY > 1 && (bytesPerRow * p.blockDimY > storageBytes ||
                               ceilDiv(iteration, p.blockDimY) < device.smCount)) {
      p.blockDimY /= 2;
    }
  }
  p.gridDimX = ceilDiv(iteration, p.blockDimY);
  if (columns) {
    const auto sums = static_cast<int64_t>(a.pattern->columnReductions.size());
    const int64_t blocks = combinedResidentBlocks(p, a, sums, device);
    if (p.persistentStorage == PersistentStorage::Registers &&
        blocks * p.blockDimX * p.blockDimY < kCombinedMinResidentThreads) {
      ReductionParams shared = p;
      shared.persistentStorage = PersistentStorage::SharedMemory;
      shared.vectorizationFactor = std::max<int64_t>(1, p.vectorizationFactor / 2);
      shared.persistentBatchSize =
          ceilDiv(rowChunks(reduction, shared.vectorizationFactor, false), p.blockDimX);
      shared.projectPersistentBuffers =
          !a.budget.storageFor(a.sizes.bytesPerRow(false) * p.blockDimY) && a.info.canProject();
      if (a.sizes.bytesPerRow(shared.projectPersistentBuffers) * p.blockDimY <=
              a.budget.bytesOf(PersistentStorage::SharedMemory) &&
          combinedResidentBlocks(shared, a, sums, device) > blocks) {
        p = shared;
      }
    }
    p.gridDimX =
        std::min({p.gridDimX,
                  static_cast<int64_t>(device.smCount) * combinedResidentBlocks(p, a, sums, device),
                  std::max<int64_t>(1, combinedPartialBlockLimit(segment, info, a))});
  }
  p.crossBlockReduction = p.blockDimX > 1;
  p.useInt32Indexing = fitsInt32Indexing(segment, *info.evaluator);
  return p;
}

std::optional<std::string> InnerPersistentScheduler::rejectParams(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info,
    const HeuristicParams& params) const {
  std::string reason;
  const ReductionParams* p = asReductionParams(params, &reason);
  if (p == nullptr) return reason;
  const PersistentBufferAnalysis a = analyzeNormalization(segment, info);
  if (auto r = rejectCommonNormalizationParams(segment, info, a, *p)) return r;
  const int64_t v = p->vectorizationFactor;
  const int64_t length = a.extents.reductionExtent;
  const bool columns = !a.pattern->columnReductions.empty();
  if (p->persistentStorage == PersistentStorage::Reload && !p->projectPersistentBuffers) {
    // Without projection only buffers that are inputs themselves are read again.
    for (const PersistentBuffer& b : a.info.buffers) {
      if (segment.isInput(b.tv)) continue;
      return "persistent_storage reload reads the segment's inputs again each pass and "
             "computes the buffers from them, but project_persistent_buffers is not set and " +
             b.tv->name() + " is no input";
    }
  }
  if (p->gridDimY != 1) {
    // Each row split over grid_dim_y blocks of one thread-block cluster
    // (rejectLaunchShape checks the device has clusters of that size).
    const std::string split = "grid_dim_y " + std::to_string(p->gridDimY) + " splits each row";
    if (!p->clusterReduction) {
      return split +
             " over blocks, which an inner persistent kernel does only in a "
             "thread-block cluster, but cluster_reduction is not set";
    }
    if (columns) {
      return split + ", but column sum " + a.pattern->columnReductions.front().output->name() +
             " needs whole rows in a block";
    }
    const std::vector<RowGather> gathers = findRowGathers(segment, *a.pattern).gathers;
    if (!gathers.empty()) {
      return split + ", but row gather " + gathers.front().output->name() +
             " takes its element from the one thread holding it";
    }
  }
  if (columns) {
    if (auto grid = rejectCombinedGrid(a, *p, *info.device)) return grid;
  }
  const bool shifted = shiftsRows(*p) && length % v != 0;
  const int64_t rowCover = p->blockDimX * p->persistentBatchSize * v * p->gridDimY;
  const int64_t needed = rowChunks(length, v, shifted) * v;
  if (rowCover < needed) {
    const bool split = p->gridDimY > 1;
    return "block_dim_x * persistent_batch_size * vectorization_factor" +
           std::string(split ? " * grid_dim_y" : "") + " = " + std::to_string(p->blockDimX) +
           " * " + std::to_string(p->persistentBatchSize) + " * " + std::to_string(v) +
           (split ? " * " + std::to_string(p->gridDimY) : std::string()) + " = " +
           std::to_string(rowCover) + " does not cover " +
           (shifted
                ? "the " + std::to_string(needed) + " elements of whole aligned chunks in a row of "
                : std::string("a row of ")) +
           std::to_string(length) + " elements";
  }
  const int64_t extra = shiftedRowExtraElements(v);
  if (shifted && p->blockDimX < extra) {
    return "vectorization_factor " + std::to_string(v) + " does not divide the row length " +
           std::to_string(a.extents.reductionExtent) + ": each row's up to " +
           std::to_string(extra) +
           " elements outside its aligned chunks take a thread each, but "
           "block_dim_x is " +
           std::to_string(p->blockDimX);
  }
  const int64_t rows = p->gridDimX * p->blockDimY;
  if (!columns && rows < a.extents.iterationExtent) {
    return "grid_dim_x * block_dim_y = " + std::to_string(rows) + " covers only " +
           std::to_string(rows) + " of the " + std::to_string(a.extents.iterationExtent) + " rows";
  }
  // A block keeps the elements its threads cover (a row split over a
  // cluster: the block's share of it).
  const int64_t covered = std::min(length, rowCover / p->gridDimY);
  const int64_t rowBytes = ceilDiv(a.sizes.bytesPerRow(p->projectPersistentBuffers) * covered,
                                   std::max<int64_t>(1, length));
  const int64_t bytes = rowBytes * p->blockDimY;
  const int64_t capacity = a.budget.bytesOf(p->persistentStorage);
  if (bytes > capacity) {
    return "persistent_storage " + std::string(toString(p->persistentStorage)) + " holds " +
           std::to_string(capacity) + " bytes per block, but " + std::to_string(p->blockDimY) +
           " row(s) of " + std::to_string(rowBytes) + " bytes" +
           (p->gridDimY > 1
                ? " (a block's share of a row split over " + std::to_string(p->gridDimY) + ")"
                : std::string()) +
           (p->projectPersistentBuffers ? " (projected)" : "") + " need " + std::to_string(bytes);
  }
  return std::nullopt;
}

report::Json InnerPersistentScheduler::properties(const ir::Fusion& segment,
                                                  const SegmentRuntimeInfo& info) const {
  report::Json json = normalizationProperties(segment, info);
  if (info.device == nullptr || info.evaluator == nullptr) return json;
  // Why the heuristic's rows are (not) shifted, and in which chunks.
  const PersistentBufferAnalysis a = analyzeNormalization(segment, info);
  const BufferChoice buffers = chooseBuffers(a);
  std::string why;
  (void)chooseChunkWidth(segment, a, buffers.projected,
                         buffers.storage == PersistentStorage::Registers, &why);
  if (!why.empty()) json.set("shifted_rows_choice", why);
  const ReductionParams p = std::get<ReductionParams>(computeHeuristics(segment, info));
  if (p.gridDimY > 1) {
    json.set("row_split_choice",
             "a row kept whole would leave more than " + std::to_string(kSplitRowAboveChunks) +
                 " chunks a thread in registers: each row is split over a cluster of " +
                 std::to_string(p.gridDimY) + " blocks of " + std::to_string(p.blockDimX) +
                 " threads, " + std::to_string(p.persistentBatchSize) + " chunks of " +
                 std::to_string(p.vectorizationFactor) +
                 " a thread, combined through distributed shared memory");
  }
  if (a.pattern && !a.pattern->columnReductions.empty()) {
    // The combined kernel: which sums it adds over the rows, and its grid.
    report::Json sums = report::Json::array();
    for (const ReductionInfo& c : a.pattern->columnReductions) sums.push(c.output->name());
    json.set("column_sums", sums);
    const int64_t threads = p.blockDimX * p.blockDimY;
    json.set("column_sums_choice",
             "each block adds its rows' columns in registers; the grid of " +
                 std::to_string(p.gridDimX) + " blocks (" +
                 std::to_string(ceilDiv(p.gridDimX, static_cast<int64_t>(info.device->smCount))) +
                 " an SM, resident at once) meets at a grid barrier, then adds the blocks' "
                 "partials column by column; rows kept in " +
                 std::string(toString(p.persistentStorage)) +
                 (p.persistentStorage == PersistentStorage::SharedMemory
                      ? " (in registers they would leave fewer than " +
                            std::to_string(kCombinedMinResidentThreads) + " threads an SM)"
                      : "") +
                 ", " + std::to_string(threads) + " threads a block");
  }
  return json;
}

}  // namespace fuserlab::scheduler
