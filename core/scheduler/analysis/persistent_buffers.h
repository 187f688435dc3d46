// Persistent buffers: the tensors a normalization kernel keeps resident, one
// reduction row at a time, between a reduction and the exprs after it that
// read them again. As in nvFuser's scheduler_utils::persistentBuffers, a
// buffer is a tensor that feeds a reduction and is also read, by a different
// expr, after that reduction (by something that combines it with the
// reduction's broadcast result): softmax's input of max, layer norm's upcast
// input of var_mean.
//
// A buffer can be *projected* when it is recomputed, after the reduction,
// from inputs of the segment through cheap ops (elementwise, cast, copy,
// broadcast, expand, permute, squeeze) and per-row reduction results (which a
// kernel keeps in a register anyway): then the kernel keeps those inputs
// instead. That is what makes a bf16 input, upcast to float, cost 2 bytes
// per element rather than 4 (seed 000).
//
// Sizes are bytes per reduction row: the elements of a buffer along the
// reduced axes times its element size. The budget is what the device gives
// one block: a share of its registers, or its opt-in shared memory.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! A tensor that must stay resident across a reduction.
struct PersistentBuffer {
  const ir::TensorView* tv = nullptr;
  //! The reduction it is kept across (its first output).
  const ir::TensorView* reduction = nullptr;
  //! The output of the first expr after the reduction that reads it.
  const ir::TensorView* usedAfterBy = nullptr;
  //! Per axis of `tv` (non-reduction): whether it runs along the reduced
  //! axes; empty when an op between it and the reduction does not keep axes
  //! apart (its size is then the reduction extent).
  std::vector<bool> rowAxes;
  //! Whether it can be recomputed from the segment's inputs (see above).
  bool projectable = false;
  //! The segment inputs it is recomputed from, in input order.
  std::vector<const ir::TensorView*> projectedTo;
  //! Whether recomputing it from those inputs evaluates a transcendental
  //! (exp, log, tanh, erf, a trigonometric op, pow...): tens of instructions
  //! per element, where keeping the buffer costs only registers.
  bool recomputesTranscendental = false;
  //! Why it cannot be projected ("T0 is an input of the segment", "T5 is
  //! computed by reshape"); empty when it can.
  std::string notProjectableReason;
};

//! A segment input that projected buffers are recomputed from.
struct ProjectionInput {
  const ir::TensorView* tv = nullptr;
  std::vector<bool> rowAxes;  //!< as PersistentBuffer::rowAxes
};

//! What the IR alone says (compile time).
struct PersistentBufferInfo {
  //! Each tensor once, in topological order of their definitions.
  std::vector<PersistentBuffer> buffers;
  //! The distinct inputs of the projectable buffers, in input order.
  std::vector<ProjectionInput> projectionInputs;
  //! A tensor after a reduction that combines its result, broadcast back
  //! along the reduced axes, with full rows (a normalization); nullptr if
  //! none. With no buffer this still needs more than a reduction kernel.
  const ir::TensorView* fullRowAfterReduction = nullptr;
  const ir::TensorView* fullRowReduction = nullptr;  //!< the reduction it uses
  //! Why a reduction result is broadcast along other axes than the reduced
  //! ones (not a normalization); empty if it is not.
  std::string nonNormalizationBroadcast;

  bool canProject() const;
  //! Whether any projectable buffer recomputesTranscendental.
  bool projectionRecomputesTranscendental() const;
};

//! The persistent buffers of `segment`, whose reductions follow `pattern`.
PersistentBufferInfo findPersistentBuffers(const ir::Fusion& segment,
                                           const ReductionPattern& pattern);

//! Bytes per reduction row at run time.
struct PersistentBufferSizes {
  std::vector<int64_t> bufferBytes;  //!< parallel to info.buffers
  std::vector<int64_t> inputBytes;   //!< parallel to info.projectionInputs
  //! Every buffer at its own dtype.
  int64_t persistentBufferBytes = 0;
  //! Projectable buffers replaced by their inputs, each input counted once;
  //! the others at their own size.
  int64_t projectedPersistentBufferBytes = 0;
  //! Projection is possible and keeps fewer bytes.
  bool projectPersistentBuffers = false;

  //! The bytes a kernel keeps per row, with or without projection.
  int64_t bytesPerRow(bool project) const {
    return project ? projectedPersistentBufferBytes : persistentBufferBytes;
  }
};
PersistentBufferSizes persistentBufferSizes(const PersistentBufferInfo& info,
                                            const ReductionExtents& extents,
                                            const ir::ExpressionEvaluator& evaluator);

//! Bytes of one block's storage the heuristics fill with persistent buffers.
struct PersistentBufferBudget {
  //! Half of a block's register file (registersPerBlock * 4 bytes / 2), as
  //! nvFuser's scheduler_utils::register_file_size: the other half holds
  //! indices, partial reductions and the recomputed temporaries.
  int64_t registerBytes = 0;
  //! The opt-in shared memory per block less the block reduction's
  //! broadcast workspace (one float per thread of the largest block).
  int64_t sharedMemoryBytes = 0;
  int64_t sharedMemoryOptinBytes = 0;  //!< the device's figure, for messages
  int64_t sharedMemoryReserveBytes = 0;
  int registersPerBlock = 0;
  std::string deviceKey;

  //! The larger of the two: the most any persistent kernel will keep.
  int64_t budgetBytes() const {
    return registerBytes > sharedMemoryBytes ? registerBytes : sharedMemoryBytes;
  }
  //! Registers when `bytes` fit them, else shared memory when they fit it.
  std::optional<PersistentStorage> storageFor(int64_t bytes) const;
  //! What `storage` holds a block; reading the inputs again holds no limit.
  int64_t bytesOf(PersistentStorage storage) const {
    if (storage == PersistentStorage::Reload) return std::numeric_limits<int64_t>::max();
    return storage == PersistentStorage::Registers ? registerBytes : sharedMemoryBytes;
  }
  //! "the register budget on h100 is 131072 bytes per block (half of its
  //! 65536 registers) and the shared memory budget 228352 bytes (...)".
  std::string describe() const;
};
PersistentBufferBudget persistentBufferBudget(const DeviceSpec& device);

//! The whole analysis of a segment at its run-time sizes, for the
//! persistent schedulers and the report.
struct PersistentBufferAnalysis {
  //! Non-empty when the segment has no reduction pattern (then nothing else
  //! is filled in).
  std::string reason;
  std::optional<ReductionPattern> pattern;
  ReductionExtents extents;
  PersistentBufferInfo info;
  PersistentBufferSizes sizes;
  PersistentBufferBudget budget;
  VectorizeLimit vectorize;

  //! The buffers and their bytes, for messages: "262144 bytes per row (T2:
  //! float, 262144; projected to T0: 131072)".
  std::string describeSizes() const;
  //! persistent_buffer_bytes, projected_persistent_buffer_bytes,
  //! project_persistent_buffers, persistent_buffer_budget_bytes,
  //! max_allowed_vectorize_factor, persistent_buffers, reduction_extent,
  //! iteration_extent and the figures behind them.
  report::Json toJson() const;
};
PersistentBufferAnalysis analyzePersistentBuffers(const ir::Fusion& segment,
                                                  const SegmentRuntimeInfo& info);

}  // namespace fuserlab::scheduler
