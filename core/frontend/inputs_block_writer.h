// The inputs block writer: InputSpecs back as the Python a repro holds,
// `inputs = [torch.randn(...).as_strided(...), 0.5, ...]`, which the inputs
// block reader (inputs_block.h) reads back to the same specs and PyTorch runs
// as written. The inverse of the reader for every initializer it knows except
// torch.arange and literal values, which are written as make_tensor (same
// sizes and dtype, other values) and say so in a comment.
#pragma once

#include <string>
#include <vector>

#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! One entry: a Python number for a scalar, else a torch constructor call
//! (with `.as_strided(sizes, strides[, offset])` when the spec has a view).
std::string writeInputSpec(const InputSpec& spec);

//! `inputs = [\n    ENTRY,\n    ...\n]\n`.
std::string writeInputsBlock(const std::vector<InputSpec>& specs);

}  // namespace fuserlab::frontend
