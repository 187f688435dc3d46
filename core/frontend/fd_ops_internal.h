// What the two halves of the fd.ops table share: the elementwise, reduction
// and normalization ops live in fd_ops.cpp, the shape, factory, indexing and
// library-call ops in fd_ops_shape.cpp. Internal to the frontend.
#pragma once

#include <string_view>

#include "core/frontend/call_arguments.h"

namespace fuserlab::frontend {

//! One `fd.ops.<op>(...)` call being built.
struct OpCall {
  ir::Fusion& fusion;
  std::string_view op;
  const EvaluatedCall& call;
};

using OpHandler = Value (*)(const OpCall&);

//! The handler of a shape, factory, indexing or library-call op; null when
//! `op` is none of them.
OpHandler findShapeOp(std::string_view op);

//! The handler of a random op (uniform, normal, rand_like, randn_like) or of
//! sdpfa_bwd (fd_ops_random.cpp); null when `op` is none of them.
OpHandler findRandomOp(std::string_view op);

}  // namespace fuserlab::frontend
