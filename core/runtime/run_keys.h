// What a GPU run is specific to, as keys: the input signature (which
// compiled fusion serves the inputs), the layout key (which kernels, at
// which sizes, strides and alignments), and the replay key (which traced
// plan, core/runtime/run_plan.h, a cached run may replay).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! The largest power of two up to 256 that divides the tensor's data address.
int64_t alignmentOf(const Tensor& tensor);

//! The input signature string of `inputs` (for tests and messages): per
//! tensor its dtype, rank, size-1 axes, contiguity, stride order and
//! alignment class; per scalar its kind.
std::string inputSignature(const Arguments& inputs);

//! Per tensor its sizes, strides and alignment; per scalar its value.
std::string layoutKey(const Arguments& args);

//! What a replayable plan is specific to: per argument its dtype, device,
//! sizes, strides and alignment (up to 256 bytes), per scalar (and 0-dim CPU
//! tensor) its value. Empty (no replay) when an input is a CPU tensor with
//! elements, which a run copies to the GPU.
std::vector<int64_t> replayKey(const Arguments& inputs);

}  // namespace fuserlab::runtime
