// The CPU reference executor: the oracle every GPU result is compared with,
// and what `run` falls back to without a GPU.
//
// It evaluates a fusion unsegmented, op by op, materializing each
// intermediate in its own dtype: Half and BFloat16 ops compute in float and
// round to the output dtype at every op's output (as nvFuser's per-op casts
// do), Float computes in float, Double in double, integers in int64 (C
// truncating division, Python-sign remainder, C fmod), Bool as logical
// values. Reductions accumulate in float (double for Double, int64 for
// integers); sums are pairwise (numpy's scheme: 8 interleaved accumulators
// over blocks of 128, halves added recursively), Welford is two-pass. Casts
// follow castElement (element_type.h): float to integer truncates and
// saturates, NaN becomes 0. Results depend only on the inputs' values, never
// on their strides or on timing: same inputs, same bytes out.
#pragma once

#include <vector>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/tensor/argument.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! Evaluates every Expr the fusion's outputs need, in order. `inputs` has one
//! Argument per fusion input, tensors already in their logical view (sizes =
//! the input's logical extents without reductions, any strides, incl.
//! 0-strides for expanded broadcasts); symbolic extents are already bound in
//! `evaluator` (unbound scalar inputs are bound here). Returns one Tensor per
//! fusion output (contiguous, logical view, CPU, sharing no storage with the
//! inputs); scalar outputs become 0-dim tensors. Bad values (an index out of
//! range, a squeeze of a non-1 axis, a shape mismatch) are UserErrors naming
//! the op.
std::vector<Tensor> evaluateReference(const ir::Fusion& fusion, const Arguments& inputs,
                                      ir::ExpressionEvaluator& evaluator);

}  // namespace fuserlab::runtime
