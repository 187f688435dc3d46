// The scan kernel: a segment holding one cumsum / cumprod / cummin / cummax
// (ExprType::Scan; core/scheduler/pointwise/scan_segment.h), which the
// pointwise scheduler takes. One thread per line along the scanned axis (a
// grid-stride loop over the lines, consecutive threads on consecutive
// positions of the other axes, so a scan along an outer axis reads and
// writes coalesced rows), walking the line in order with the accumulator in
// the reference's compute dtype (float for Half, BFloat16 and Float; double;
// int64_t for Bool, Int32 and Int) and each prefix rounded to the output's
// dtype once: the CPU reference's order and rounding, so results match it
// exactly. The combining op is the generated code's own (fl::maximum and
// fl::minimum propagate NaN; integers wrap).
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! The kernel of a scan segment; params as scan_segment.h describes (only
//! block_dim_x and use_int32_indexing mean something to it).
GeneratedKernel emitScanKernel(const ir::Fusion& segment, const scheduler::PointwiseParams& params,
                               const scheduler::SegmentRuntimeInfo& info, std::string_view name);

}  // namespace fuserlab::codegen
