// The FusionDefinition methods that declare values: fd.define_tensor (a fusion
// input tensor, in its shape/contiguity/stride_order form or its sizes/strides
// form), fd.define_scalar (a constant, or a symbolic scalar input) and
// fd.define_vector (a list of integer scalars, for shapes). Inputs are added
// to the fusion in the order the script declares them. Internal to the
// frontend.
#pragma once

#include "core/frontend/call_arguments.h"

namespace fuserlab::frontend {

//! fd.define_tensor(shape=, contiguity=, dtype=, is_cpu=, stride_order=) or
//! fd.define_tensor(sizes=, strides=, dtype=, static_sizes=, is_cpu=).
Value defineTensor(ir::Fusion& fusion, const EvaluatedCall& call);

//! fd.define_scalar(value=None, dtype=...): a constant, or an input when the
//! value is missing or None.
Value defineScalar(ir::Fusion& fusion, const EvaluatedCall& call);

//! fd.define_vector([...], dtype=DataType.Int): a list of integer scalars.
Value defineVector(ir::Fusion& fusion, const EvaluatedCall& call);

}  // namespace fuserlab::frontend
