// refine_reshaped_reductions: a reduction over axes that a reshape merged,
// computed over the finer axes the merge came from instead (issue 45, item 2).
//
// A GroupNorm reshapes x [N, C, H, W] to [N, G, C/G * H * W], reduces the last
// axis, and reshapes the normalized rows back to [N, C, H, W] for the
// per-channel affine. The reshape changes the innermost extent, so no
// reduction kernel can walk it: the statistics and the normalization become two
// kernels that each read x. Both shapes are views of one row-major sequence, and
// at the bound sizes they have a common refinement, [N, G, C/G, H, W], in which
// each axis of either shape is a run of consecutive axes. This pass rewrites the
// ops from the reshape on in that refinement: x is viewed as [N, G, C/G, H, W]
// (a kernel-free view), the reduction is over [C/G, H, W], the reshape back is
// a renaming, and a per-channel weight [C] is viewed as [G, C/G] and broadcast
// along N, H and W. One inner persistent kernel then computes the statistics
// and the normalized output, reading x once. Outputs are viewed back to their
// shapes after a segment_set, as bookending does.
//
// It runs after the inputs are bound (the refinement depends on the sizes; its
// extents are built from the inputs' own extents, so the rewritten fusion holds
// at other sizes with the same refinement; at others a view's element count no
// longer matches and the executor compiles again). It rewrites where a
// reduction reads the reshape's result and either the reshape changes the
// innermost extent or a reshape after the reductions becomes a renaming
// (nvFuser's [N, G, C/G, H, W] form and back, a QK-norm over heads), and only
// if every op the rewrite reaches has a form in the refinement (elementwise
// ops, casts, broadcasts, expands, sets, reductions, Welford, reshapes that
// keep to it); otherwise the fusion is left as it was, and the record says
// which op kept the reshape.
//
// On by default (`--set refine_reshaped_reductions=off` keeps the reshape):
// on an H200 the suite's GroupNorm + SiLU runs as one kernel in 57.5 us
// against 73.6 for the two (32x320x64x64) and 30.8 against 35.1
// (8x320x63x63), every bundled script checked against the CPU reference
// with it (docs/performance.md).
#pragma once

#include <string_view>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/passes/pass.h"

namespace fuserlab::passes {

inline constexpr std::string_view kRefineReshapedReductions = "refine_reshaped_reductions";

//! Rewrites `fusion` in place at the sizes `evaluator` has bound; appends each
//! rewrite to `record.rewrites`.
void refineReshapedReductions(ir::Fusion& fusion, const ir::ExpressionEvaluator& evaluator,
                              PassRecord& record);

}  // namespace fuserlab::passes
