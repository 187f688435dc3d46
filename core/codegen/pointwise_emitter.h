// The pointwise emitter: a pointwise segment as a CUDA kernel that walks its
// reference tensor (the largest output, as the pointwise heuristic chose it)
// in allocation order, obeying every field of PointwiseParams:
//   - 1-D (breakPoint 0): the reference's elements flattened; each thread
//     takes `unrollFactorInner` chunks of `vectorizationFactor` elements,
//     chunk c of block b being (b * unroll + u) * threads + thread;
//   - 2-D: rows (the axes before the break point) on blockDim.y / grid y and
//     `unrollFactorOuter`, the inner axes on blockDim.x / grid x,
//     `unrollFactorInner` and the vector width; `flipGrid` swaps grid x and
//     y. Grids are walked in strides, so any grid (e.g. y clamped to 65535)
//     covers every element.
//   - Inputs and outputs whose innermost axis walks with the reference's
//     innermost axis (the vectorization analysis) move with 16-byte (or
//     narrower) vector loads and stores; tensors broadcast along it are read
//     element by element, once per chunk when they do not vary within it.
//     All loads of a thread's chunks are issued before any compute. A slice
//     of an input on the vector axis is a vector at a shifted offset, and a
//     pad or cat on it is decided once per vector, where its shifts and
//     bounds are multiples of the width (vector_lanes.h; those known only at
//     run time are checked with the other vector conditions); a load under
//     such a branch is issued with the others, under the branch's condition.
//   - A vectorized pass needs the innermost extent to be a multiple of the
//     width and each vectorized tensor to be aligned and unit-stride; the
//     kernel checks that once and otherwise runs an element-by-element pass
//     (same chunks, per-element tail predicates), so it is correct for any
//     sizes and strides it is launched with.
//   - Index arithmetic in int32_t when useInt32Indexing, else int64_t.
// Sizes and strides come from the fl::Tensor parameters at run time; the
// launch configuration is computed for the sizes in `info`.
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of pointwise `segment` with `params` at the sizes of `info`.
//! UserError for ops or output layouts the emitter cannot generate.
GeneratedKernel emitPointwiseKernel(const ir::Fusion& segment,
                                    const scheduler::PointwiseParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name);

}  // namespace fuserlab::codegen
