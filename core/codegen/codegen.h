// Code generation entry point: a scheduled segment (its standalone fusion,
// scheduler, params and runtime info) becomes a GeneratedKernel. One emitter
// per scheduler family; every field of the params struct is obeyed.
#pragma once

#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::codegen {

//! The kernel for `segment`. A scheduler without a kernel (no_op, expr_eval)
//! or an emitter that does not exist yet is a UserError that says so.
GeneratedKernel generateKernel(const ir::Fusion& segment,
                               scheduler::SchedulerType type,
                               const scheduler::HeuristicParams& params,
                               const scheduler::SegmentRuntimeInfo& info,
                               std::string_view kernelName);

//! The device helper header compiled with every kernel as
//! "fuserlab_device.cuh": fl::Tensor, fl::half / fl::bfloat16 with
//! conversions, vector types for 16-byte accesses, warp/block/grid
//! reductions and Welford. Self-contained: it includes no toolkit header.
std::string_view deviceHelperSource();

}  // namespace fuserlab::codegen
