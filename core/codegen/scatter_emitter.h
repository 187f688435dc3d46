// The indexed-write kernel: a segment holding one scatter or
// index_put_accumulate (core/scheduler/pointwise/scatter_segment.h), which
// the pointwise scheduler takes. One kernel in phases over a grid-stride
// loop, separated by a grid barrier (every block resident: at most two
// blocks an SM, 64 registers a thread):
//   1. the tensor written into is copied to the output;
//   2. scatter: each position of the index writes src there (or the scalar
//      src) at the index's value along `dim`; index_put_accumulate: each
//      element of value is atomically added to row index[i] of the output
//      (a negative index counts from the end, as the reference's does).
// index_put_accumulate of Float, Double, Int32 or Int adds into the output
// directly; of Half, BFloat16 or Bool it adds into a workspace in the
// reference's compute dtype (float, int64), which a third phase rounds to the
// output once, as the reference rounds. Atomic float sums vary in their last
// bits with the order of the adds; a scatter whose index repeats a position
// writes one of the values (torch leaves that undefined; the reference takes
// the last). An index outside its axis writes nothing (the reference raises).
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of an indexed-write segment; params as scatter_segment.h
//! describes (only block_dim_x and use_int32_indexing mean something to it).
GeneratedKernel emitIndexedWriteKernel(const ir::Fusion& segment,
                                       const scheduler::PointwiseParams& params,
                                       const scheduler::SegmentRuntimeInfo& info,
                                       std::string_view name);

}  // namespace fuserlab::codegen
