// Scan segments: a cumsum / cumprod / cummin / cummax (ExprType::Scan) runs
// in a segment of its own (the segmenter seals it), which the pointwise
// scheduler takes and code generation emits as a scan kernel
// (core/codegen/scan_emitter.h): one thread per line along the scanned axis,
// walking it in order. The other schedulers refuse any segment that holds a
// scan. Of PointwiseParams a scan kernel uses block_dim_x (threads per
// block, one line each) and use_int32_indexing; the others keep their 1-D
// defaults (vectorization 1, no unrolling, break point 0).
#pragma once

#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! The segment's scan expr; nullptr when it holds none.
const ir::Expr* scanOf(const ir::Fusion& segment);

//! Why a scheduler other than pointwise refuses a segment holding `scan`.
std::string scanRefusal(const ir::Expr& scan);

//! The pointwise scheduler's compile-time check of a segment holding `scan`:
//! the scan must be its only op with a tensor output.
std::optional<std::string> rejectScanSegment(const ir::Fusion& segment, const ir::Expr& scan);

//! The params of a scan segment: block_dim_x 128 (fewer, a multiple of 32,
//! for fewer lines), 32-bit indexing where every tensor's span allows it.
PointwiseParams scanParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

//! Params a scan kernel cannot obey: any vectorization, unrolling, 2-D
//! split or flip; a block that does not fit the device; 32-bit indexing
//! past its reach.
std::optional<std::string> rejectScanParams(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info,
                                            const PointwiseParams& params);

//! The scan, its axis, line length and number of lines, for the report.
report::Json scanProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

}  // namespace fuserlab::scheduler
