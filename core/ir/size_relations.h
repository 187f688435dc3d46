// Size relations: what each op asks of its operands' sizes (elementwise
// operands agree but for size-1 axes, cat inputs agree off the cat axis, a
// matmul's inner sizes agree, a slice stays within its axis, an index fits
// the tensor it indexes, ...). The frontend checks them where sizes are
// constants; checkSizeRelations checks them once the inputs' sizes are
// bound, before any kernel exists, so that a kernel never iterates past the
// end of an input. Each rule is the CPU reference executor's
// (core/reference/reference_*.cpp): a fusion the reference runs passes, one it
// refuses for its sizes is refused here with the same words.
#pragma once

namespace fuserlab::ir {

class ExpressionEvaluator;
class Fusion;

//! Throws a UserError for the first op of `fusion` (among those its outputs
//! depend on) whose operands' sizes, as `evaluator` knows them, contradict
//! each other; sizes the evaluator cannot tell are not checked. Index
//! tensors whose values are known (full, iota, and views of them) are
//! checked against the axis they index.
void checkSizeRelations(const Fusion& fusion, const ExpressionEvaluator& evaluator);

}  // namespace fuserlab::ir
