// Indexed-write segments: a scatter or an index_put_accumulate
// (ExprType::Scatter, IndexPutAccumulate) runs in a segment of its own (the
// segmenter seals it), which the pointwise scheduler takes and code
// generation emits as an indexed-write kernel (core/codegen/scatter_emitter.h):
// the tensor written into is copied to the output, a grid barrier, then each
// index position writes (scatter) or atomically adds (index_put_accumulate)
// its value. The other schedulers refuse any segment that holds one. Of
// PointwiseParams the kernel uses block_dim_x and use_int32_indexing; the
// others keep their 1-D defaults.
#pragma once

#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! The segment's scatter or index_put_accumulate; nullptr when it holds none.
const ir::Expr* indexedWriteOf(const ir::Fusion& segment);

//! Why a scheduler other than pointwise refuses a segment holding `write`.
std::string indexedWriteRefusal(const ir::Expr& write);

//! The pointwise scheduler's compile-time check of a segment holding
//! `write`: it must be the segment's only op with a tensor output.
std::optional<std::string> rejectIndexedWriteSegment(const ir::Fusion& segment,
                                                     const ir::Expr& write);

//! The params of an indexed-write segment: block_dim_x 256, 32-bit indexing
//! where every tensor's span allows it.
PointwiseParams indexedWriteParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

//! Params the kernel cannot obey: any vectorization, unrolling, 2-D split
//! or flip; a block other than a multiple of 32 up to 256 (its grid barrier
//! needs two blocks of it resident on every SM); 32-bit indexing past its
//! reach.
std::optional<std::string> rejectIndexedWriteParams(const ir::Fusion& segment,
                                                    const SegmentRuntimeInfo& info,
                                                    const PointwiseParams& params);

//! The op, its axis and the number of index positions, for the report.
report::Json indexedWriteProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

}  // namespace fuserlab::scheduler
