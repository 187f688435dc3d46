// The ops FuserLab evaluates only with the CPU reference: embedding_fwd with
// max_norm (without it, it is an index_select) and sdpfa_bwd (attention
// backward) have no GPU kernel (no emitter, no library call) yet. (argsort
// and topk have one, for lines of up to kMaxSortRow elements: see
// core/scheduler/pointwise/sort_segment.h.)
// So that a fusion holding one still compiles and can be inspected, the
// segmenter seals each in a segment of its own, which expr_eval alone takes
// (the registry refuses it to every other scheduler); the cuda backend
// refuses that segment with noGpuKernelMessage before anything runs, and
// `run --backend cpu` runs it.
#pragma once

#include <optional>
#include <string>

#include "core/ir/fusion.h"

namespace fuserlab::scheduler {

//! Whether exprs of `type` have no GPU kernel, only the CPU reference.
bool isCpuReferenceOnly(ir::ExprType type);

//! "fd.ops.sdpfa_bwd (...) has no GPU kernel in FuserLab yet;
//! it runs on the CPU reference backend (run --backend cpu)".
std::string noGpuKernelMessage(const ir::Expr& expr);

//! Why a scheduler other than expr_eval refuses `segment`: it holds a
//! CPU-reference-only op (the first, named). nullopt when it holds none.
std::optional<std::string> cpuReferenceOnlyRefusal(const ir::Fusion& segment);

}  // namespace fuserlab::scheduler
