// Code generation entry point: a scheduled segment (its standalone fusion,
// scheduler, params and runtime info) becomes a GeneratedKernel. One emitter
// per scheduler family; every field of the params struct is obeyed.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::codegen {

//! The most CUDA source one generated kernel may have: NVRTC's time and
//! memory grow with it (a 100,000-op chain is 18 MB of source, 85 s and
//! 1.4 GB; 2 MB of mixed ops already take 15 s). docs/gpu.md.
inline constexpr int64_t kMaxKernelSourceBytes = 4 * 1024 * 1024;
//! The parameter space of a CUDA kernel (CUDA 12.1+, Volta and later): the
//! tensors (8 bytes + 16 per axis each) and scalars a kernel takes.
inline constexpr int64_t kMaxKernelParameterBytes = 32764;

//! The kernel for `segment`. A scheduler without a kernel (no_op, expr_eval)
//! or an emitter that does not exist yet is a UserError that says so, and so
//! is a kernel past kMaxKernelSourceBytes or kMaxKernelParameterBytes.
GeneratedKernel generateKernel(const ir::Fusion& segment, scheduler::SchedulerType type,
                               const scheduler::HeuristicParams& params,
                               const scheduler::SegmentRuntimeInfo& info,
                               std::string_view kernelName);

//! The device helper header compiled with every kernel as
//! "fuserlab_device.cuh": fl::Tensor, fl::half / fl::bfloat16 with
//! conversions, vector types for 16-byte accesses, warp/block/grid
//! reductions and Welford. Self-contained: it includes no toolkit header.
std::string_view deviceHelperSource();

}  // namespace fuserlab::codegen
