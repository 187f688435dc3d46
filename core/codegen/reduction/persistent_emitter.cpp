#include "core/codegen/reduction/persistent_emitter.h"

#include <algorithm>

#include "core/codegen/reduction/reduction_emitter_common.h"
#include "core/ir/error.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::codegen {
namespace {

using ir::TensorView;
using scheduler::ceilDiv;
using scheduler::PersistentStorage;

constexpr int64_t kColumnReductionBytes = 16 * 1024;
// Chunk loads a thread of a single-pass kernel issues before computing them.
constexpr int64_t kLoadGroup = 4;

// What a persistent kernel keeps: the buffers, or with projection the
// inputs the projectable ones are recomputed from; nothing where each pass
// reads its inputs again (PersistentStorage::Reload).
std::vector<const TensorView*> storageCandidates(const ir::Fusion& segment,
                                                 const scheduler::ReductionPattern& pattern,
                                                 const scheduler::ReductionParams& params) {
  if (params.persistentStorage == PersistentStorage::Reload) return {};
  const bool project = params.projectPersistentBuffers;
  const scheduler::PersistentBufferInfo buffers =
      scheduler::findPersistentBuffers(segment, pattern);
  std::vector<const TensorView*> out;
  auto add = [&](const TensorView* tv) {
    if (std::find(out.begin(), out.end(), tv) == out.end()) out.push_back(tv);
  };
  for (const scheduler::PersistentBuffer& b : buffers.buffers) {
    if (project && b.projectable) {
      for (const TensorView* input : b.projectedTo) add(input);
    } else {
      add(b.tv);
    }
  }
  return out;
}

class PersistentEmitter {
 public:
  PersistentEmitter(const ir::Fusion& segment, const scheduler::ReductionParams& params,
                    const scheduler::SegmentRuntimeInfo& info,
                    const scheduler::ReductionPattern& pattern)
      : params_(params),
        info_(info),
        b_(segment, params, info, pattern, true, storageCandidates(segment, pattern, params)) {
    const RowLayout& layout = b_.layout();
    FL_CHECK(params.persistentKernel,
             "code generation: a persistent segment got params without "
             "persistent_kernel");
    FL_CHECK(params.fastestDimReduction == layout.inner,
             "code generation: fastest_dim_reduction is ",
             params.fastestDimReduction ? "true" : "false", " but the segment reduces its ",
             layout.inner ? "innermost" : "outer", " axes");
    FL_CHECK((params.gridDimY > 1) == params.crossGridReduction, "code generation: grid_dim_y ",
             params.gridDimY, " and cross_grid_reduction ",
             params.crossGridReduction ? "true" : "false", " disagree");
    inner_ = layout.inner;
    batch_ = params.persistentBatchSize;
    vectorize_ = params.vectorizationFactor;
    // Without a device, the largest size any GPU starts (16).
    const int64_t clusterLimit = info.device != nullptr
                                     ? scheduler::maxClusterBlocks(*info.device)
                                     : int64_t{scheduler::kMaxNonPortableClusterBlocks};
    FL_CHECK(inner_ || params.persistentStorage != PersistentStorage::Reload,
             "code generation: persistent_storage reload reads an inner persistent kernel's "
             "rows again each pass; an outer one keeps its columns");
    if (inner_) {
      threadsX_ = params.blockDimX;
      threadsY_ = params.blockDimY;
      // A row split over grid_dim_y blocks combines in their cluster only.
      FL_CHECK(params.gridDimY == 1 || params.clusterReduction,
               "code generation: an inner persistent kernel splits a row over ", params.gridDimY,
               " blocks only in a thread-block cluster, but cluster_reduction is not set");
      FL_CHECK(!params.clusterReduction || (params.gridDimY > 1 && params.gridDimY <= clusterLimit),
               "code generation: cluster_reduction splits each row over 2 to ", clusterLimit,
               " blocks", info.device != nullptr ? " on " + info.device->name : std::string(),
               ", but grid_dim_y is ", params.gridDimY);
      FL_CHECK(params.gridDimY == 1 || b_.plan().gathers.empty(),
               "code generation: a row gather's element is held by one thread of one block, "
               "so rows with gathers are not split over a cluster (grid_dim_y ",
               params.gridDimY, ")");
      split_ = params.gridDimY;
      shifted_ = layout.shiftedRows;
      FL_CHECK(!shifted_ || threadsX_ >= scheduler::shiftedRowExtraElements(vectorize_),
               "code generation: a row of ", layout.rowLength, " elements in chunks of ",
               vectorize_, " leaves up to ", scheduler::shiftedRowExtraElements(vectorize_),
               " elements outside its aligned chunks, one per thread, but "
               "block_dim_x is ",
               threadsX_);
      // Shifted rows: the whole aligned chunks (the head and tail elements
      // take a thread each).
      FL_CHECK(threadsX_ * batch_ * split_ >=
                   scheduler::rowChunks(layout.rowLength, vectorize_, shifted_),
               "code generation: block_dim_x * persistent_batch_size * "
               "vectorization_factor * grid_dim_y = ",
               threadsX_ * batch_ * vectorize_ * split_, " does not cover ",
               shifted_ ? "the whole aligned chunks of " : "", "a row of ", layout.rowLength,
               " elements");
      groups_ = ceilDiv(layout.rows, threadsY_);
      // A block taking a second row would write exchange slots a block of
      // its cluster may still read for the first.
      FL_CHECK(split_ == 1 || params.gridDimX >= groups_,
               "code generation: rows split over a cluster take a block each (grid_dim_x ",
               params.gridDimX, " < ", groups_, ")");
      slots_ = 1;
      columns_ = !b_.plan().columnSteps.empty();
      FL_CHECK(!columns_ || split_ == 1, "code generation: column sum ",
               columns_ ? b_.plan().columnSteps.front().name : std::string(),
               " meets the grid at a barrier, so its rows are not split over a cluster "
               "(grid_dim_y ",
               split_, ")");
      FL_CHECK(!columns_ || !shifted_, "code generation: column sum ",
               columns_ ? b_.plan().columnSteps.front().name : std::string(),
               " needs each thread to keep the same columns in every row, but the rows of ",
               layout.rowLength, " elements are shifted (vectorization_factor ", vectorize_,
               " does not divide them)");
    } else {
      threadsX_ = params.blockDimY;
      threadsY_ = params.blockDimX;
      FL_CHECK(threadsY_ * batch_ * params.gridDimY >= layout.rowLength,
               "code generation: block_dim_x * persistent_batch_size * "
               "grid_dim_y = ",
               threadsY_ * batch_ * params.gridDimY, " does not cover the ", layout.rowLength,
               " elements each output element reduces");
      groups_ = ceilDiv(layout.rows / vectorize_, threadsX_);
      slots_ = vectorize_;
      FL_CHECK(params.gridDimY == 1 || params.gridDimX >= groups_,
               "code generation: a grid-persistent kernel needs a block per "
               "column group (grid_dim_x ",
               params.gridDimX, " < ", groups_, ")");
      FL_CHECK(!params.clusterReduction || (params.gridDimY > 1 && params.gridDimY <= clusterLimit),
               "code generation: cluster_reduction combines a column group's "
               "2 to ",
               clusterLimit, " blocks",
               info.device != nullptr ? " on " + info.device->name : std::string(),
               ", but grid_dim_y is ", params.gridDimY);
    }
    groups_ = std::max<int64_t>(groups_, 1);
  }

  GeneratedKernel emit(std::string_view name) {
    const RowLayout& layout = b_.layout();
    const std::string V = std::to_string(vectorize_);
    b_.line(2, "typedef " + std::string(b_.interface().indexType()) + " index_t;");
    b_.line(2, "extern __shared__ __align__(16) unsigned char fl_smem[];");
    b_.line(2, "// " + std::string(inner_ ? "Inner" : "Outer") +
                   " persistent kernel: " + std::to_string(layout.rows) + " rows of " +
                   std::to_string(layout.rowLength) + " elements, " +
                   (params_.persistentStorage == PersistentStorage::Registers ? "kept in registers"
                    : params_.persistentStorage == PersistentStorage::SharedMemory
                        ? "kept in shared memory"
                        : "read again each pass") +
                   " as " + std::to_string(batch_) + " chunks of " + V + " per thread" +
                   (inner_ && split_ > 1
                        ? ", each row split over a cluster of " + std::to_string(split_) + " blocks"
                        : std::string()) +
                   ".");
    const int64_t scratch = (std::max(reductionSmemBytes(), columnSmemBytes()) + 15) / 16 * 16;
    int64_t storageBytes = 0;
    if (inner_) {
      const int64_t rowCapacity = threadsX_ * batch_ * vectorize_;
      // Shifted rows keep a thread's head or tail element in one more chunk.
      storageBytes =
          b_.declareStorage(2, shifted_ ? batch_ + 1 : batch_, scratch, rowCapacity * threadsY_,
                            "threadIdx.y * " + literal(rowCapacity));
    } else {
      storageBytes =
          b_.declareStorage(2, batch_, scratch, batch_ * threadsY_ * threadsX_ * vectorize_, "");
    }
    if (params_.persistentStorage == PersistentStorage::Registers) {
      storageBytes = 0;
    }
    // A column group split over blocks combines in a thread-block cluster
    // (cluster_reduction: the exchange slots in shared memory after the
    // scratch and the storage) or through the workspace and grid barriers.
    int64_t workspace = 0;
    int64_t exchangeBytes = 0;
    if (columns_) {
      workspace = declareColumnWorkspace();
      declareColumnAccumulators(2);
    }
    if (params_.gridDimY > 1) {
      if (params_.clusterReduction) {
        exchangeBytes = declareClusterExchange(scratch + storageBytes);
      } else {
        workspace = declareWorkspace();
      }
    }
    b_.line(2, "for (index_t group = blockIdx.x; group < " + literal(groups_) +
                   "; group += gridDim.x) {");
    if (inner_) {
      emitInnerBody(4);
    } else {
      emitOuterBody(4);
    }
    b_.line(2, "}");
    if (columns_) emitColumnSums(2);
    LaunchConfig launch;
    launch.block = {threadsX_, threadsY_, 1};
    launch.grid = {params_.gridDimX, params_.gridDimY, 1};
    launch.dynamicSharedMemoryBytes = scratch + storageBytes + exchangeBytes;
    if (exchangeBytes > 0 && info_.device != nullptr) {
      const int64_t limit = std::max(info_.device->sharedMemoryPerBlockOptinBytes,
                                     info_.device->sharedMemoryPerBlockBytes);
      FL_CHECK(launch.dynamicSharedMemoryBytes <= limit, "code generation: the cluster exchange's ",
               exchangeBytes, " bytes of shared memory with the block's ", scratch + storageBytes,
               " come to more than the device's ", limit,
               " (cluster_reduction false combines through the workspace instead)");
    }
    if (params_.clusterReduction) launch.cluster = {1, params_.gridDimY, 1};
    // Column sums wait for every block at a grid barrier: the launch bounds
    // keep enough blocks of this kernel resident on each SM for the whole
    // grid (the inner persistent scheduler sizes the grid to that).
    const int64_t minBlocksPerSm =
        columns_ && info_.device != nullptr
            ? ceilDiv(params_.gridDimX, static_cast<int64_t>(info_.device->smCount))
            : 0;
    GeneratedKernel kernel = b_.finish(name, inner_ ? "inner_persistent" : "outer_persistent",
                                       launch, workspace, workspace > 0, minBlocksPerSm);
    // The grid syncs' counters set themselves back to zero at the end of
    // each column group (grid_sync_reset): the workspace is zeroed once,
    // when it is allocated, not by a memset before every launch.
    kernel.zeroWorkspaceEachLaunch = false;
    return kernel;
  }

 private:
  int64_t reductionSmemBytes() {
    int64_t bytes = 0;
    for (const ReductionStep& step : b_.plan().steps) {
      const int64_t each = accumulatorBytes(step);
      int64_t entries = 0;
      if (inner_) {
        entries = rowAllreduceEntries(threadsX_, threadsY_);
      } else {
        const int64_t partials = threadsY_ / colLanesPerWarp(threadsX_, threadsY_);
        columnGroupValues_ = std::clamp<int64_t>(
            kColumnReductionBytes / std::max<int64_t>(1, partials * threadsX_ * each), 1, slots_);
        entries = colAllreduceEntries(threadsX_, threadsY_, columnGroupValues_);
      }
      bytes = std::max(bytes, entries * each);
    }
    return bytes;
  }

  // Column sums: the partial sums of each block ([grid_dim_x][row length]
  // floats per sum), then the grid barrier's counters.
  int64_t declareColumnWorkspace() {
    const RowLayout& layout = b_.layout();
    int64_t offset = 0;
    b_.line(2, "unsigned char* ws = reinterpret_cast<unsigned char*>(workspace);");
    for (const ReductionStep& step : b_.plan().columnSteps) {
      const std::string type(valueType(step.compute));
      b_.line(2, type + "* " + b_.columnAccumulator(step) + "_part = reinterpret_cast<" + type +
                     "*>(ws + " + literal(offset) + ");");
      offset += params_.gridDimX * layout.rowLength * ir::sizeInBytes(step.compute);
      offset = (offset + 15) / 16 * 16;
    }
    b_.line(2, "unsigned* semaphores = reinterpret_cast<unsigned*>(ws + " + literal(offset) + ");");
    offset += 4;
    b_.line(2, "unsigned* exits = reinterpret_cast<unsigned*>(ws + " + literal(offset) + ");");
    offset += 4;
    return (offset + 15) / 16 * 16;
  }

  void declareColumnAccumulators(int in) {
    const std::string B = std::to_string(batch_);
    const std::string V = std::to_string(vectorize_);
    for (const ReductionStep& step : b_.plan().columnSteps) {
      const std::string acc = b_.columnAccumulator(step);
      b_.line(in, std::string(valueType(step.compute)) + " " + acc + "[" + B + "][" + V + "];");
      b_.line(in, "#pragma unroll");
      b_.line(in, "for (int b = 0; b < " + B + "; ++b) {");
      b_.line(in + 2, "#pragma unroll");
      b_.line(in + 2, "for (int v = 0; v < " + V + "; ++v) " + acc + "[b][v] = 0;");
      b_.line(in, "}");
    }
  }

  // Threads sharing a column after the rows, in the final combine: the
  // block's columns per round (a power of two, at least a 32-byte sector of
  // floats) and the threads that split each column's partials.
  int64_t columnsPerRound() const {
    const int64_t threads = threadsX_ * threadsY_;
    const int64_t perBlock = ceilDiv(b_.layout().rowLength, params_.gridDimX);
    int64_t c = 8;
    while (c < perBlock && c < threads) c *= 2;
    return std::min(c, threads);
  }

  int64_t columnSmemBytes() const {
    if (!columns_) return 0;
    int64_t bytes = 0;
    for (const ReductionStep& step : b_.plan().columnSteps) {
      bytes += threadsX_ * threadsY_ * ir::sizeInBytes(step.compute);
    }
    if (threadsY_ > 1) bytes = std::max(bytes, threadsX_ * threadsY_ * vectorize_ * 8);
    return bytes;
  }

  // After every row: each block's column sums (its thread rows combined in
  // shared memory) to the workspace; a grid barrier; then each block adds
  // the grid's partials of a range of columns, in block order, and writes
  // the per-column outputs.
  void emitColumnSums(int in) {
    const RowLayout& layout = b_.layout();
    const std::string BDX = std::to_string(threadsX_);
    const std::string V = std::to_string(vectorize_);
    const std::string B = std::to_string(batch_);
    const std::string L = literal(layout.rowLength);
    const std::string G = literal(params_.gridDimX);
    const int64_t chunks = layout.rowLength / vectorize_;
    const int64_t threads = threadsX_ * threadsY_;
    const auto& steps = b_.plan().columnSteps;
    b_.line(in, "// Column sums: this block's rows, then the grid's blocks in order.");
    b_.line(in, "{");
    in += 2;
    if (threadsY_ > 1) {
      for (const ReductionStep& step : steps) {
        const std::string acc = b_.columnAccumulator(step);
        const std::string type(valueType(step.compute));
        b_.line(in, type + "* " + acc + "_rows = reinterpret_cast<" + type + "*>(fl_smem);");
        b_.line(in, "#pragma unroll");
        b_.line(in, "for (int b = 0; b < " + B + "; ++b) {");
        b_.line(in + 2, "__syncthreads();");
        b_.line(in + 2, "#pragma unroll");
        b_.line(in + 2, "for (int v = 0; v < " + V + "; ++v) " + acc +
                            "_rows[((int)threadIdx.y * " + BDX + " + (int)threadIdx.x) * " + V +
                            " + v] = " + acc + "[b][v];");
        b_.line(in + 2, "__syncthreads();");
        b_.line(in + 2, "if (threadIdx.y == 0) {");
        b_.line(in + 4, "for (int y = 1; y < " + std::to_string(threadsY_) + "; ++y) {");
        b_.line(in + 6, "#pragma unroll");
        b_.line(in + 6, "for (int v = 0; v < " + V + "; ++v) " + acc + "[b][v] += " + acc +
                            "_rows[(y * " + BDX + " + (int)threadIdx.x) * " + V + " + v];");
        b_.line(in + 4, "}");
        b_.line(in + 2, "}");
        b_.line(in, "}");
      }
    }
    b_.line(in, "if (threadIdx.y == 0) {");
    b_.line(in + 2, "#pragma unroll");
    b_.line(in + 2, "for (int b = 0; b < " + B + "; ++b) {");
    b_.line(in + 4, "const index_t c = b * " + BDX + " + (index_t)threadIdx.x;");
    b_.line(in + 4, "if (c >= " + literal(chunks) + ") continue;");
    for (const ReductionStep& step : steps) {
      const std::string acc = b_.columnAccumulator(step);
      b_.line(in + 4, "#pragma unroll");
      b_.line(in + 4, "for (int v = 0; v < " + V + "; ++v) " + acc +
                          "_part[(index_t)blockIdx.x * " + L + " + c * " + V + " + v] = " + acc +
                          "[b][v];");
    }
    b_.line(in + 2, "}");
    b_.line(in, "}");
    b_.line(in, "fl::red::grid_sync(semaphores, " + G + "u, 1u);");
    const int64_t cpr = columnsPerRound();
    const int64_t lanes = threads / cpr;
    const std::string CPR = std::to_string(cpr);
    const std::string LANES = std::to_string(lanes);
    b_.line(in, "const int t = (int)threadIdx.y * " + BDX + " + (int)threadIdx.x;");
    b_.line(in, "const int cl = t % " + CPR + ";");
    b_.line(in, "const int lane = t / " + CPR + ";");
    b_.line(in, "for (index_t round = blockIdx.x; round < " +
                    literal(ceilDiv(layout.rowLength, cpr)) + "; round += gridDim.x) {");
    b_.line(in + 2, "const index_t j = round * " + CPR + " + cl;");
    b_.line(in + 2, "const bool j_ok = j < " + L + " && lane < " + LANES + ";");
    b_.line(in + 2, "__syncthreads();");
    int64_t offset = 0;
    for (const ReductionStep& step : steps) {
      const std::string acc = b_.columnAccumulator(step);
      const std::string type(valueType(step.compute));
      b_.line(in + 2, "{");
      b_.line(in + 4, type + " s = 0;");
      b_.line(in + 4, "if (j_ok) {");
      b_.line(in + 6, "#pragma unroll 4");
      b_.line(in + 6, "for (index_t p = lane; p < " + G + "; p += " + LANES +
                          ") s += fl::red::load_cg(&" + acc + "_part[p * " + L + " + j]);");
      b_.line(in + 4, "}");
      b_.line(in + 4, "reinterpret_cast<" + type + "*>(fl_smem + " + literal(offset) + ")[t] = s;");
      b_.line(in + 2, "}");
      offset += threads * ir::sizeInBytes(step.compute);
    }
    b_.line(in + 2, "__syncthreads();");
    b_.line(in + 2, "if (lane == 0 && j < " + L + ") {");
    offset = 0;
    for (const ReductionStep& step : steps) {
      const std::string type(valueType(step.compute));
      const std::string part = "reinterpret_cast<" + type + "*>(fl_smem + " + literal(offset) + ")";
      b_.line(in + 4, type + " " + b_.columnAccumulator(step) + "_sum = " + part + "[cl];");
      b_.line(in + 4, "for (int l = 1; l < " + LANES + "; ++l) " + b_.columnAccumulator(step) +
                          "_sum += " + part + "[l * " + CPR + " + cl];");
      b_.declareColumnResult(step, in + 4, b_.columnAccumulator(step) + "_sum");
      offset += threads * ir::sizeInBytes(step.compute);
    }
    b_.emitColumnOutputs(in + 4, "j", "true");
    b_.line(in + 2, "}");
    b_.line(in, "}");
    b_.line(in, "fl::red::grid_sync_reset(semaphores, exits, " + G + "u);");
    in -= 2;
    b_.line(in, "}");
  }

  int64_t declareWorkspace() {
    const RowLayout& layout = b_.layout();
    int64_t offset = 0;
    b_.line(2, "unsigned char* ws = reinterpret_cast<unsigned char*>(workspace);");
    for (const ReductionStep& step : b_.plan().steps) {
      const std::string type = b_.accumulatorType(step);
      b_.line(2, type + "* " + b_.accumulator(step) + "_part = reinterpret_cast<" + type +
                     "*>(ws + " + literal(offset) + ");");
      offset += layout.rows * params_.gridDimY * accumulatorBytes(step);
      offset = (offset + 15) / 16 * 16;
    }
    b_.line(2, "unsigned* semaphores = reinterpret_cast<unsigned*>(ws + " + literal(offset) + ");");
    offset += groups_ * 4;
    b_.line(2, "unsigned* exits = reinterpret_cast<unsigned*>(ws + " + literal(offset) + ");");
    offset += groups_ * 4;
    return (offset + 15) / 16 * 16;
  }

  // One exchange area per step (each step's cluster_allreduce has its own,
  // so no block writes slots another may still be reading): grid_dim_y
  // ranks x the block's columns x the slots, or for an inner kernel's rows
  // split over a cluster, grid_dim_y ranks x the block's rows.
  int64_t declareClusterExchange(int64_t start) {
    int64_t offset = (start + 15) / 16 * 16;
    for (const ReductionStep& step : b_.plan().steps) {
      const std::string type = b_.accumulatorType(step);
      b_.line(2, type + "* " + b_.accumulator(step) + "_xch = reinterpret_cast<" + type +
                     "*>(fl_smem + " + literal(offset) + ");");
      // An inner kernel's split exchanges one value a row of the block.
      const int64_t perRank = inner_ ? threadsY_ : threadsX_ * slots_;
      offset += params_.gridDimY * perRank * accumulatorBytes(step);
      offset = (offset + 15) / 16 * 16;
    }
    return offset - start;
  }

  std::string smemOf(const ReductionStep& step) const {
    return "reinterpret_cast<" + b_.accumulatorType(step) + "*>(fl_smem)";
  }

  void emitRowStage(int stage, int in, const SlotContext& slot) {
    if (!b_.rowStageHasWork(stage)) return;
    if (slots_ == 1) {
      b_.line(in, "{");
      b_.line(in + 2, "const int " + slot.slot + " = 0;");
    } else {
      b_.line(in, "#pragma unroll");
      b_.line(in, "for (int " + slot.slot + " = 0; " + slot.slot + " < " + std::to_string(slots_) +
                      "; ++" + slot.slot + ") {");
    }
    b_.emitRowStage(stage, in + 2, slot);
    b_.line(in, "}");
  }

  void emitResults(int phase, int in) {
    const auto steps = b_.plan().stepsIn(phase);
    if (steps.empty()) return;
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int s = 0; s < " + std::to_string(slots_) + "; ++s) {");
    for (const ReductionStep* step : steps) {
      b_.emitStepResults(*step, in + 2, "s", b_.accumulator(*step) + "[s]");
    }
    b_.line(in, "}");
  }

  // Chunks whose loads a single-pass kernel issues together before it
  // computes them: a kernel that keeps nothing resident (one phase; since
  // online_logsumexp, cross-entropy's statistics) would otherwise wait for
  // each chunk's load before the next, one load in flight a thread.
  int64_t loadGroup() const {
    if (b_.plan().phaseCount != 1 || !b_.plan().stored.empty()) return 1;
    return std::min<int64_t>(batch_, kLoadGroup);
  }

  // One pass over the thread's chunks: loads, elements, stores.
  void emitPhaseLoop(int phase, int in, LaneContext ctx, const std::string& chunkSetup) {
    if (b_.plan().phaseTargets(phase).empty()) return;
    ctx.phase = phase;
    if (loadGroup() > 1) return emitGroupedPhaseLoop(in, ctx, chunkSetup);
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int b = 0; b < " + std::to_string(batch_) + "; ++b) {");
    b_.append(chunkSetup);
    b_.declareChunkLoads(phase, in + 2, "");
    b_.emitChunkLoads(in + 2, ctx);
    emitChunkElements(in + 2, ctx);
    b_.line(in, "}");
  }

  // A loaded chunk: the gathers' lanes, its elements, its stores.
  void emitChunkElements(int in, const LaneContext& ctx) {
    b_.emitGatherOwners(in, ctx);
    b_.declareOutputLanes(ctx.phase, in);
    b_.declareChunkValues(ctx.phase, in);
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int v = 0; v < " + std::to_string(vectorize_) + "; ++v) {");
    b_.emitElement(in + 2, ctx);
    b_.line(in, "}");
    b_.foldChunkValues(in, ctx);
    b_.emitOutputStores(in, ctx);
  }

  // The pass in groups of loadGroup() chunks: the group's loads, then its
  // elements and stores. `chunkSetup` defines the chunk `b`'s index and
  // whether it is in range.
  void emitGroupedPhaseLoop(int in, LaneContext ctx, const std::string& chunkSetup) {
    const std::string G = std::to_string(loadGroup());
    const std::string batch = std::to_string(batch_);
    ctx.loadSuffix = "[g]";
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int b0 = 0; b0 < " + batch + "; b0 += " + G + ") {");
    b_.declareChunkLoads(ctx.phase, in + 2, "[" + G + "]");
    auto overGroup = [&](const auto& body) {
      b_.line(in + 2, "#pragma unroll");
      b_.line(in + 2, "for (int g = 0; g < " + G + "; ++g) {");
      b_.line(in + 4, "const int b = b0 + g;");
      b_.line(in + 4, "if (b < " + batch + ") {");
      b_.append(chunkSetup);
      body();
      b_.line(in + 4, "}");
      b_.line(in + 2, "}");
    };
    overGroup([&] { b_.emitChunkLoads(in + 6, ctx); });
    overGroup([&] { emitChunkElements(in + 6, ctx); });
    b_.line(in, "}");
  }

  std::string storageChunk(const std::string& smemIndex) const {
    return params_.persistentStorage == PersistentStorage::Registers ? "[b]" : smemIndex;
  }

  void emitInnerBody(int in) {
    const RowLayout& layout = b_.layout();
    const std::string BDX = std::to_string(threadsX_);
    const std::string BDY = std::to_string(threadsY_);
    const std::string V = std::to_string(vectorize_);
    const int64_t chunks = layout.rowLength / vectorize_;
    b_.line(in, "const index_t row = group * " + BDY + " + (index_t)threadIdx.y;");
    b_.line(in, "const bool row_ok = row < " + literal(layout.rows) + ";");
    if (shifted_) {
      const std::string L = literal(layout.rowLength);
      b_.line(in, "// The row's chunks start at its first element aligned to " + V +
                      " elements: head elements before it, whole chunks, "
                      "tail elements after them.");
      b_.line(in,
              "const int head = (int)((" + V + " - (row * " + L + ") % " + V + ") % " + V + ");");
      b_.line(in, "const index_t chunks = (" + L + " - head) / " + V + ";");
      b_.line(in, "const int extra = (int)(" + L + " - chunks * " + V + ");");
    }
    b_.declareRowArrays(in, 1);
    b_.declareAccumulators(in, 1);
    // A row split over a cluster: its rank 0 block writes the per-row outputs.
    const SlotContext slot{"k", "row", "row_ok",
                           split_ > 1 ? "threadIdx.x == 0 && blockIdx.y == 0" : "threadIdx.x == 0"};
    emitRowStage(0, in, slot);
    LaneContext ctx;
    ctx.slot = "0";
    ctx.rowLane = "row";
    ctx.rowChunk = "row";
    const std::string start = shifted_ ? "head + " : "";
    ctx.elementChunk = "(" + start + "c * " + V + ")";
    ctx.elementLane = "(" + start + "c * " + V + " + v)";
    ctx.valid = "ok";
    ctx.lane = "v";
    // Shared-memory storage keeps a thread's chunk b lane by lane a block
    // row apart (element (b, v) of thread x at (b * V + v) * block_dim_x +
    // x): a warp's threads read and write consecutive elements, without the
    // bank conflicts of chunks side by side (8 floats a thread apart: an
    // 8-way conflict at every element).
    ctx.storageChunk =
        storageChunk("b * " + literal(vectorize_ * threadsX_) + " + (index_t)threadIdx.x");
    if (params_.persistentStorage != PersistentStorage::Registers) ctx.storageLaneStride = BDX;
    if (columns_) ctx.columnSlot = "[b][v]";
    const std::string pad(static_cast<size_t>(in + 2), ' ');
    const bool full = !shifted_ && threadsX_ * batch_ * split_ == chunks;
    // A row split over a cluster: block y takes the row's y-th share of
    // block_dim_x * persistent_batch_size chunks.
    const std::string share =
        split_ > 1 ? "(index_t)blockIdx.y * " + literal(threadsX_ * batch_) + " + " : "";
    const std::string setup =
        pad + "const index_t c = " + share + "b * " + BDX + " + (index_t)threadIdx.x;\n" + pad +
        "const bool ok = row_ok" +
        (full ? std::string() : " && c < " + (shifted_ ? std::string("chunks") : literal(chunks))) +
        ";\n";
    for (int phase = 0; phase < b_.plan().phaseCount; ++phase) {
      emitPhaseLoop(phase, in, ctx, setup);
      if (shifted_) emitShiftedElements(phase, in, ctx);
      for (const ReductionStep* step : b_.plan().stepsIn(phase)) {
        const std::string acc = b_.accumulator(*step) + "[0]";
        b_.line(in, acc + " = fl::red::row_allreduce<" + BDX + ", " + BDY + ">(" + acc + ", " +
                        b_.combineFunctor(*step) + ", " + smemOf(*step) + ");");
        if (split_ > 1) {
          b_.line(in, acc + " = fl::red::cluster_row_allreduce<" + BDY + ", " +
                          std::to_string(split_) + ">(" + acc + ", " + b_.combineFunctor(*step) +
                          ", " + b_.accumulator(*step) + "_xch);");
        }
      }
      emitResults(phase, in);
      emitRowStage(phase + 1, in, slot);
    }
  }

  // A shifted row's head and tail elements, one per thread (threadIdx.x
  // below `extra`): the head's first, then the tail's. Kept in the storage's
  // last chunk. `chunks` is the chunk pass's context: the same row, slot and
  // names, another element and storage chunk.
  void emitShiftedElements(int phase, int in, const LaneContext& chunks) {
    if (b_.plan().phaseTargets(phase).empty()) return;
    LaneContext ctx = chunks;
    ctx.phase = phase;
    ctx.elementChunk = "jx";
    ctx.elementLane = "(jx + v)";
    ctx.storageChunk = "[" + std::to_string(batch_) + "]";
    b_.setElementPass(true);
    b_.line(in, "{");
    b_.line(in + 2, "const int e = (int)threadIdx.x;");
    // A row split over a cluster: its rank 0 block takes them.
    b_.line(in + 2, std::string("const bool ok = row_ok && e < extra") +
                        (split_ > 1 ? " && blockIdx.y == 0" : "") + ";");
    b_.line(in + 2,
            "const index_t jx = e < head ? (index_t)e : (index_t)e + "
            "chunks * " +
                std::to_string(vectorize_) + ";");
    b_.line(in + 2, "(void)jx;  // a pass that reads storage only needs no index");
    b_.declareChunkLoads(phase, in + 2, "");
    b_.emitChunkLoads(in + 2, ctx);
    b_.emitGatherOwners(in + 2, ctx);
    b_.declareOutputLanes(phase, in + 2);
    b_.line(in + 2, "{");
    b_.line(in + 4, "const int v = 0;");
    b_.emitElement(in + 4, ctx);
    b_.line(in + 2, "}");
    b_.emitOutputStores(in + 2, ctx);
    b_.line(in, "}");
    b_.setElementPass(false);
  }

  void emitOuterBody(int in) {
    const RowLayout& layout = b_.layout();
    const std::string CX = std::to_string(threadsX_);
    const std::string RY = std::to_string(threadsY_);
    const std::string V = std::to_string(vectorize_);
    const std::string NS = std::to_string(slots_);
    const std::string G = std::to_string(columnGroupValues_);
    const int64_t gridY = params_.gridDimY;
    const std::string GY = std::to_string(gridY);
    b_.line(in, "const index_t cc = group * " + CX + " + (index_t)threadIdx.x;");
    b_.line(in, "const bool col_ok = cc < " + literal(layout.rows / vectorize_) + ";");
    b_.line(in, "const index_t col = cc * " + V + ";");
    b_.declareRowArrays(in, static_cast<int>(slots_));
    b_.declareAccumulators(in, static_cast<int>(slots_));
    const SlotContext slot{"s", "(col + s)", "col_ok",
                           gridY > 1 ? "threadIdx.y == 0 && blockIdx.y == 0" : "threadIdx.y == 0"};
    emitRowStage(0, in, slot);
    LaneContext ctx;
    ctx.slot = "v";
    ctx.rowLane = "(col + v)";
    ctx.rowChunk = "col";
    ctx.elementChunk = "j";
    ctx.elementLane = "j";
    ctx.valid = "ok";
    ctx.lane = "v";
    ctx.storageChunk = storageChunk("((b * " + RY + " + (index_t)threadIdx.y) * " + CX +
                                    " + (index_t)threadIdx.x) * " + V);
    const std::string pad(static_cast<size_t>(in + 2), ' ');
    const bool full = threadsY_ * batch_ * gridY == layout.rowLength;
    const std::string setup =
        pad + "const index_t j = " +
        (gridY > 1 ? "(index_t)blockIdx.y * " + literal(threadsY_ * batch_) + " + "
                   : std::string()) +
        "b * " + RY + " + (index_t)threadIdx.y;\n" + pad + "const bool ok = col_ok" +
        (full ? std::string() : " && j < " + literal(layout.rowLength)) + ";\n";
    int round = 0;
    const bool cluster = gridY > 1 && params_.clusterReduction;
    for (int phase = 0; phase < b_.plan().phaseCount; ++phase) {
      emitPhaseLoop(phase, in, ctx, setup);
      const auto steps = b_.plan().stepsIn(phase);
      for (size_t i = 0; i < steps.size(); ++i) {
        const ReductionStep* step = steps[i];
        if (cluster) {
          // The block's partials end in thread row 0, which pushes them;
          // the last col_reduce leaves out its closing __syncthreads, as
          // the cluster barrier that follows orders its reads before any
          // later write of the scratch.
          const std::string sync = i + 1 == steps.size() ? "false" : "true";
          b_.line(in, "fl::red::col_reduce<" + CX + ", " + RY + ", " + NS + ", " + G + ", " + sync +
                          ">(" + b_.accumulator(*step) + ", " + b_.combineFunctor(*step) + ", " +
                          smemOf(*step) + ");");
          continue;
        }
        b_.line(in, "fl::red::col_allreduce<" + CX + ", " + RY + ", " + NS + ", " + G + ">(" +
                        b_.accumulator(*step) + ", " + b_.combineFunctor(*step) + ", " +
                        smemOf(*step) + ");");
      }
      if (cluster && !steps.empty()) {
        b_.line(in, "// Combine the column group's blocks (one cluster) in rank order.");
        for (const ReductionStep* step : steps) {
          const std::string acc = b_.accumulator(*step);
          b_.line(in, "fl::red::cluster_allreduce<" + CX + ", " + NS + ", " + GY + ">(" + acc +
                          ", " + b_.combineFunctor(*step) + ", " + acc + "_xch, col_ok);");
        }
      } else if (gridY > 1 && !steps.empty()) {
        ++round;
        b_.line(in,
                "// Exchange partials with the other blocks of the column "
                "group; combine them in block order.");
        b_.line(in, "if (threadIdx.y == 0 && col_ok) {");
        b_.line(in + 2, "#pragma unroll");
        b_.line(in + 2, "for (int s = 0; s < " + NS + "; ++s) {");
        for (const ReductionStep* step : steps) {
          b_.line(in + 4, b_.accumulator(*step) + "_part[(col + s) * " + GY +
                              " + blockIdx.y] = " + b_.accumulator(*step) + "[s];");
        }
        b_.line(in + 2, "}");
        b_.line(in, "}");
        b_.line(in, "fl::red::grid_sync(semaphores + group, " + GY + "u, " + std::to_string(round) +
                        "u);");
        for (const ReductionStep* step : steps) {
          const std::string acc = b_.accumulator(*step);
          b_.line(in, "#pragma unroll");
          b_.line(in, "for (int s = 0; s < " + NS + "; ++s) {");
          b_.line(in + 2, acc + "[s] = " + b_.identity(*step) + ";");
          b_.line(in + 2, "if (!col_ok) continue;");
          b_.line(
              in + 2,
              "for (index_t i = threadIdx.y; i < " + GY + "; i += " + RY + ") " + acc + "[s] = " +
                  b_.combine(*step, acc + "[s]",
                             "fl::red::load_cg(&" + acc + "_part[(col + s) * " + GY + " + i])") +
                  ";");
          b_.line(in, "}");
          b_.line(in, "fl::red::col_allreduce<" + CX + ", " + RY + ", " + NS + ", " + G + ">(" +
                          acc + ", " + b_.combineFunctor(*step) + ", " + smemOf(*step) + ");");
        }
      }
      emitResults(phase, in);
      emitRowStage(phase + 1, in, slot);
    }
    if (round > 0) {
      b_.line(in, "fl::red::grid_sync_reset(semaphores + group, exits + group, " + GY + "u);");
    }
  }

  const scheduler::ReductionParams& params_;
  const scheduler::SegmentRuntimeInfo& info_;
  ReductionKernelBuilder b_;
  bool inner_ = true;
  bool shifted_ = false;  //!< RowLayout::shiftedRows
  bool columns_ = false;  //!< inner, with column sums (the combined kernel)
  int64_t batch_ = 1;
  int64_t vectorize_ = 1;
  int64_t threadsX_ = 1;
  int64_t threadsY_ = 1;
  int64_t split_ = 1;  //!< inner: the blocks (cluster ranks) each row is split over
  int64_t groups_ = 1;
  int64_t slots_ = 1;
  int64_t columnGroupValues_ = 1;
};

}  // namespace

GeneratedKernel emitPersistentKernel(const ir::Fusion& segment,
                                     const scheduler::ReductionParams& params,
                                     const scheduler::SegmentRuntimeInfo& info,
                                     std::string_view name) {
  const scheduler::ReductionPatternResult pattern = scheduler::analyzeReductionPattern(segment);
  FL_CHECK(pattern.pattern.has_value(), "code generation: ", pattern.reason);
  PersistentEmitter emitter(segment, params, info, *pattern.pattern);
  return emitter.emit(name);
}

}  // namespace fuserlab::codegen
