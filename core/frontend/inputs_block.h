// The `inputs = [...]` block of an nvFuser repro: each entry a torch
// constructor call (torch.randn, rand, randint, ones, zeros, full, arange,
// torch.testing.make_tensor), optionally viewed through .as_strided(size,
// stride[, storage_offset]), or a Python number for a scalar input. Read as
// descriptions (InputSpec), not run; input_tensors.h makes the tensors.
// Internal to the frontend.
#pragma once

#include <vector>

#include "core/frontend/expression_evaluator.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! Reads the value of `inputs = <value>`, which must be a list or tuple
//! display. Anything but the constructors above and numbers is a UserError at
//! the entry, naming what is supported.
std::vector<InputSpec> readInputsBlock(const Expr& value, const NameTable& globals);

//! A torch call anywhere in a script (`torch.randn(...)`, `t.as_strided`):
//! a kInputTensor value whose spec is appended to `specs`.
Value callTorch(std::vector<InputSpec>& specs, const NameTable& globals, const Value& callee,
                const EvaluatedCall& call);

//! The specs of a list of kInputTensor values (indices into `specs`) and
//! Python numbers, as `fd.execute(inputs)` passes them.
std::vector<InputSpec> inputSpecsOf(const Value& entries, const std::vector<InputSpec>& specs,
                                    const SourceLocation& location);

}  // namespace fuserlab::frontend
