// The reduction emitter: a reduction segment (scheduler::ReductionScheduler)
// as one CUDA kernel, obeying every field of its ReductionParams.
//
// Inner reductions (fastestDimReduction): a block of blockDimX x blockDimY
// threads takes blockDimY * unrollFactorIteration rows at a time (grid x
// walks the row groups in strides); along a row each thread takes chunks of
// vectorizationFactor elements, chunk c + u * blockDimX for
// u < unrollFactorReduction loaded before any is computed, then the row is
// reduced across threadIdx.x (warp butterflies, one shared memory round
// across warps).
//
// Outer reductions: the kept innermost axis is vectorized and spread over
// threadIdx.x (coalesced: the block is launched as blockDimY x blockDimX,
// i.e. threadIdx.x walks the params' iteration threads and threadIdx.y the
// reduction threads); each thread keeps unrollFactorIteration chunks of
// columns and walks the reduction axis with stride blockDimX, unrolled by
// unrollFactorReduction; columns are then reduced across threadIdx.y.
//
// With crossGridReduction the reduction axis is split over gridDimY blocks;
// each writes its partial results to the zero-filled workspace, and the last
// block of a row (column) group to arrive (a semaphore in the workspace)
// combines them in block order, so results do not depend on arrival order,
// and finishes the rows: the ops after the reduction and the outputs.
//
// Welford is one-pass: an inner reduction keeps each thread's chunk (its
// unrolled vector loads of a row) in registers and folds it into the
// thread's accumulator with one Chan combine (the chunk's mean from its sum,
// then its squared deviations from that mean: no division per element);
// without unrolling or vectorization, and along outer reductions, it is
// fl::welford_update per element. Threads and blocks combine with Chan's
// formula. Sums, products, max and min accumulate in the reference's dtype
// (float for half/bfloat16/float, double, int64 wrapping) with NaN
// propagating through max and min. Ops before and after the reductions have
// the CPU reference's semantics (ExpressionEmitter), with results rounded to
// half/bfloat16 where the reference rounds them.
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of reduction `segment` with `params` at the sizes of `info`.
//! UserError for ops the kernel cannot compute or params it cannot follow.
GeneratedKernel emitReductionKernel(const ir::Fusion& segment,
                                    const scheduler::ReductionParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name);

}  // namespace fuserlab::codegen
