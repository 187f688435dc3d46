// MatmulCall from a matmul segment: the cuBLASLt call that computes a
// segment the matmul scheduler took (a matmul or linear and its fused
// epilogue), for the segment's bound input tensors and its allocated
// output. Leading axes collapse into one row axis (linear) or one batch
// axis (matmul) where their strides allow; batch axes outside the ones that
// collapse become separate calls (splitOuterBatch); rows a linear cannot
// collapse are a UserError saying a copy is needed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/runtime/cublaslt_matmul.h"
#include "core/scheduler/matmul/matmul_params.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! The call for `segment` given one argument per segment input and the
//! tensor the call writes. `what` names the segment in errors.
MatmulCall matmulCallFor(const ir::Fusion& segment, const scheduler::MatmulParams& params,
                         const Arguments& args, const Tensor& output, const std::string& what);

//! One call per index of `call.outer` (just `call` when it is empty), each
//! with A, B and D moved to that index.
std::vector<MatmulCall> splitOuterBatch(const MatmulCall& call);

//! The stride of the flattened index over axes `sizes` with `strides`, if
//! one exists (size-1 axes take any stride; all broadcast gives 0).
std::optional<int64_t> collapsedStride(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides);

}  // namespace fuserlab::runtime
