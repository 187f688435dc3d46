// Input tensors: turning a script's `inputs = [...]` block, or the CLI's
// `--inputs` option, into the Arguments a fusion runs on. Random values follow
// the constructor the repro names and are drawn deterministically from a seed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/frontend/script.h"
#include "core/tensor/argument.h"

namespace fuserlab::frontend {

//! Parses `--inputs`: comma-separated entries, one per fusion input in order.
//! A tensor is `SIZExSIZE...:DTYPE` (`128x49152:bf16`; `:f32` is 0-dim), a
//! scalar a bare number (`0.5`, `3`, `true`). Dtypes: bool, i32, i64, f16,
//! bf16, f32, f64. Floating tensors are filled like torch.randn, others like
//! torch.testing.make_tensor.
std::vector<InputSpec> parseInputsOption(std::string_view spec);

//! Builds CPU tensors (and scalars) for `specs`; input i is filled from a
//! stream seeded by (seed, i), so adding an input does not change the others.
runtime::Arguments makeInputs(const std::vector<InputSpec>& specs, uint64_t seed);

//! Metadata-only tensors (sizes, strides, storage offset; no data) and the
//! scalars of `specs`: what the compiler needs, at any size, without
//! allocating.
runtime::Arguments makeInputShapes(const std::vector<InputSpec>& specs);

}  // namespace fuserlab::frontend
