// ReductionKernelBuilder: what the reduction and persistent emitters share.
// It holds a segment's RowLayout and ReductionPlan, the kernel interface and
// an ExpressionEmitter (indexed mode, for iota and friends) whose leaves it provides, and emits
// the pieces every reduction-family kernel is made of:
//   - per-row registers: arrays over the thread's "slots" (the rows, or for
//     outer reductions the columns, a thread handles): per-row inputs
//     (`pr_T1`), per-row values (`pr_T9`) and reduction results (`res_T4`);
//   - accumulators per step and slot (`acc_T4`), their identity, combine
//     functor and the conversion of the reduced value to the output dtype;
//   - chunk loads (`T0_ld`: an fl::Array of `vectorize` elements, filled
//     by one vector access, one element or element by element as the
//     layout says), the computation of one element with its accumulation,
//     its persistent-storage write and its output lane (`T21_st`), and the
//     chunk's output stores;
//   - row stages: per-row values computed between phases and the per-row
//     outputs written by the thread that leads the row.
// The loops around these pieces (which thread takes which chunk, unrolling,
// block and grid reductions) are each emitter's own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel.h"
#include "core/codegen/kernel_interface.h"
#include "core/codegen/reduction/reduction_emitter_layout.h"
#include "core/codegen/reduction/reduction_emitter_plan.h"
#include "core/ir/fusion.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! Block and grid reduction helpers (namespace fl::red) emitted into each
//! reduction-family kernel after the device helper header.
std::string_view reductionDeviceHelpers();
//! The running log-sum-exp (fl::LogSumExp, fl::red::LogSumExpOp), emitted
//! before reductionDeviceHelpers into kernels with a LogSumExp step.
std::string_view logSumExpDeviceHelpers();
//! Whether `step` is a ReductionOpType::LogSumExp reduction.
bool isLogSumExp(const ReductionStep& step);

//! Host-side twins of the fl::red helpers' shared memory needs, in entries.
int64_t rowAllreduceEntries(int64_t bx, int64_t by);
int64_t colLanesPerWarp(int64_t cx, int64_t ry);
int64_t colAllreduceEntries(int64_t cx, int64_t ry, int64_t group);
//! Bytes of one accumulator of `step` (fl::Welford<T> is {T, T, int64_t}).
int64_t accumulatorBytes(const ReductionStep& step);
//! `value` as a C++ literal of index_t's range ("123", "5000000000ll").
std::string literal(int64_t value);

//! Where one element of a phase is: C++ expressions of the enclosing loops.
struct LaneContext {
  int phase = 0;
  std::string slot;          //!< index into per-row arrays ("k", "k * 4 + v")
  std::string rowLane;       //!< r of this element
  std::string rowChunk;      //!< r at the chunk's first element
  std::string elementLane;   //!< j of this element
  std::string elementChunk;  //!< j at the chunk's first element
  std::string valid;         //!< whether the chunk lies inside the tensors
  std::string lane;          //!< the lane variable ("v")
  std::string loadSuffix;    //!< subscripts of hoisted chunk loads ("[u][k]")
  //! Persistent storage: the chunk's subscript of register arrays ("[b]"),
  //! or the index of its first element in shared memory.
  std::string storageChunk;
  //! Shared-memory storage: elements between a chunk's lanes ("128": lane v
  //! of a thread's chunk at storageChunk + v * 128, so a warp's threads
  //! touch consecutive elements); empty: the lanes are consecutive.
  std::string storageLaneStride;
  //! One-pass Welford steps: the element's subscripts in the chunk buffer
  //! (`wf_T4[u][k][v]`) the emitter folds after the chunk; empty: one
  //! fl::welford_update per element.
  std::string welfordChunk;
  //! Column sums (ReductionPlan::columnSteps): the element's subscripts in
  //! the thread's column accumulators ("[b][v]"); empty where the kernel
  //! has none.
  std::string columnSlot;
};

//! Where one slot of a row stage is.
struct SlotContext {
  std::string slot;      //!< index into per-row arrays
  std::string rowIndex;  //!< r of the slot
  std::string valid;     //!< the slot's row exists
  std::string leader;    //!< this thread writes the row's per-row outputs
};

class ReductionKernelBuilder {
 public:
  ReductionKernelBuilder(const ir::Fusion& segment, const scheduler::ReductionParams& params,
                         const scheduler::SegmentRuntimeInfo& info,
                         const scheduler::ReductionPattern& pattern, bool persistent,
                         const std::vector<const ir::TensorView*>& storage);

  const RowLayout& layout() const { return layout_; }
  const ReductionPlan& plan() const { return plan_; }
  const scheduler::ReductionParams& params() const { return params_; }
  const KernelInterface& interface() const { return interface_; }
  int64_t vectorize() const { return layout_.vectorize; }
  //! Elements per chunk of the loads, lanes and stores the phase methods
  //! emit: vectorize(), or 1 while an element pass is written (a shifted
  //! row's head and tail elements, RowLayout::shiftedRows).
  int64_t laneWidth() const { return elementPass_ ? 1 : vectorize(); }
  //! Writes element-by-element passes (true) or chunk passes (false).
  void setElementPass(bool on) { elementPass_ = on; }

  //! The kernel body being written.
  void line(int indent, const std::string& text);
  void append(const std::string& text) { body_ += text; }

  // --- names ----------------------------------------------------------------
  std::string perRowArray(const ir::TensorView* tv) const;
  std::string accumulator(const ReductionStep& step) const;
  std::string loadName(const ir::TensorView* tv) const;
  //! The output lanes of output parameter `out` ("T21_st").
  std::string storeName(const ReductionPlan::Output& out) const;
  std::string storageName(const ir::TensorView* tv) const;
  //! The C++ element / value type of `tv`.
  std::string elementOf(const ir::TensorView* tv) const;

  // --- steps ----------------------------------------------------------------
  //! "float", "fl::Welford<float>", ...
  std::string accumulatorType(const ReductionStep& step) const;
  std::string identity(const ReductionStep& step) const;
  //! The combine functor for the fl::red helpers: "fl::SumOp<float>()".
  std::string combineFunctor(const ReductionStep& step) const;
  //! `a` combined with `b` as an expression.
  std::string combine(const ReductionStep& step, const std::string& a, const std::string& b) const;
  //! Whether this thread owns a row gather's element, per slot ("own_T14").
  std::string gatherOwner(const GatherStep& gather) const;
  //! The row's gathered column, per slot ("gcol_T14").
  std::string gatherColumn(const GatherStep& gather) const;
  //! The lane of the current chunk holding that column, or -1 ("glane_T14",
  //! set by emitGatherOwners).
  std::string gatherLane(const GatherStep& gather) const;
  //! The chunk buffer of a one-pass Welford step ("wf_T4").
  std::string welfordChunkName(const ReductionStep& step) const;
  //! The chunk's values of a LogSumExp step ("lsx_T4"), folded once a chunk.
  std::string logSumExpChunkName(const ReductionStep& step) const;
  //! The thread's accumulators of column sum `step` ("col_T24"), one per
  //! element of its chunks: `float col_T24[batch][vectorize]`.
  std::string columnAccumulator(const ReductionStep& step) const;
  //! The finished column sum of `step` at the column being written
  //! ("cres_T24"), in its output's dtype.
  std::string columnResult(const ReductionStep& step) const;
  //! Declares columnResult(step) from the combined sum `sum` (in
  //! step.compute).
  void declareColumnResult(const ReductionStep& step, int indent, const std::string& sum);
  //! After every row: computes and writes each per-column output at element
  //! index `element` where `condition` holds, from the columnResult values
  //! declared before.
  void emitColumnOutputs(int indent, const std::string& element, const std::string& condition);
  //! Sets the result arrays of `step`'s outputs at `slot` from the reduced
  //! accumulator expression `reduced`.
  void emitStepResults(const ReductionStep& step, int indent, const std::string& slot,
                       const std::string& reduced);

  // --- declarations -----------------------------------------------------------
  //! Per-row arrays over `slots` slots.
  void declareRowArrays(int indent, int slots);
  //! Accumulators of every step, over `slots` slots, at their identity.
  void declareAccumulators(int indent, int slots);

  // --- row stages -------------------------------------------------------------
  //! Per-row work before phase `stage` (after the reductions of the phase
  //! before): stage 0 loads the per-row inputs; each stage computes the
  //! per-row values available in it and writes the per-row outputs
  //! available in it. The caller opened the slot loop.
  void emitRowStage(int stage, int indent, const SlotContext& slot);
  //! Whether a row stage has anything to do.
  bool rowStageHasWork(int stage) const;

  // --- phases -----------------------------------------------------------------
  //! The tensor inputs phase `phase` reads from global memory.
  std::vector<const ir::TensorView*> globalLoads(int phase) const;
  //! Declares `T_ld<declSuffix>` for each global load of the phase.
  void declareChunkLoads(int phase, int indent, const std::string& declSuffix);
  //! Loads each global load's chunk into `T_ld<ctx.loadSuffix>` (when
  //! ctx.valid), and writes stored inputs to persistent storage.
  void emitChunkLoads(int indent, const LaneContext& ctx);
  //! Declares the output lanes (`T_st`) of the phase's per-element outputs.
  void declareOutputLanes(int phase, int indent);
  //! Before a chunk's lane loop: the buffers of the phase's LogSumExp steps
  //! that fold a chunk at a time (foldsLogSumExpChunks).
  void declareChunkValues(int phase, int indent);
  //! After the lane loop: each such step folds the chunk's values into its
  //! accumulator at ctx.slot (one max, one rescale, an exp a value).
  void foldChunkValues(int indent, const LaneContext& ctx);
  //! Whether LogSumExp steps fold whole chunks: inner reductions, whose
  //! lanes are one row's, with more than one lane.
  bool foldsLogSumExpChunks() const;
  //! One element (inside the lane loop): its values, accumulation into the
  //! phase's steps at ctx.slot, storage writes, output lanes.
  void emitElement(int indent, const LaneContext& ctx);
  //! Inside the lane loop: keeps `value`, the gather's source element, as
  //! the row's gathered value where its column is the row's index.
  void emitGatherMatch(const GatherStep& gather, int indent, const LaneContext& ctx,
                       const std::string& value);
  //! Once per chunk (ctx.elementChunk, laneWidth() elements): whether the
  //! chunk holds each gather's column, into its owner flag.
  void emitGatherOwners(int indent, const LaneContext& ctx);
  //! Stores the output lanes of the chunk.
  void emitOutputStores(int indent, const LaneContext& ctx);
  //! Whether phase `phase` writes per-element outputs.
  bool phaseWritesOutputs(int phase) const;

  //! Bytes of persistent storage one block keeps (shared memory storage),
  //! and declares the storage (registers: per-thread arrays of `batch`
  //! chunks; shared memory: pointers into the dynamic shared memory at
  //! `offsetBytes`, row base `rowBase` elements per row).
  int64_t declareStorage(int indent, int64_t batch, int64_t offsetBytes, int64_t elementsPerBlock,
                         const std::string& rowBase);

  //! The finished kernel: comment, includes, helpers, signature with launch
  //! bounds (`minBlocksPerSm` > 0: as their second argument), body.
  GeneratedKernel finish(std::string_view name, std::string_view scheduler,
                         const LaunchConfig& launch, int64_t workspaceBytes, bool usesWorkspace,
                         int64_t minBlocksPerSm = 0) const;

 private:
  //! `tv`'s logical coordinates at row `row` and element `element`.
  ElementIndex indexFor(const ir::TensorView* tv, const std::string& row,
                        const std::string& element) const;
  std::string leafValue(const ir::TensorView* tv);
  bool isLeafNow(const ir::TensorView* tv) const;
  std::string storageLane(const ir::TensorView* tv, const LaneContext& ctx) const;
  //! The gather source's column at element index `element`, as index_t.
  std::string gatherCoordinate(const GatherStep& gather, const std::string& element) const;
  std::string offsetAt(const TensorAccess& access, const std::string& row,
                       const std::string& element) const;
  std::string dataOf(const ir::TensorView* tv, bool output) const;

  const ir::Fusion& segment_;
  const scheduler::ReductionParams& params_;
  RowLayout layout_;
  ReductionPlan plan_;
  KernelInterface interface_;
  ExpressionEmitter emitter_;
  std::string body_;

  // What the emitter's hooks answer for.
  enum class Mode : uint8_t { RowStage, Element, Column };
  Mode mode_ = Mode::RowStage;
  int stage_ = 0;
  const LaneContext* lane_ = nullptr;
  const SlotContext* slotContext_ = nullptr;
  bool elementPass_ = false;
};

}  // namespace fuserlab::codegen
