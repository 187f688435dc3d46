// fd.ops.*: the FusionDefinition operators, each mapped onto its op builder
// (core/ops) with nvFuser's parameter names, positional or keyword. Python
// operators on tensors and scalars (`T0 + 1.0`, `-S1`) build the same ops, as
// nvFuser's Tensor and Scalar overload them. Internal to the frontend.
#pragma once

#include <string_view>

#include "core/frontend/call_arguments.h"
#include "core/frontend/script_ast.h"

namespace fuserlab::frontend {

//! `fd.ops.<op>(...)`: its result, a tensor or scalar, or a tuple for the
//! ops with several outputs (var_mean, welford, sdpfa_fwd). Unknown ops and
//! the random ops FuserLab refuses are UserErrors at the call.
Value callFdOp(ir::Fusion& fusion, std::string_view op, const EvaluatedCall& call);

//! `lhs <op> rhs` where at least one side is a tensor or scalar; Python
//! numbers on the other side become constants.
Value applyOperator(ir::Fusion& fusion, BinaryOpKind op, const Value& lhs, const Value& rhs,
                    const SourceLocation& location);

//! `-x`, `+x`, `~x` on a tensor or scalar.
Value applyUnaryOperator(ir::Fusion& fusion, UnaryOpKind op, const Value& operand,
                         const SourceLocation& location);

//! `T.size(dim)`: the extent of logical axis `dim` (negative counts from
//! the end; an expanded broadcast gives its expanded extent).
Value extentOf(const ir::TensorView* tv, int64_t dim);

//! `T.shape()`: the list of those extents.
Value shapeOf(const ir::TensorView* tv);

}  // namespace fuserlab::frontend
