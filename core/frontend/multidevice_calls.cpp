#include "core/frontend/multidevice_calls.h"

#include "core/ir/error.h"
#include "core/ir/fusion.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

// The device ids of a DeviceMesh argument: a list or tuple of ints (what
// range() and torch.arange() give here).
ir::DeviceMesh meshFrom(const BoundArguments& args, std::string_view name) {
  const Argument* arg = args.find(name);
  if (arg->value.is(Kind::kDeviceMesh)) return arg->value.mesh();
  std::vector<int64_t> devices = args.intList(name);
  try {
    return ir::DeviceMesh(std::move(devices));
  } catch (const UserError& error) {
    args.failAt(*arg, error.message());
  }
}

ir::ParallelType parallelTypeFrom(const BoundArguments& args, std::string_view name) {
  const Argument* arg = args.find(name);
  if (!arg->value.is(Kind::kParallelType)) {
    args.failType(*arg, "a ParallelType (nvfuser.ParallelType.mesh_x)");
  }
  return static_cast<ir::ParallelType>(arg->value.intValue);
}

int64_t loopAxis(const BoundArguments& args, ir::TensorView* tv, std::string_view name) {
  const int64_t rank = static_cast<int64_t>(tv->loop().size());
  int64_t axis = args.integer(name);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    args.failAt(*args.find(name), "axis " + std::to_string(args.integer(name)) +
                                      " is out of range for " + tv->name() + "'s " +
                                      std::to_string(rank) + " loop axes");
  }
  return axis;
}

void parallelizeAxis(const BoundArguments& args, ir::TensorView* tv, int64_t axis,
                     ir::ParallelType type) {
  if (!ir::isDeviceParallel(type) && type != ir::ParallelType::Serial) {
    args.failCall(
        "only device parallel types (mesh_x / DIDx) can be set "
        "from a script; " +
        std::string(ir::toString(type)) + " is chosen by FuserLab's schedulers");
  }
  tv->loop()[static_cast<size_t>(axis)]->parallelize(type);
}

void splitAxis(const BoundArguments& args, ir::TensorView* tv, int64_t axis, int64_t factor,
               bool innerSplit) {
  if (factor <= 0) {
    args.failCall("the split factor must be positive, got " + std::to_string(factor));
  }
  tv->split(axis, tv->fusion()->constInt(factor), innerSplit);
}

std::vector<int64_t> rangeOf(const BoundArguments& args, int64_t start, int64_t stop,
                             int64_t step) {
  if (step == 0) args.failCall("range() step must not be zero");
  std::vector<int64_t> out;
  constexpr size_t kMaxElements = 1 << 16;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(i);
    if (out.size() > kMaxElements) args.failCall("range() is too long");
  }
  return out;
}

Value intList(const std::vector<int64_t>& ints) {
  ValueList items;
  for (int64_t i : ints) items.push_back(Value::integer(i));
  return Value::list(std::move(items));
}

}  // namespace

std::optional<Value> callMeshBuiltin(const std::string& path, const EvaluatedCall& call) {
  if (path == "builtins.range") {
    BoundArguments args(call, {{"a", true}, {"b", false}, {"c", false}});
    if (!args.has("b")) return intList(rangeOf(args, 0, args.integer("a"), 1));
    return intList(rangeOf(args, args.integer("a"), args.integer("b"), args.integer("c", 1)));
  }
  if (path == "torch.arange") {
    BoundArguments args(call, {{"end", true}});
    return intList(rangeOf(args, 0, args.integer("end"), 1));
  }
  if (path.ends_with("DeviceMesh") || path.ends_with("_create_device_mesh")) {
    BoundArguments args(call, {{"devices", true}});
    return Value::deviceMesh(meshFrom(args, "devices"));
  }
  return std::nullopt;
}

std::optional<Value> parallelTypeAttribute(const std::string& path, const std::string& name,
                                           const SourceLocation& location) {
  if (!path.ends_with("ParallelType")) return std::nullopt;
  std::optional<ir::ParallelType> type = ir::parallelTypeFromName(name);
  if (!type) {
    throw UserError("ParallelType." + name +
                        " is not a parallel type FuserLab knows; expected "
                        "mesh_x (DIDx), mesh_y, mesh_z or serial",
                    location);
  }
  return Value::parallelType(*type);
}

Value callSchedMethod(ir::Fusion& fusion, const std::string& method, const EvaluatedCall& call) {
  if (method == "_create_device_mesh") {
    return *callMeshBuiltin("_create_device_mesh", call);
  }
  if (method == "_set_device_mesh") {
    BoundArguments args(call, {{"tensor", true}, {"mesh", true}}, &fusion);
    const Argument* mesh = args.find("mesh");
    if (!mesh->value.is(Kind::kDeviceMesh)) {
      args.failType(*mesh, "a DeviceMesh");
    }
    args.tensor("tensor")->setDeviceMesh(mesh->value.mesh());
    return Value::none();
  }
  if (method == "parallelize" || method == "_parallelize") {
    BoundArguments args(call, {{"tensor", true}, {"axis", true}, {"parallel_type", true}}, &fusion);
    ir::TensorView* tv = args.tensor("tensor");
    parallelizeAxis(args, tv, loopAxis(args, tv, "axis"), parallelTypeFrom(args, "parallel_type"));
    return Value::none();
  }
  if (method == "split") {
    BoundArguments args(
        call, {{"tensor", true}, {"axis", true}, {"factor", true}, {"inner_split", false}},
        &fusion);
    ir::TensorView* tv = args.tensor("tensor");
    splitAxis(args, tv, loopAxis(args, tv, "axis"), args.integer("factor"),
              args.boolean("inner_split", true));
    return Value::none();
  }
  if (method == "set_allocation_as_loop") {
    BoundArguments args(call, {{"tensor", true}}, &fusion);
    args.tensor("tensor")->setAllocationAsLoop();
    return Value::none();
  }
  throw UserError("fd.sched." + method +
                      " is not supported; FuserLab reads the multi-device "
                      "schedule calls _set_device_mesh, split, parallelize "
                      "and set_allocation_as_loop (other schedules are "
                      "FuserLab's own)",
                  call.location);
}

std::optional<Value> callTensorMeshMethod(ir::TensorView* tv, const std::string& method,
                                          const EvaluatedCall& call) {
  ir::Fusion& fusion = *tv->fusion();
  if (method == "set_device_mesh") {
    BoundArguments args(call, {{"mesh", true}}, &fusion);
    const Argument* mesh = args.find("mesh");
    if (!mesh->value.is(Kind::kDeviceMesh)) {
      args.failType(*mesh, "a DeviceMesh");
    }
    tv->setDeviceMesh(mesh->value.mesh());
    return Value::none();
  }
  if (method == "outer_split" || method == "inner_split") {
    BoundArguments args(call, {{"axis", true}, {"factor", true}}, &fusion);
    splitAxis(args, tv, loopAxis(args, tv, "axis"), args.integer("factor"),
              method == "inner_split");
    return Value::none();
  }
  if (method == "split") {
    BoundArguments args(call, {{"axis", true}, {"factor", true}, {"inner_split", false}}, &fusion);
    splitAxis(args, tv, loopAxis(args, tv, "axis"), args.integer("factor"),
              args.boolean("inner_split", true));
    return Value::none();
  }
  if (method == "axis") {
    BoundArguments args(call, {{"index", true}}, &fusion);
    return Value::iterDomain(tv, loopAxis(args, tv, "index"));
  }
  if (method == "set_allocation_domain" || method == "merge" || method == "reorder" ||
      method == "swizzle") {
    throw UserError(tv->name() + "." + method +
                        " is not supported; FuserLab reads set_device_mesh, "
                        "outer_split, split(axis, d, inner_split=False) and "
                        "axis(i).parallelize(ParallelType.mesh_x)",
                    call.location);
  }
  return std::nullopt;
}

Value callIterDomainMethod(const Value& axis, const std::string& method,
                           const EvaluatedCall& call) {
  auto* tv = axis.val->as<ir::TensorView>();
  if (method != "parallelize") {
    throw UserError("an IterDomain (T.axis(i)) has no method '" + method +
                        "' that FuserLab reads; expected parallelize",
                    call.location);
  }
  BoundArguments args(call, {{"parallel_type", true}}, tv->fusion());
  parallelizeAxis(args, tv, axis.intValue, parallelTypeFrom(args, "parallel_type"));
  return Value::none();
}

}  // namespace fuserlab::frontend
