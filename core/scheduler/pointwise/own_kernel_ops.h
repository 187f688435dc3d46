// Ops that run in a pointwise kernel of their own: a scan (cumsum, cumprod,
// cummin, cummax; scan_segment.h), an indexed write (scatter,
// index_put_accumulate; scatter_segment.h) and a sort (argsort, topk;
// sort_segment.h). The segmenter seals each in a segment alone, the
// pointwise scheduler takes it and code generation emits its kernel; every
// other scheduler refuses a segment that holds one. What the three kinds
// share: finding them (one walk over the segment for all three), the
// pointwise scheduler's check that the op is alone, and the other
// schedulers' refusal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/ir/fusion.h"
#include "core/scheduler/pointwise/pointwise_params.h"

namespace fuserlab::scheduler {

//! The first of each kind among a segment's live exprs; nullptr where it
//! holds none.
struct OwnKernelOps {
  const ir::Expr* scan = nullptr;
  const ir::Expr* indexedWrite = nullptr;
  const ir::Expr* sort = nullptr;

  //! Whether the segment holds any of them.
  bool any() const { return scan != nullptr || indexedWrite != nullptr || sort != nullptr; }
};
OwnKernelOps ownKernelOps(const ir::Fusion& segment);

//! The pointwise scheduler's compile-time check of a segment holding `op`:
//! the op must be its only one with a tensor output. `noun` names the op
//! ("scan", or its op name), `kernel` its kernel ("a scan kernel"): "holds a
//! scan (T1 = cumsum(T0, dim=1)) beside T2 = exp(T1): a scan kernel runs the
//! scan alone".
std::optional<std::string> rejectBesideOwnKernelOp(const ir::Fusion& segment, const ir::Expr& op,
                                                   std::string_view noun, std::string_view kernel);

//! Why a scheduler other than pointwise refuses a segment holding `op`:
//! "holds a NOUN (SUMMARY): the pointwise scheduler's KERNEL runs it, in a
//! segment of its own" and `more` after it.
std::string ownKernelOpRefusal(const ir::Expr& op, std::string_view noun, std::string_view kernel,
                               std::string_view more = {});

//! Params the op's kernel cannot obey: anything but the 1-D defaults
//! (vectorization 1, unroll factors 1, break point 0, block_dim_y 1, no
//! flip). `kernel` says how the kernel walks ("a scan kernel runs one thread
//! per line").
std::optional<std::string> rejectVectorsUnrollingOrSplit(const PointwiseParams& params,
                                                         std::string_view kernel);

}  // namespace fuserlab::scheduler
