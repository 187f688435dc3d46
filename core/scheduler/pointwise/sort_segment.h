// Sort segments: an argsort or topk (ExprType::Argsort, ExprType::TopK) runs
// in a segment of its own (the segmenter seals it), which the pointwise
// scheduler takes and code generation emits as a sort kernel
// (core/codegen/sort_emitter.h): one block per line along the sorted axis,
// the line in shared memory, a bitonic sort of (value, position) pairs. A
// line longer than kMaxSortRow does not fit: pointwise refuses it at run
// time and expr_eval takes it instead (the CPU reference runs it; the cuda
// backend refuses it, saying so). Every other scheduler refuses a segment
// that holds a sort. Of PointwiseParams a sort kernel uses block_dim_x
// (threads per block, one block a line) and use_int32_indexing.
#pragma once

#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! The longest line the sort kernel sorts: padded to a power of two, its
//! values (8 bytes at most) and positions (4 bytes) fill the 48 KiB of
//! static shared memory a block has on every architecture.
inline constexpr int64_t kMaxSortRow = 4096;

//! Whether `type` is argsort or topk.
bool isSortOp(ir::ExprType type);

//! The segment's argsort or topk expr; nullptr when it holds none.
const ir::Expr* sortOf(const ir::Fusion& segment);

//! The length of the lines `sort` orders (its input's extent along the
//! sorted axis; 1 for a 0-dim input) at the bound sizes.
int64_t sortRowLength(const ir::Expr& sort, const SegmentRuntimeInfo& info);

//! Why a scheduler other than pointwise and expr_eval refuses a segment
//! holding `sort`.
std::string sortRefusal(const ir::Expr& sort);

//! The pointwise scheduler's compile-time check of a segment holding
//! `sort`: the sort must be its only op with a tensor output.
std::optional<std::string> rejectSortSegment(const ir::Fusion& segment, const ir::Expr& sort);

//! Why the sort kernel cannot run `sort` at the bound sizes: a line longer
//! than kMaxSortRow. nullopt when it fits.
std::optional<std::string> sortRowTooLong(const ir::Expr& sort, const SegmentRuntimeInfo& info);

//! The cuda backend's message for a sort expr_eval took: "fd.ops.argsort
//! (...) sorts lines of 5000 elements, more than the 4096 ...; it runs on the
//! CPU reference backend (run --backend cpu)".
std::string noSortKernelMessage(const ir::Expr& sort, int64_t lineLength);

//! The params of a sort segment: block_dim_x half the padded line (a
//! multiple of 32, 32 to 512), 32-bit indexing where every tensor's span
//! allows it.
PointwiseParams sortParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

//! Params a sort kernel cannot obey: any vectorization, unrolling, 2-D
//! split or flip; a block that is no multiple of 32 up to 1024 or does not
//! fit the device; 32-bit indexing past its reach.
std::optional<std::string> rejectSortParams(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info,
                                            const PointwiseParams& params);

//! The sort, its axis, line length and number of lines, for the report.
report::Json sortProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

}  // namespace fuserlab::scheduler
