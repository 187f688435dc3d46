// The persistent emitter: a normalization segment (inner_persistent or
// outer_persistent) as one CUDA kernel that reads each row once and keeps
// it resident while it reduces, obeying its ReductionParams:
//   - persistentStorage: the kept tensors live in per-thread register arrays
//     (persistentBatchSize vectors of vectorizationFactor elements), or in
//     dynamic shared memory (inner: lane v of a thread's chunk b at
//     (b * V + v) * blockDimX + threadIdx.x, so a warp touches consecutive
//     elements);
//   - projectPersistentBuffers: keep the segment inputs the persistent
//     buffers are recomputed from (e.g. the bf16 input rather than its
//     float upcast, seed 000) and recompute the buffers after each
//     reduction; otherwise keep the buffers themselves;
//   - inner (fastestDimReduction): a block of blockDimX x blockDimY threads
//     holds blockDimY rows; thread x keeps chunks b * blockDimX + x for
//     b < persistentBatchSize (so blockDimX * persistentBatchSize *
//     vectorizationFactor must cover a row) and rows are reduced across
//     threadIdx.x;
//   - outer: the kept innermost axis is vectorized and spread over
//     threadIdx.x (the block is launched blockDimY x blockDimX so loads
//     coalesce); each thread keeps persistentBatchSize elements of its
//     column chunk, blockDimX apart, and columns are reduced across
//     threadIdx.y; with crossGridReduction gridDimY blocks share a column,
//     exchange partial results through the zero-filled workspace and wait
//     for each other at a grid barrier (all blocks must be resident, as the
//     outer persistent scheduler checks);
//   - the batch loop is fully unrolled, so the unroll factors have nothing
//     left to unroll;
//   - inner, with column sums (ReductionPattern::columnReductions: a norm
//     backward's dw and db beside dx): each thread adds its chunks'
//     elements into float accumulators over the rows the grid-strided loop
//     gives its block; then the block's sums (its thread rows combined in
//     shared memory) go to the workspace, the grid meets at one barrier
//     (every block resident: the launch bounds promise ceil(gridDimX /
//     SMs) blocks an SM), and each block adds a range of columns over the
//     blocks in block order and writes the outputs computed from them.
// The kernel makes one pass over the row per group of independent
// reductions (ReductionPlan), reading the kept tensors back from storage,
// and Welford is two passes (mean, then squared deviations), as the CPU
// reference computes it.
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of persistent `segment` with `params` at the sizes of `info`.
//! UserError for ops the kernel cannot compute or params it cannot follow
//! (a batch that does not cover the row).
GeneratedKernel emitPersistentKernel(const ir::Fusion& segment,
                                     const scheduler::ReductionParams& params,
                                     const scheduler::SegmentRuntimeInfo& info,
                                     std::string_view name);

}  // namespace fuserlab::codegen
