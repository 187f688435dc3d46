// The multi-device forms of nvFuser's Python frontend, as its multi-GPU tests
// write them: device meshes (`nvfuser.DeviceMesh(range(d))`,
// `nvfuser.multidevice.DeviceMesh(torch.arange(d))`,
// `fd.sched._create_device_mesh(...)`), `ParallelType.mesh_x`, and the
// scheduling calls that shard a tensor, in both spellings:
//   fd.sched._set_device_mesh(T, mesh)     T.set_device_mesh(mesh)
//   fd.sched.split(T, axis, d, False)      T.outer_split(axis, d)
//                                          T.split(axis, d, inner_split=False)
//   fd.sched.parallelize(T, axis, PT)      T.axis(axis).parallelize(PT)
//   fd.sched.set_allocation_as_loop(T)
// Internal to the frontend.
#pragma once

#include <optional>
#include <string>

#include "core/frontend/call_arguments.h"
#include "core/frontend/script_value.h"

namespace fuserlab::frontend {

//! `range(...)`, `torch.arange(n)` and `...DeviceMesh(devices)` calls:
//! the value, or nullopt if `path` names none of them.
std::optional<Value> callMeshBuiltin(const std::string& path, const EvaluatedCall& call);

//! `ParallelType.<name>` for a namespace path ending in "ParallelType", or
//! nullopt for other paths; an unknown name is a UserError at `location`.
std::optional<Value> parallelTypeAttribute(const std::string& path, const std::string& name,
                                           const SourceLocation& location);

//! `fd.sched.<method>(...)`.
Value callSchedMethod(ir::Fusion& fusion, const std::string& method, const EvaluatedCall& call);

//! The multi-device methods of a tensor (`set_device_mesh`, `outer_split`,
//! `split`, `axis`); nullopt if `method` is none of them.
std::optional<Value> callTensorMeshMethod(ir::TensorView* tv, const std::string& method,
                                          const EvaluatedCall& call);

//! `T.axis(i).parallelize(PT)`.
Value callIterDomainMethod(const Value& axis, const std::string& method, const EvaluatedCall& call);

}  // namespace fuserlab::frontend
