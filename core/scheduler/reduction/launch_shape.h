// The launch shape of reduction-family kernels (reduction, inner_persistent,
// outer_persistent): the checks every ReductionParams must pass whatever
// supplied it (the heuristic, the tuner, the database), and the integer
// arithmetic the heuristics size blocks and grids with.
//
// Axes, as ReductionParams defines them, for inner and outer reductions
// alike: blockDimX counts threads along the reduction and blockDimY along
// the iteration (kept) axes; gridDimX counts blocks along the iteration
// axes and gridDimY blocks along the reduction (a grid reduction). The
// vectorized axis is the innermost one: reduced for an inner reduction, kept
// for an outer one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/scheduler/device_spec.h"
#include "core/scheduler/heuristic_params.h"

namespace fuserlab::scheduler {

constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t roundUpTo(int64_t a, int64_t multiple) { return ceilDiv(a, multiple) * multiple; }
//! The smallest power of two >= x (1 for x <= 1).
int64_t nextPowerOfTwo(int64_t x);
//! The largest power of two <= x (1 for x <= 1).
int64_t previousPowerOfTwo(int64_t x);

//! The ReductionParams in `params`, or nullptr with `reason` saying what
//! kind of params were given instead.
const ReductionParams* asReductionParams(const HeuristicParams& params, std::string* reason);

//! Why `params` cannot launch on `device` whatever the segment: a
//! vectorization factor that is not a power of two or exceeds
//! `maxVectorizeFactor`, block or grid dimensions below 1 or beyond the
//! device's limits, unroll or batch factors below 1, a grid split of the
//! reduction (gridDimY > 1) without crossGridReduction.
//! The most blocks one thread-block cluster may have on `device`: 0 before
//! sm_90, else the device's maxClusterBlocks and at least the portable
//! kPortableClusterBlocks (device_spec.h).
int64_t maxClusterBlocks(const DeviceSpec& device);
//! How many clusters of `blocks` blocks, each filling an SM, `device` holds
//! at once: its residentClusters where known, else smCount / blocks; 0 past
//! maxClusterBlocks(device).
int64_t clustersAtOnce(const DeviceSpec& device, int64_t blocks);

std::optional<std::string> rejectLaunchShape(const ReductionParams& params,
                                             const DeviceSpec& device, int64_t maxVectorizeFactor);

}  // namespace fuserlab::scheduler
