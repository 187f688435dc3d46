// The transpose emitter: a transpose segment as a tiled kernel, per
// TransposeParams. Tensors fall in two groups as the transpose scheduler
// found them: group 2 shares the reference's innermost axis A, group 1 has
// another innermost axis B. Each block takes tiles of tileSize1 (along B) by
// tileSize2 (along A) elements, the other axes of the reference walked tile
// by tile (grid-strided, so any grid covers them):
//   1. group-1 inputs are read along B (vectorizationFactor1 elements per
//      access) into shared memory;
//   2. the tile is computed along A (vectorizationFactor2 elements per
//      thread and access): group-2 tensors are read and written in place,
//      staged inputs come from shared memory, group-1 outputs go to it;
//   3. group-1 outputs are written along B from shared memory.
// Vector accesses need aligned, unit-stride tensors and inner extents that
// are multiples of the widths; the kernel checks that once and otherwise
// runs the same tiles element by element. Index arithmetic in int32_t when
// useInt32Indexing, else int64_t.
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/transpose/transpose_params.h"

namespace fuserlab::codegen {

//! The kernel of transpose `segment` with `params` at the sizes of `info`.
GeneratedKernel emitTransposeKernel(const ir::Fusion& segment,
                                    const scheduler::TransposeParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name);

}  // namespace fuserlab::codegen
