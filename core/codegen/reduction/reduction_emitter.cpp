#include "core/codegen/reduction/reduction_emitter.h"

#include <algorithm>

#include "core/codegen/reduction/reduction_emitter_common.h"
#include "core/codegen/reduction/reduction_emitter_welford.h"
#include "core/ir/error.h"
#include "core/scheduler/reduction/launch_shape.h"

namespace fuserlab::codegen {
namespace {

using scheduler::ceilDiv;

// Shared memory a column reduction may take per round; more values per
// thread are reduced in several rounds.
constexpr int64_t kColumnReductionBytes = 16 * 1024;

struct Shape {
  bool inner = true;
  int64_t threadsX = 1;  // launched blockDim.x
  int64_t threadsY = 1;  // launched blockDim.y
  int64_t unrollIteration = 1;
  int64_t unrollReduction = 1;
  int64_t gridX = 1;
  int64_t gridY = 1;
  int64_t vectorize = 1;
  int64_t slots = 1;              // per-row values per thread
  int64_t groups = 1;             // row (column) groups the grid walks
  int64_t columnGroupValues = 1;  // values per column-reduction round
};

class ReductionEmitter {
 public:
  ReductionEmitter(const ir::Fusion& segment, const scheduler::ReductionParams& params,
                   const scheduler::SegmentRuntimeInfo& info,
                   const scheduler::ReductionPattern& pattern)
      : params_(params),
        smCount_(info.device != nullptr ? info.device->smCount : 0),
        registersPerSm_(info.device != nullptr ? info.device->registersPerSm : 65536),
        b_(segment, params, info, pattern, false, {}) {
    const RowLayout& layout = b_.layout();
    FL_CHECK(!params.persistentKernel,
             "code generation: a reduction segment got persistent params "
             "(persistent_kernel is set)");
    FL_CHECK(params.fastestDimReduction == layout.inner,
             "code generation: fastest_dim_reduction is ",
             params.fastestDimReduction ? "true" : "false", " but the segment reduces its ",
             layout.inner ? "innermost" : "outer", " axes");
    FL_CHECK((params.gridDimY > 1) == params.crossGridReduction, "code generation: grid_dim_y ",
             params.gridDimY, " and cross_grid_reduction ",
             params.crossGridReduction ? "true" : "false", " disagree");
    FL_CHECK(!params.clusterReduction || (!layout.inner && params.crossGridReduction),
             "code generation: cluster_reduction combines the split of an "
             "outer reduction only");
    for (const ReductionStep& step : b_.plan().steps) {
      FL_CHECK(step.phase == 0, "code generation: reduction ", step.expr->output(0)->name(),
               " reads the result of another reduction of the segment; a "
               "reduction kernel makes one pass (a persistent scheduler "
               "keeps the rows for a second one)");
    }
    FL_CHECK(b_.plan().phaseCount == 1,
             "code generation: an output reads "
             "full rows after a reduction, which a reduction kernel cannot "
             "write (a persistent scheduler can)");
    s_.inner = layout.inner;
    s_.vectorize = params.vectorizationFactor;
    s_.unrollIteration = params.unrollFactorIteration;
    s_.unrollReduction = params.unrollFactorReduction;
    s_.gridX = params.gridDimX;
    s_.gridY = params.gridDimY;
    if (s_.inner) {
      s_.threadsX = params.blockDimX;
      s_.threadsY = params.blockDimY;
      s_.slots = s_.unrollIteration;
      s_.groups = ceilDiv(layout.rows, s_.threadsY * s_.unrollIteration);
    } else {
      s_.threadsX = params.blockDimY;
      s_.threadsY = params.blockDimX;
      s_.slots = s_.unrollIteration * s_.vectorize;
      s_.groups = ceilDiv(layout.rows / s_.vectorize, s_.threadsX * s_.unrollIteration);
    }
    s_.groups = std::max<int64_t>(s_.groups, 1);
    FL_CHECK(!params.clusterReduction || s_.groups <= s_.gridX,
             "code generation: cluster_reduction with ", s_.groups, " column groups on ", s_.gridX,
             " blocks along x; each block must have one group");
    if (params.clusterReduction) asyncBytes_ = asyncCombineBytes();
  }

  GeneratedKernel emit(std::string_view name) {
    const RowLayout& layout = b_.layout();
    const int64_t smem = reductionSmemBytes();
    b_.line(2, "typedef " + std::string(b_.interface().indexType()) + " index_t;");
    b_.line(2, "extern __shared__ __align__(16) unsigned char fl_smem[];");
    const std::string V = std::to_string(s_.vectorize);
    b_.line(2, "// " + std::string(s_.inner ? "Inner" : "Outer") + " reduction of " +
                   std::to_string(layout.rows) + " rows of " + std::to_string(layout.rowLength) +
                   " elements, in chunks of " + V + ".");
    int64_t workspace = 0;
    if (params_.clusterReduction) {
      declareClusterBuffers();
      b_.line(2, "__shared__ __align__(8) unsigned long long fl_cluster_bar;");
      b_.line(2, "fl::red::rank0_mbarrier_init(&fl_cluster_bar);");
    } else if (s_.gridY > 1) {
      workspace = declareWorkspace();
    }
    const std::string groupLoop = "for (index_t group = blockIdx.x; group < " + literal(s_.groups) +
                                  "; group += gridDim.x) {";
    b_.line(2, groupLoop);
    if (s_.inner) {
      emitInnerBody(4);
    } else {
      emitOuterBody(4);
    }
    b_.line(2, "}");
    LaunchConfig launch;
    launch.block = {s_.threadsX, s_.threadsY, 1};
    launch.grid = {s_.gridX, s_.gridY, 1};
    launch.dynamicSharedMemoryBytes = smem;
    // A cluster split sizes its grid to be resident at once (one wave of
    // clusters), and saying so to ptxas (the blocks per SM that takes, as
    // the launch bounds' second argument) also keeps it from issuing the
    // unrolled loads one at a time: with __launch_bounds__(256) alone, the
    // 16 x 16-thread col_sum kernel waited on each load before the next
    // (38 registers, 33.6 us on an H100; with (256, 2), 62 registers and the
    // four loads issued together, 27.7; docs/performance.md).
    int64_t minBlocksPerSm = 0;
    if (params_.clusterReduction) {
      launch.cluster = {1, s_.gridY, 1};
      minBlocksPerSm = ceilDiv(s_.gridX * s_.gridY, std::max(1, smCount_));
    } else if (!s_.inner && s_.gridY > 1 && smCount_ > 0) {
      // An outer workspace split is sized to one wave as well (the
      // heuristic rounds its row split down to fit), so ptxas is held to
      // the registers that keep it resident: without the bound, outer
      // var_mean f32 [16384, 1024] (then a workspace split) took 72
      // registers for its 8 blocks of 128 threads per SM, so only 7 fit and
      // the last blocks ran in a second wave (docs/performance.md); the
      // outer_reduction example 9.26 -> 8.72 us. Only where that leaves ptxas at
      // least 64 registers a thread: a bigger grid (a tuner's or a
      // database's params) gets no bound rather than spills.
      const int64_t perSm = ceilDiv(s_.gridX * s_.gridY, smCount_);
      if (perSm > 1 && perSm * s_.threadsX * s_.threadsY * 64 <= registersPerSm_) {
        minBlocksPerSm = perSm;
      }
    }
    GeneratedKernel kernel =
        b_.finish(name, "reduction", launch, workspace, workspace > 0, minBlocksPerSm);
    // Its only counters are arrive_last's, which the last block resets.
    kernel.zeroWorkspaceEachLaunch = false;
    return kernel;
  }

 private:
  // Bytes the block and grid reductions need in shared memory.
  int64_t reductionSmemBytes() {
    int64_t bytes = 0;
    for (const ReductionStep& step : b_.plan().steps) {
      const int64_t each = accumulatorBytes(step);
      int64_t entries = 0;
      if (s_.inner) {
        entries = rowAllreduceEntries(s_.threadsX, s_.threadsY);
      } else {
        const int64_t partials = s_.threadsY / colLanesPerWarp(s_.threadsX, s_.threadsY);
        s_.columnGroupValues = std::clamp<int64_t>(
            kColumnReductionBytes / std::max<int64_t>(1, partials * s_.threadsX * each), 1,
            s_.slots);
        entries = colAllreduceEntries(s_.threadsX, s_.threadsY, s_.columnGroupValues);
      }
      bytes = std::max(bytes, entries * each);
    }
    return bytes;
  }

  // Partial results per (row, grid block) and one semaphore per group.
  int64_t declareWorkspace() {
    const RowLayout& layout = b_.layout();
    int64_t offset = 0;
    b_.line(2, "unsigned char* ws = reinterpret_cast<unsigned char*>(workspace);");
    for (const ReductionStep& step : b_.plan().steps) {
      const std::string type = b_.accumulatorType(step);
      b_.line(2, type + "* " + partials(step) + " = reinterpret_cast<" + type + "*>(ws + " +
                     literal(offset) + ");");
      offset += layout.rows * s_.gridY * accumulatorBytes(step);
      offset = (offset + 15) / 16 * 16;
    }
    b_.line(2, "unsigned* semaphores = reinterpret_cast<unsigned*>(ws + " + literal(offset) + ");");
    b_.line(2, "__shared__ bool fl_last;");
    offset += s_.groups * 4;
    return (offset + 15) / 16 * 16;
  }

  // Cluster reductions: the partials of every block of the cluster, as rank
  // 0 receives them ([rank][column thread][slot], so a thread's slots go in
  // 16-byte pieces; the other ranks' copies go unused), in static shared
  // memory apart from fl_smem.
  void declareClusterBuffers() {
    const std::string values = std::to_string(s_.gridY * s_.slots * s_.threadsX);
    for (const ReductionStep& step : b_.plan().steps) {
      b_.line(2, "__shared__ __align__(16) " + b_.accumulatorType(step) + " " + partials(step) +
                     "[" + values + "];");
    }
  }

  std::string partials(const ReductionStep& step) const { return b_.accumulator(step) + "_part"; }

  std::string smemOf(const ReductionStep& step) const {
    return "reinterpret_cast<" + b_.accumulatorType(step) + "*>(fl_smem)";
  }

  void emitInnerBody(int in) {
    const RowLayout& layout = b_.layout();
    const std::string UIT = std::to_string(s_.unrollIteration);
    const std::string UR = std::to_string(s_.unrollReduction);
    const std::string BDX = std::to_string(s_.threadsX);
    const std::string BDY = std::to_string(s_.threadsY);
    const std::string V = std::to_string(s_.vectorize);
    const int64_t chunks = layout.rowLength / s_.vectorize;
    const int64_t perBlock = ceilDiv(chunks, s_.gridY);
    // As in the outer loop: no test where the row groups and the blocks'
    // chunk ranges tile the tensor exactly.
    const bool rowsExact = layout.rows % (s_.threadsY * s_.unrollIteration) == 0;
    const bool chunksExact =
        perBlock * s_.gridY == chunks && perBlock % (s_.threadsX * s_.unrollReduction) == 0;
    b_.line(in, "index_t row[" + UIT + "];");
    b_.line(in, "bool row_ok[" + UIT + "];");
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    b_.line(in + 2, "row[k] = (group * " + UIT + " + k) * " + BDY + " + (index_t)threadIdx.y;");
    b_.line(in + 2, rowsExact ? std::string("row_ok[k] = true;  // the row groups tile the rows")
                              : "row_ok[k] = row[k] < " + literal(layout.rows) + ";");
    b_.line(in, "}");
    b_.declareRowArrays(in, static_cast<int>(s_.slots));
    b_.declareAccumulators(in, static_cast<int>(s_.slots));
    const SlotContext slot{"k", "row[k]", "row_ok[k]", "threadIdx.x == 0"};
    emitRowStage(0, in, slot, UIT);

    // The row's chunks this block takes.
    b_.line(in,
            "const index_t c_begin = " +
                (s_.gridY > 1 ? "(index_t)blockIdx.y * " + literal(perBlock) : std::string("0")) +
                ";");
    b_.line(in, "const index_t c_end = " +
                    (s_.gridY > 1 ? "min(c_begin + " + literal(perBlock) + ", (index_t)" +
                                        literal(chunks) + ")"
                                  : literal(chunks)) +
                    ";");
    const bool welfordChunks = s_.unrollReduction * s_.vectorize > 1;
    // A thread's whole share of the row in one step of the chunk loop: its
    // Welford values stay in registers past the loop for two passes.
    const bool twoPass = welfordChunks && hasWelfordStep(b_) && s_.gridY == 1 &&
                         chunks * s_.vectorize == layout.rowLength &&
                         chunks <= s_.threadsX * s_.unrollReduction;
    if (twoPass) declareWelfordChunks(b_, in, UR, UIT, V);
    b_.line(in,
            "for (index_t c0 = c_begin + (index_t)threadIdx.x; c0 < c_end; "
            "c0 += " +
                BDX + " * " + UR + ") {");
    const int body = in + 2;
    b_.declareChunkLoads(0, body, "[" + UR + "][" + UIT + "]");
    if (welfordChunks && !twoPass) declareWelfordChunks(b_, body, UR, UIT, V);
    LaneContext ctx;
    ctx.phase = 0;
    if (welfordChunks) ctx.welfordChunk = "[u][k][v]";
    ctx.slot = "k";
    ctx.rowLane = "row[k]";
    ctx.rowChunk = "row[k]";
    ctx.elementChunk = "(c * " + V + ")";
    ctx.elementLane = "(c * " + V + " + v)";
    ctx.valid = "ok";
    ctx.lane = "v";
    ctx.loadSuffix = "[u][k]";
    const std::string ok = chunkInRange(rowsExact, "row_ok[k]", chunksExact, "c < c_end");
    openChunkLoops(body, UR, UIT, ok);
    b_.emitChunkLoads(body + 6, ctx);
    closeChunkLoops(body);
    openChunkLoops(body, UR, UIT, ok);
    emitLanes(body + 6, ctx);
    closeChunkLoops(body);
    if (welfordChunks && !twoPass) {
      foldInnerWelfordChunks(b_, body, UR, UIT, V, "row_ok[k] && c0 + u * " + BDX + " < c_end");
    }
    b_.line(in, "}");
    if (twoPass) {
      // The row is in registers whole (var_mean 8192x4096 f32 on an H100:
      // 48.0 -> 46.5 us, docs/performance.md).
      emitTwoPassWelford(b_, in, UR, UIT, V,
                         chunkInRange(rowsExact, "row_ok[k]", chunksExact,
                                      "(index_t)threadIdx.x + u * " + BDX + " < c_end"),
                         s_.threadsX, s_.threadsY);
    }

    // Across the block, then across the grid.
    for (const ReductionStep& step : b_.plan().steps) {
      if (twoPass && step.kind == ReductionStep::Kind::Welford) continue;  // done
      b_.line(in, "#pragma unroll");
      b_.line(in, "for (int k = 0; k < " + UIT + "; ++k) " + b_.accumulator(step) +
                      "[k] = fl::red::row_allreduce<" + BDX + ", " + BDY + ">(" +
                      b_.accumulator(step) + "[k], " + b_.combineFunctor(step) + ", " +
                      smemOf(step) + ");");
    }
    if (s_.gridY > 1) {
      const std::string GY = std::to_string(s_.gridY);
      b_.line(in, "if (threadIdx.x == 0) {");
      b_.line(in + 2, "#pragma unroll");
      b_.line(in + 2, "for (int k = 0; k < " + UIT + "; ++k) {");
      b_.line(in + 4, "if (!row_ok[k]) continue;");
      for (const ReductionStep& step : b_.plan().steps) {
        b_.line(in + 4, partials(step) + "[row[k] * " + GY +
                            " + blockIdx.y] = " + b_.accumulator(step) + "[k];");
      }
      b_.line(in + 2, "}");
      b_.line(in, "}");
      b_.line(in,
              "if (!fl::red::arrive_last(semaphores + group, " + GY + "u, &fl_last)) continue;");
      b_.line(in,
              "// The last block of the group combines the partials in "
              "block order.");
      for (const ReductionStep& step : b_.plan().steps) {
        const std::string acc = b_.accumulator(step);
        b_.line(in, "#pragma unroll");
        b_.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
        b_.line(in + 2, acc + "[k] = " + b_.identity(step) + ";");
        b_.line(in + 2, "if (row_ok[k]) {");
        b_.line(
            in + 4,
            "for (index_t i = threadIdx.x; i < " + GY + "; i += " + BDX + ") " + acc + "[k] = " +
                b_.combine(step, acc + "[k]",
                           "fl::red::load_cg(&" + partials(step) + "[row[k] * " + GY + " + i])") +
                ";");
        b_.line(in + 2, "}");
        b_.line(in + 2, acc + "[k] = fl::red::row_allreduce<" + BDX + ", " + BDY + ">(" + acc +
                            "[k], " + b_.combineFunctor(step) + ", " + smemOf(step) + ");");
        b_.line(in, "}");
      }
    }
    emitResults(in, UIT);
    emitRowStage(1, in, slot, UIT);
  }

  void emitOuterBody(int in) {
    const RowLayout& layout = b_.layout();
    const std::string UIT = std::to_string(s_.unrollIteration);
    const std::string UR = std::to_string(s_.unrollReduction);
    const std::string CX = std::to_string(s_.threadsX);
    const std::string RY = std::to_string(s_.threadsY);
    const std::string V = std::to_string(s_.vectorize);
    const std::string NS = std::to_string(s_.slots);
    const int64_t columnChunks = layout.rows / s_.vectorize;
    const int64_t perBlock = ceilDiv(layout.rowLength, s_.gridY);
    // Where the column groups and the blocks' row ranges tile the tensor
    // exactly, no chunk is out of range: the kernel tests nothing per chunk
    // (col_sum 8192x4096 on an H100: 28.0 -> 27.6 us, docs/performance.md).
    const bool columnsExact = columnChunks % (s_.threadsX * s_.unrollIteration) == 0;
    const bool rowsExact = perBlock * s_.gridY == layout.rowLength &&
                           perBlock % (s_.threadsY * s_.unrollReduction) == 0;
    b_.line(in, "index_t col[" + UIT + "];");
    b_.line(in, "bool col_ok[" + UIT + "];");
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    b_.line(in + 2,
            "const index_t cc = (group * " + UIT + " + k) * " + CX + " + (index_t)threadIdx.x;");
    b_.line(in + 2, columnsExact
                        ? std::string("col_ok[k] = true;  // the column groups tile the columns")
                        : "col_ok[k] = cc < " + literal(columnChunks) + ";");
    b_.line(in + 2, "col[k] = cc * " + V + ";");
    b_.line(in, "}");
    b_.declareRowArrays(in, static_cast<int>(s_.slots));
    b_.declareAccumulators(in, static_cast<int>(s_.slots));
    const SlotContext slot{"s", "(col[s / " + V + "] + s % " + V + ")", "col_ok[s / " + V + "]",
                           "threadIdx.y == 0"};
    emitRowStage(0, in, slot, NS);

    b_.line(in,
            "const index_t j_begin = " +
                (s_.gridY > 1 ? "(index_t)blockIdx.y * " + literal(perBlock) : std::string("0")) +
                ";");
    b_.line(in, "const index_t j_end = " +
                    (s_.gridY > 1 ? "min(j_begin + " + literal(perBlock) + ", (index_t)" +
                                        literal(layout.rowLength) + ")"
                                  : literal(layout.rowLength)) +
                    ";");
    // Welford steps keep each column's UR rows of the step and fold them
    // once (as the inner loop's chunks), not a welford_update per element;
    // where the rows tile every block's range, every thread folds chunks of
    // UR rows, as shifted sums with no division a step.
    const bool welfordChunks = s_.unrollReduction > 1 && hasWelfordStep(b_);
    const bool shiftedChunks = welfordChunks && rowsExact;
    if (shiftedChunks) declareShiftedChunks(b_, in, NS, UIT);
    b_.line(in,
            "for (index_t j0 = j_begin + (index_t)threadIdx.y; j0 < j_end; "
            "j0 += " +
                RY + " * " + UR + ") {");
    const int body = in + 2;
    b_.declareChunkLoads(0, body, "[" + UR + "][" + UIT + "]");
    if (welfordChunks) declareWelfordChunks(b_, body, UR, UIT, V);
    LaneContext ctx;
    ctx.phase = 0;
    if (welfordChunks) ctx.welfordChunk = "[u][k][v]";
    ctx.slot = "(k * " + V + " + v)";
    ctx.rowLane = "(col[k] + v)";
    ctx.rowChunk = "col[k]";
    ctx.elementChunk = "j";
    ctx.elementLane = "j";
    ctx.valid = "ok";
    ctx.lane = "v";
    ctx.loadSuffix = "[u][k]";
    const std::string ok = chunkInRange(columnsExact, "col_ok[k]", rowsExact, "j < j_end");
    openOuterChunkLoops(body, UR, UIT, RY, ok);
    b_.emitChunkLoads(body + 6, ctx);
    closeChunkLoops(body);
    openOuterChunkLoops(body, UR, UIT, RY, ok);
    emitLanes(body + 6, ctx);
    closeChunkLoops(body);
    if (welfordChunks) {
      foldOuterWelfordChunks(
          b_, body, UR, UIT, V,
          chunkInRange(columnsExact, "col_ok[k]", rowsExact, "j0 + u * " + RY + " < j_end"),
          shiftedChunks);
    }
    b_.line(in, "}");
    if (shiftedChunks) finishShiftedChunks(b_, in, UR, UIT, V);

    // Every store after the reduction is thread row 0's (the partials, the
    // results, the row stage's outputs). A cluster split's block reduction
    // leaves the sums there only (col_reduce: 1 us less on the suite's
    // col_sum). The workspace split keeps col_allreduce, whose vector
    // accesses serve its many short blocks better (col_sum [16384, 1024], 64
    // splits: 19.9 us against 21.5 with col_reduce; docs/performance.md).
    const std::string G = std::to_string(s_.columnGroupValues);
    const std::string blockReduce =
        params_.clusterReduction ? "fl::red::col_reduce<" : "fl::red::col_allreduce<";
    // The last col_reduce before the cluster barrier leaves out its closing
    // __syncthreads: every thread reaches the barrier before shared memory
    // is written again.
    const auto& steps = b_.plan().steps;
    // Welford steps reduce in two passes of plain sums (col_welford); where
    // the rows tile every block's range, every thread row counted the same
    // rows, and the pass over the counts is left out (EQUAL).
    for (size_t i = 0; i < steps.size(); ++i) {
      const ReductionStep& step = steps[i];
      const bool last = i + 1 == steps.size();
      const std::string noSync = params_.clusterReduction && last ? ", false" : "";
      if (step.kind == ReductionStep::Kind::Welford) {
        const std::string sync = noSync.empty() ? ", true" : noSync;
        b_.line(in, "fl::red::col_welford<" + CX + ", " + RY + ", " + NS + ", " + G + ", " + V +
                        (params_.clusterReduction ? ", false" : ", true") +
                        (rowsExact ? sync + ", true" : noSync) + ">(" + b_.accumulator(step) +
                        ", " + smemOf(step) + ");");
        continue;
      }
      b_.line(in, blockReduce + CX + ", " + RY + ", " + NS + ", " + G + noSync + ">(" +
                      b_.accumulator(step) + ", " + b_.combineFunctor(step) + ", " + smemOf(step) +
                      ");");
    }
    // Rank 0 of a cluster adds the blocks' partials with one thread per
    // (column, slot) where the block has the threads and no per-column value
    // from before the reduction is needed (those sit in each thread's own
    // slots): consecutive threads take consecutive columns, 8 adds and one
    // store each instead of thread row 0's 8 x 8 (col_sum 26.60 -> 26.48
    // us, H100). Otherwise thread row 0 adds every slot of its columns.
    const bool flatCombine =
        params_.clusterReduction && !b_.rowStageHasWork(0) && s_.slots <= s_.threadsY;
    // Where the rows tile every block's range, every block's partial counts
    // the same rows: the merges add means, not counts (welford_merge EQUAL).
    const std::string equalMerge = rowsExact ? ", true" : "";
    if (params_.clusterReduction) {
      emitClusterCombine(in, flatCombine, columnsExact ? 0 : columnChunks, equalMerge);
    } else if (s_.gridY > 1) {
      const std::string GY = std::to_string(s_.gridY);
      b_.line(in, "if (threadIdx.y == 0) {");
      b_.line(in + 2, "#pragma unroll");
      b_.line(in + 2, "for (int s = 0; s < " + NS + "; ++s) {");
      b_.line(in + 4, "if (!col_ok[s / " + V + "]) continue;");
      // Partials block-major: a warp writes (and the last block reads)
      // contiguous columns.
      const std::string cols = literal(layout.rows);
      for (const ReductionStep& step : b_.plan().steps) {
        b_.line(in + 4, partials(step) + "[(index_t)blockIdx.y * " + cols + " + col[s / " + V +
                            "] + s % " + V + "] = " + b_.accumulator(step) + "[s];");
      }
      b_.line(in + 2, "}");
      b_.line(in, "}");
      b_.line(in,
              "if (!fl::red::arrive_last(semaphores + group, " + GY + "u, &fl_last)) continue;");
      b_.line(in,
              "// The last block of the group combines the partials in "
              "block order.");
      for (const ReductionStep& step : b_.plan().steps) {
        const std::string acc = b_.accumulator(step);
        b_.line(in, "#pragma unroll");
        b_.line(in, "for (int s = 0; s < " + NS + "; ++s) {");
        b_.line(in + 2, acc + "[s] = " + b_.identity(step) + ";");
        b_.line(in + 2, "if (!col_ok[s / " + V + "]) continue;");
        if (step.kind == ReductionStep::Kind::Welford) {
          // Thread row y merges partials y, y + RY, ... (two passes), then
          // the rows' merges reduce as the blocks' did.
          b_.line(in + 2, acc + "[s] = fl::red::welford_merge<true" + equalMerge + ">(&" +
                              partials(step) + "[(index_t)threadIdx.y * " + cols + " + col[s / " +
                              V + "] + s % " + V + "], (int64_t)" + RY + " * " + cols + ", (" + GY +
                              " - (int)threadIdx.y + " + RY + " - 1) / " + RY + ");");
          b_.line(in, "}");
          b_.line(in, "fl::red::col_welford<" + CX + ", " + RY + ", " + NS + ", " + G + ", " + V +
                          ", true>(" + acc + ", " + smemOf(step) + ");");
          continue;
        }
        b_.line(
            in + 2,
            "for (index_t i = threadIdx.y; i < " + GY + "; i += " + RY + ") " + acc + "[s] = " +
                b_.combine(step, acc + "[s]",
                           "fl::red::load_cg(&" + partials(step) + "[i * " + literal(layout.rows) +
                               " + col[s / " + V + "] + s % " + V + "])") +
                ";");
        b_.line(in, "}");
        b_.line(in, "fl::red::col_allreduce<" + CX + ", " + RY + ", " + NS + ", " + G + ">(" + acc +
                        ", " + b_.combineFunctor(step) + ", " + smemOf(step) + ");");
      }
    }
    if (flatCombine) {
      const SlotContext one{"s", "fl_col", "fl_col_ok", "true"};
      emitResults(in, "1");
      emitRowStage(1, in, one, "1");
    } else {
      emitResults(in, NS);
      emitRowStage(1, in, slot, NS);
    }
  }

  // The blocks of a column group are one cluster (along y). Each block
  // stores its partials into the shared memory of the cluster's rank 0
  // (slot `rank`), and rank 0 combines them in rank order and writes the
  // results; the other blocks are done. The stores go by st.async, counted
  // on rank 0's mbarrier (emitAsyncPush): no closing cluster barrier, no
  // loads from another block's memory. Each block
  // has one column group (the params checks have the grid cover the
  // columns), so rank 0's slots are written once per launch.
  //! `flat`: rank 0's thread t < CX * slots adds slot t % slots of column
  //! thread t / slots into its accumulators' slot 0 and names that value's
  //! column fl_col (in range: fl_col_ok; `columnChunks` 0 where the column
  //! groups tile the columns). `equalMerge`: ", true" where every block's
  //! Welford partials count the same rows (welford_merge's EQUAL), else "".
  void emitClusterCombine(int in, bool flat, int64_t columnChunks, const std::string& equalMerge) {
    const std::string GY = std::to_string(s_.gridY);
    const std::string CX = std::to_string(s_.threadsX);
    const std::string values = std::to_string(s_.slots * s_.threadsX);
    const std::string NS = std::to_string(s_.slots);
    b_.line(in, "const unsigned fl_rank = fl::red::cluster_rank();");
    emitAsyncPush(in, values);
    if (flat) {
      const std::string V = std::to_string(s_.vectorize);
      const std::string UIT = std::to_string(s_.unrollIteration);
      b_.line(in, "// Rank 0: thread t adds slot t % " + NS + " of column thread t / " + NS +
                      " over blocks 0, 1, ... of the column group, in that order.");
      b_.line(in, "const int fl_t = (int)(threadIdx.y * " + CX + " + threadIdx.x);");
      b_.line(in, "if (fl_t >= " + std::to_string(s_.threadsX * s_.slots) + ") continue;");
      b_.line(in, "const int fl_s = fl_t % " + NS + ";");
      b_.line(in, "const int fl_x = fl_t / " + NS + ";");
      b_.line(in, "const index_t fl_cc = (group * " + UIT + " + fl_s / " + V + ") * " + CX +
                      " + fl_x;");
      b_.line(in, "const index_t fl_col = fl_cc * " + V + " + fl_s % " + V + ";");
      b_.line(in, columnChunks == 0
                      ? std::string("const bool fl_col_ok = true;")
                      : "const bool fl_col_ok = fl_cc < " + literal(columnChunks) + ";");
      for (const ReductionStep& step : b_.plan().steps) {
        const std::string acc = b_.accumulator(step);
        if (step.kind == ReductionStep::Kind::Welford) {
          b_.line(in, acc + "[0] = fl::red::welford_merge<false" + equalMerge + ">(&" +
                          partials(step) + "[fl_x * " + NS + " + fl_s], " + values + ", " + GY +
                          ");");
          continue;
        }
        b_.line(in, acc + "[0] = " + b_.identity(step) + ";");
        b_.line(in, "#pragma unroll");
        b_.line(in,
                "for (int i = 0; i < " + GY + "; ++i) " + acc + "[0] = " +
                    b_.combine(step, acc + "[0]",
                               partials(step) + "[i * " + values + " + fl_x * " + NS + " + fl_s]") +
                    ";");
      }
      return;
    }
    b_.line(in,
            "// Rank 0: the partials of blocks 0, 1, ... of the column group, "
            "in that order.");
    for (const ReductionStep& step : b_.plan().steps) {
      const std::string acc = b_.accumulator(step);
      b_.line(in, "#pragma unroll");
      b_.line(in, "for (int s = 0; s < " + NS + "; ++s) {");
      if (step.kind == ReductionStep::Kind::Welford) {
        b_.line(in + 2, acc + "[s] = fl::red::welford_merge<false" + equalMerge + ">(&" +
                            partials(step) + "[threadIdx.x * " + NS + " + s], " + values + ", " +
                            GY + ");");
        b_.line(in, "}");
        continue;
      }
      b_.line(in + 2, acc + "[s] = " + b_.identity(step) + ";");
      b_.line(in + 2, "#pragma unroll");
      b_.line(in + 2, "for (int i = 0; i < " + GY + "; ++i) " + acc + "[s] = " +
                          b_.combine(step, acc + "[s]",
                                     partials(step) + "[i * " + values + " + threadIdx.x * " + NS +
                                         " + s]") +
                          ";");
      b_.line(in, "}");
    }
  }

  // The combine's push without a closing cluster barrier:
  // once the barrier that published rank 0's mbarrier has completed, thread
  // row 0 of every other rank stores its partials into rank 0's slot [its
  // rank] by st.async, a thread's values contiguous so that they go in
  // 16-byte pieces (each piece is a transaction on rank 0's mbarrier: sent
  // a 32-bit word at a time, outer var_mean bf16 [16384, 2048]'s Welford
  // partials took 1.0 us more than with the cluster barrier, in 16-byte
  // pieces 0.66 us less), and the block is done; rank 0 stores its own into
  // slot 0, expects the others' bytes on its mbarrier, and every thread of
  // it waits there (the flat combine reads slots row 0 stored, hence the
  // block barrier first). The suite's col_sum, H100: 26.59 -> 26.22 us
  // between the events (docs/performance.md).
  void emitAsyncPush(int in, const std::string& values) {
    const std::string NS = std::to_string(s_.slots);
    b_.line(in, "fl::red::cluster_wait();");
    b_.line(in, "if (fl_rank != 0u) {");
    b_.line(in + 2, "if (threadIdx.y == 0) {");
    for (const ReductionStep& step : b_.plan().steps) {
      b_.line(in + 4, "fl::red::store_async_rank0(&" + partials(step) + "[fl_rank * " + values +
                          " + threadIdx.x * " + NS + "], " + b_.accumulator(step) +
                          ", &fl_cluster_bar);");
    }
    b_.line(in + 2, "}");
    b_.line(in + 2, "continue;");
    b_.line(in, "}");
    b_.line(in, "if (threadIdx.y == 0) {");
    b_.line(in + 2, "#pragma unroll");
    b_.line(in + 2, "for (int s = 0; s < " + NS + "; ++s) {");
    for (const ReductionStep& step : b_.plan().steps) {
      b_.line(in + 4,
              partials(step) + "[threadIdx.x * " + NS + " + s] = " + b_.accumulator(step) + "[s];");
    }
    b_.line(in + 2, "}");
    b_.line(in + 2, "if (threadIdx.x == 0) fl::red::rank0_expect(&fl_cluster_bar, " +
                        std::to_string(asyncBytes_) + "u);");
    b_.line(in, "}");
    b_.line(in, "__syncthreads();");
    b_.line(in, "fl::red::rank0_wait(&fl_cluster_bar);");
  }

  // Whether chunk (u, k) is in range: the tests of the two axes whose
  // tiling is not exact, "true" where both are.
  static std::string chunkInRange(bool exactA, const std::string& testA, bool exactB,
                                  const std::string& testB) {
    if (exactA && exactB) return "true";
    if (exactA) return testB;
    if (exactB) return testA;
    return testA + " && " + testB;
  }

  // `ok`: whether chunk (u, k) is in range, as an expression.
  void openChunkLoops(int in, const std::string& UR, const std::string& UIT,
                      const std::string& ok) {
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int u = 0; u < " + UR + "; ++u) {");
    b_.line(in + 2, "const index_t c = c0 + u * " + std::to_string(s_.threadsX) + ";");
    b_.line(in + 2, "#pragma unroll");
    b_.line(in + 2, "for (int k = 0; k < " + UIT + "; ++k) {");
    b_.line(in + 4, "const bool ok = " + ok + ";");
    b_.line(in + 4, "{");
  }

  // `ok`: whether chunk (u, k) is in range, as an expression.
  void openOuterChunkLoops(int in, const std::string& UR, const std::string& UIT,
                           const std::string& RY, const std::string& ok) {
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int u = 0; u < " + UR + "; ++u) {");
    b_.line(in + 2, "const index_t j = j0 + u * " + RY + ";");
    b_.line(in + 2, "#pragma unroll");
    b_.line(in + 2, "for (int k = 0; k < " + UIT + "; ++k) {");
    b_.line(in + 4, "const bool ok = " + ok + ";");
    b_.line(in + 4, "{");
  }

  void closeChunkLoops(int in) {
    b_.line(in + 4, "}");
    b_.line(in + 2, "}");
    b_.line(in, "}");
  }

  // The lanes of one chunk (inside the chunk loops): elements, then stores.
  void emitLanes(int in, const LaneContext& ctx) {
    const std::string V = std::to_string(s_.vectorize);
    b_.declareOutputLanes(0, in);
    b_.declareChunkValues(0, in);
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int v = 0; v < " + V + "; ++v) {");
    b_.emitElement(in + 2, ctx);
    b_.line(in, "}");
    b_.foldChunkValues(in, ctx);
    b_.emitOutputStores(in, ctx);
  }

  void emitRowStage(int stage, int in, const SlotContext& slot, const std::string& count) {
    if (!b_.rowStageHasWork(stage)) return;
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int " + slot.slot + " = 0; " + slot.slot + " < " + count + "; ++" +
                    slot.slot + ") {");
    b_.emitRowStage(stage, in + 2, slot);
    b_.line(in, "}");
  }

  void emitResults(int in, const std::string& count) {
    b_.line(in, "#pragma unroll");
    b_.line(in, "for (int s = 0; s < " + count + "; ++s) {");
    for (const ReductionStep& step : b_.plan().steps) {
      b_.emitStepResults(step, in + 2, "s", b_.accumulator(step) + "[s]");
    }
    b_.line(in, "}");
  }

  // The bytes the other ranks of a cluster send rank 0 by st.async (every
  // step's partials, CX x slots values each; emitAsyncPush): whole 32-bit
  // words (the accumulators are float, double, int64, or Welford or LogSumExp structs of
  // them), fewer than an mbarrier's transaction count holds (2^20 - 1;
  // rank 0's shared memory holds them all, so far less).
  int64_t asyncCombineBytes() const {
    int64_t perThread = 0;
    for (const ReductionStep& step : b_.plan().steps) {
      const int64_t bytes = accumulatorBytes(step);
      FL_ASSERT(bytes % 4 == 0, "a cluster combine's partials go by st.async in 32-bit words; ",
                step.name, "'s accumulator has ", bytes, " bytes");
      perThread += bytes * s_.slots;
    }
    const int64_t total = (s_.gridY - 1) * s_.threadsX * perThread;
    FL_ASSERT(total < (int64_t{1} << 20), "a cluster combine sends rank 0 ", total,
              " bytes, more than its mbarrier counts");
    return total;
  }

  const scheduler::ReductionParams& params_;
  //! Bytes rank 0 of a cluster combine receives by st.async
  //! (asyncCombineBytes; 0 without clusters).
  int64_t asyncBytes_ = 0;
  int smCount_ = 0;  //!< the device's SMs (0: unknown)
  int registersPerSm_ = 65536;
  ReductionKernelBuilder b_;
  Shape s_;
};

}  // namespace

GeneratedKernel emitReductionKernel(const ir::Fusion& segment,
                                    const scheduler::ReductionParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name) {
  const scheduler::ReductionPatternResult pattern = scheduler::analyzeReductionPattern(segment);
  FL_CHECK(pattern.pattern.has_value(), "code generation: ", pattern.reason);
  const auto columns = scheduler::rejectColumnReductions(*pattern.pattern, "a reduction kernel");
  FL_CHECK(!columns.has_value(), "code generation: ", columns.value_or(""));
  ReductionEmitter emitter(segment, params, info, *pattern.pattern);
  return emitter.emit(name);
}

}  // namespace fuserlab::codegen
