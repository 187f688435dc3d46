// embedding_fwd: torch.nn.functional.embedding's forward as nvFuser's
// embedding_fwd takes it, rows of a weight matrix looked up by an integer
// tensor. Options that only change the backward pass (padding_idx,
// scale_grad_by_freq, sparse) are checked, then dropped: without max_norm the
// lookup is built from index_select and reshape, which every backend runs;
// with max_norm it is an Embedding expr, which only the CPU reference runs.
#pragma once

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! weight[input] with shape input's + [embedding_dim]. `input` is an integer
//! tensor of rank >= 1, `weight` is [num_embeddings, embedding_dim]. Each
//! optional scalar may be null: padding_idx (an integer in
//! [-num_embeddings, num_embeddings)), max_norm (a number: looked-up rows
//! whose norm_type-norm exceeds it are scaled down to it, as torch renorms
//! them), norm_type (default 2.0), scale_grad_by_freq and sparse (Bool,
//! default False). Without max_norm the result is
//! reshape(index_select(weight, reshape(input, [-1]), 0), input's shape +
//! [embedding_dim]) (index_select alone for 1-D indices).
ir::TensorView* embeddingFwd(ir::TensorView* input, ir::TensorView* weight, ir::Scalar* paddingIdx,
                             ir::Scalar* maxNorm, ir::Scalar* normType, ir::Scalar* scaleGradByFreq,
                             ir::Scalar* sparse);

}  // namespace fuserlab::ops
