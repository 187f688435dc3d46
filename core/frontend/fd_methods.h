// The methods a script calls on a FusionDefinition being built and on its
// values, as nvFuser's two frontends (nvfuser_direct and the older nvfuser)
// spell them: fd.define_tensor / define_scalar / define_vector /
// from_pytorch / add_output, fd.fusion.inputs() and outputs(), and the
// methods and attributes of a fusion tensor (T.size(i), T.shape(), T.ndim,
// T.dtype() and the multi-device scheduling calls). fd.ops.* is fd_ops.h;
// the torch tensors of the inputs are torch_tensors.h.
// Internal to the frontend.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/frontend/call_arguments.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! `fd.<method>(...)` that declares or marks values of `fusion`. `specs`
//! holds the torch tensors the script made (for from_pytorch). Nullopt when
//! `method` is none of the declaring methods.
std::optional<Value> callFdMethod(ir::Fusion& fusion, const std::string& method,
                                  const EvaluatedCall& call, const std::vector<InputSpec>& specs);

//! Whether `fd.<method>(...)` only runs or prints the fusion (execute,
//! validate, last_repro_script, ...): the reader skips it.
bool isRunOnlyFdMethod(const std::string& method);

//! `fd.fusion.inputs()` / `outputs()`.
Value callFusionHandleMethod(ir::Fusion& fusion, const std::string& method,
                             const EvaluatedCall& call);

//! `T.<method>(...)` on a fusion tensor.
Value callTensorMethod(ir::TensorView* tv, const std::string& method, const EvaluatedCall& call);

//! `T.<name>` that is a value rather than a method (ndim), or nullopt.
std::optional<Value> tensorAttribute(ir::TensorView* tv, const std::string& name);

//! Whether `T.<name>` is a method of a fusion tensor.
bool isTensorMethod(const std::string& name);

}  // namespace fuserlab::frontend
