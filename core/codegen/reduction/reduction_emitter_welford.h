// Welford (var_mean) steps of reduction kernels (ReductionEmitter): the
// values of a thread's chunk kept in registers, then folded into its
// Welford accumulators without a division per element, either chunk by
// chunk (a sum, a mean, squared deviations and one Chan combine) or, where
// a block holds its rows whole, in two block-wide passes (the mean, then
// the squared deviations from it). The loops around them (which thread
// takes which chunk) are the emitter's; `UR`, `UIT` and `V` are the chunk's
// unrolled steps, iteration slots and vector lanes (`wf_T[u][k][v]`).
#pragma once

#include <string>

#include "core/codegen/reduction/reduction_emitter_common.h"

namespace fuserlab::codegen {

//! Whether the plan has a Welford step.
bool hasWelfordStep(const ReductionKernelBuilder& b);

//! The chunk arrays `wf_T[UR][UIT][V]` of every Welford step.
void declareWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                          const std::string& UIT, const std::string& V);

//! Inner reductions: each row k folds its chunk (steps u, lanes v) into
//! `acc[k]`. `ok`: step u of row k is in range.
void foldInnerWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                            const std::string& UIT, const std::string& V, const std::string& ok);

//! Outer reductions: each column (k, v) folds its rows u of the step into
//! `acc[k * V + v]`; the V lanes of group k count the same rows, so one
//! count and one ratio serve them all (fl::welford_fold_lanes). `ok`: row u
//! of column group k is in range. `shifted`: every step of every thread
//! holds UR rows of each column in range (the block's rows tile its range
//! exactly), so the chunks fold into `acc_sh` as shifted sums with no
//! division a step (fl::shifted_fold_lanes), counted in `acc_steps[k]`;
//! declareShiftedChunks before the loop, finishShiftedChunks after it.
void foldOuterWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                            const std::string& UIT, const std::string& V, const std::string& ok,
                            bool shifted);

//! The shifted sums `acc_sh[NS]` and step counts `acc_steps[UIT]` of every
//! Welford step, zero.
void declareShiftedChunks(ReductionKernelBuilder& b, int in, const std::string& NS,
                          const std::string& UIT);

//! Every Welford step's `acc` from its shifted sums (UR rows a step).
void finishShiftedChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                         const std::string& UIT, const std::string& V);

//! Inner reductions whose rows a block of `threadsX` x `threadsY` holds
//! whole: each row k's mean from a block-wide sum, then m2 from a
//! block-wide sum of squared deviations from it, into `acc[k]` (a count of
//! `rowLength`). `ok`: step u of row k is in range.
void emitTwoPassWelford(ReductionKernelBuilder& b, int in, const std::string& UR,
                        const std::string& UIT, const std::string& V, const std::string& ok,
                        int64_t threadsX, int64_t threadsY);

}  // namespace fuserlab::codegen
