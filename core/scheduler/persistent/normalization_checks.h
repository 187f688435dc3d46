// The checks the two persistent (normalization) schedulers share. Both take
// segments whose reductions all reduce the same axes and where some tensor
// must stay resident across a reduction; they differ in which axes those are
// (the innermost ones for inner_persistent, outer ones for
// outer_persistent) and in how a row is spread over threads and blocks.
#pragma once

#include <optional>
#include <string>

#include "core/ir/fusion.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/heuristic_params.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::scheduler {

//! Compile-time refusal of a normalization scheduler that takes reductions
//! over the innermost axes (`innermost`) or over outer ones.
std::optional<std::string> rejectNormalizationCompileTime(const ir::Fusion& segment,
                                                          bool innermost);

//! The run-time analysis; FL_ASSERTs that the segment has a pattern (the
//! compile-time check ran first).
PersistentBufferAnalysis analyzeNormalization(const ir::Fusion& segment,
                                              const SegmentRuntimeInfo& info);

//! The run-time refusal both share: reductions of different extents, a
//! reshape that regroups the rows, buffers over the budget.
std::optional<std::string> rejectNormalizationRunTime(const ir::Fusion& segment,
                                                      const SegmentRuntimeInfo& info,
                                                      const PersistentBufferAnalysis& analysis);

//! Why the buffers (projected when that keeps fewer bytes) fit neither the
//! register nor the shared memory budget, with the numbers; nullopt if they
//! fit one of them.
std::optional<std::string> rejectBufferBudget(const PersistentBufferAnalysis& analysis);

//! Checks every persistent params set must pass: the kind, persistent_kernel,
//! fastest_dim_reduction against the pattern, projection only where some
//! buffer projects, the launch shape, 32-bit indexing.
std::optional<std::string> rejectCommonNormalizationParams(const ir::Fusion& segment,
                                                           const SegmentRuntimeInfo& info,
                                                           const PersistentBufferAnalysis& analysis,
                                                           const ReductionParams& params);

//! The analysis as report properties, with the storage chosen for it.
report::Json normalizationProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

}  // namespace fuserlab::scheduler
