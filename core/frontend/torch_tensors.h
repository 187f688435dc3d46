// The torch tensors a script makes for its inputs, as descriptions
// (InputSpec) rather than data: what torch would report of them (shape,
// strides, dtype), the views and conversions scripts apply before passing
// them to a fusion (t(), transpose, permute, unsqueeze, contiguous, to,
// half(), ...), and torch.tensor of a constant. Constructors themselves are
// inputs_block.h. Internal to the frontend.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/frontend/call_arguments.h"
#include "core/frontend/expression_evaluator.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! The sizes and strides of a torch tensor the script made, as torch
//! reports them (`t.shape`, `t.stride()`).
std::vector<int64_t> torchSizes(const InputSpec& spec);
std::vector<int64_t> torchStrides(const InputSpec& spec);

//! `t.<name>` of a torch tensor the script made (shape, dtype, ndim,
//! device, is_cuda), or nullopt for its methods.
std::optional<Value> torchTensorAttribute(const InputSpec& spec, const std::string& name);

//! `t.size(...)`, `t.stride(...)`, `t.dim()`, `t.numel()`,
//! `t.is_contiguous()`, `t.element_size()` of a torch tensor the script
//! made, or nullopt for the methods that make a new tensor.
std::optional<Value> callTorchTensorQuery(const InputSpec& spec, const std::string& method,
                                          const EvaluatedCall& call);

//! `t.<name>(...)` that views or converts a tensor the script made: a new
//! description appended to `specs`, or nullopt for other methods (the
//! script's eager reference computations).
std::optional<Value> torchTensorView(std::vector<InputSpec>& specs, const Value& receiver,
                                     const std::string& name, const EvaluatedCall& call);

//! `torch.tensor(data)`: a number or nested lists of numbers, with torch's
//! dtype inference (float32, int64 or bool) unless dtype= says; appended
//! to `specs`.
Value torchTensorLiteral(std::vector<InputSpec>& specs, const NameTable& globals,
                         const EvaluatedCall& call);

//! `t[index]` of a tensor the script made: ints and slices (one per
//! leading axis, or a tuple of them) view it, as torch does (`t[1:]`, a
//! misaligned start; `t[:, ::2]`). Nullopt for other indices.
std::optional<Value> torchTensorIndex(std::vector<InputSpec>& specs, const Value& tensor,
                                      const Value& index, const SourceLocation& location);

//! The device ids of `torch.arange(n)` where a mesh wants a list.
Value arangeDeviceIds(const InputSpec& spec, const SourceLocation& at);

}  // namespace fuserlab::frontend
