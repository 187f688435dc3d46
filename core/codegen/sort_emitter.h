// The sort kernel: a segment holding one argsort or topk
// (core/scheduler/pointwise/sort_segment.h), which the pointwise scheduler
// takes. One block per line along the sorted axis (a grid-stride loop over
// the lines, the other axes flattened): the line is loaded into shared
// memory as (value, position) pairs, the values in the reference's compute
// dtype (float for Half, BFloat16 and Float; double; int64_t for Bool, Int32
// and Int), padded to a power of two with pairs that sort last, and ordered
// by a bitonic sort. The order is the CPU reference's: ascending (descending
// for argsort's descending=True and topk's largest=True) with NaN above every
// number, equal values in position order (a stable sort; -0.0 and 0.0 are
// equal), a total order on the pairs, so the result is the reference's
// exactly. argsort writes every position; topk the first k values (copied
// from the input, bit for bit) and positions. Lines are at most kMaxSortRow
// long (the pairs fill 48 KiB of static shared memory at most).
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of a sort segment; params as sort_segment.h describes (only
//! block_dim_x and use_int32_indexing mean something to it).
GeneratedKernel emitSortKernel(const ir::Fusion& segment, const scheduler::PointwiseParams& params,
                               const scheduler::SegmentRuntimeInfo& info, std::string_view name);

}  // namespace fuserlab::codegen
