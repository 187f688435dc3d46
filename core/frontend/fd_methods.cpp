#include "core/frontend/fd_methods.h"

#include <algorithm>
#include <array>

#include "core/frontend/define_tensor.h"
#include "core/frontend/fd_ops.h"
#include "core/frontend/multidevice_calls.h"
#include "core/frontend/torch_tensors.h"
#include "core/ir/printer.h"
#include "core/ops/alias.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

// fd.add_output(T), fd.add_output(T, alias_input=I) and
// fd.add_output(T, stride_order=[...]).
void addOutput(ir::Fusion& fusion, const EvaluatedCall& call) {
  const bool orderSecond = call.positional.size() >= 2 && call.positional[1].value.isSequence();
  std::vector<ParameterSpec> params = {
      {"output", true}, {"alias_input", false}, {"stride_order", false}};
  if (orderSecond) {
    params = {{"output", true}, {"stride_order", false}, {"alias_input", false}};
  }
  BoundArguments args(call, params, &fusion);
  const Argument& output = *args.find("output");
  if (!output.value.isFusionVal()) {
    args.failType(output, "a tensor or a scalar");
  }
  ir::Val* val = output.value.val;
  if (val->fusion() != &fusion) {
    args.failAt(output, val->name() + " belongs to another FusionDefinition");
  }
  ir::Val* alias = nullptr;
  if (args.has("alias_input")) {
    alias = args.tensor("alias_input");
    if (!fusion.isInput(alias)) {
      args.failAt(*args.find("alias_input"),
                  "alias_input " + alias->name() + " must be a fusion input (a define_tensor)");
    }
  }
  std::vector<int64_t> order;
  if (args.has("stride_order")) order = args.intList("stride_order");
  if (!order.empty()) {
    if (alias != nullptr) {
      args.failCall(call.name + " takes either alias_input or stride_order, not both");
    }
    ir::TensorView* tv = args.tensor("output");
    // Inputs keep their layout and an output keeps the one it was given;
    // a copy carries the new one.
    if (tv->isFusionInput() || tv->isFusionOutput() ||
        tv->logical().size() != static_cast<size_t>(tv->rank())) {
      tv = ops::set(tv);
    }
    try {
      tv->setStrideOrder(order);
    } catch (const UserError& error) {
      if (error.location()) throw;
      args.failAt(*args.find("stride_order"), error.message());
    }
    val = tv;
  }
  fusion.addOutput(val, alias);
}

// nvfuser_direct's fd.define_vector(size): `size` symbolic integer scalars,
// each a fusion input.
Value defineSymbolicVector(ir::Fusion& fusion, const EvaluatedCall& call) {
  BoundArguments args(call, {{"size", true}, {"dtype", false}}, &fusion);
  const int64_t size = args.integer("size");
  if (size < 0 || size > 64) {
    args.failAt(*args.find("size"),
                "define_vector(size) takes a size from 0 "
                "to 64, found " +
                    std::to_string(size));
  }
  const ir::DataType dtype = args.dtype("dtype", ir::DataType::Int);
  if (!ir::isIntegral(dtype)) {
    args.failAt(*args.find("dtype"),
                "define_vector makes vectors of integers (sizes); found "
                "DataType." +
                    std::string(ir::toString(dtype)));
  }
  ValueList elements;
  for (int64_t i = 0; i < size; ++i) {
    ir::Scalar* scalar = fusion.newScalar(dtype);
    fusion.addInput(scalar);
    elements.push_back(Value::fusionVal(scalar));
  }
  return Value::list(std::move(elements));
}

// fd.from_pytorch(t): define_tensor with t's sizes, strides and dtype, as
// nvFuser derives them (an expanded axis has stride 0).
Value fromPytorch(ir::Fusion& fusion, const EvaluatedCall& call,
                  const std::vector<InputSpec>& specs) {
  BoundArguments args(call, {{"tensor", true}, {"static_sizes", false}}, &fusion);
  const Argument& tensor = *args.find("tensor");
  if (!tensor.value.is(Kind::kInputTensor)) {
    args.failType(tensor, "a torch tensor (e.g. inputs[0])");
  }
  const InputSpec& spec = specs.at(static_cast<size_t>(tensor.value.intValue));
  auto intList = [](const std::vector<int64_t>& ints) {
    ValueList items;
    for (int64_t i : ints) items.push_back(Value::integer(i));
    return Value::list(std::move(items));
  };
  const std::vector<int64_t> sizes = torchSizes(spec);
  EvaluatedCall define;
  define.name = "fd.from_pytorch";
  define.location = call.location;
  auto keyword = [&](const char* name, Value value) {
    define.keywords.push_back(Argument{std::move(value), tensor.location, name, tensor.location});
  };
  keyword("sizes", intList(sizes));
  keyword("strides", intList(torchStrides(spec)));
  keyword("dtype", Value::dataType(spec.dtype));
  keyword("static_sizes", Value::boolean(args.boolean("static_sizes", false)));
  // A CPU tensor reaches a fusion only as a 0-dim scalar; FuserLab's inputs
  // default to the CPU device, so only a 0-dim one is marked.
  keyword("is_cpu", Value::boolean(sizes.empty() && spec.device == "cpu"));
  return defineTensor(fusion, define);
}

constexpr std::array<std::string_view, 14> kRunOnlyMethods = {"execute",
                                                              "validate",
                                                              "last_repro_script",
                                                              "repro_script_for",
                                                              "fusion_ir",
                                                              "last_cuda_code",
                                                              "cuda_code_for",
                                                              "print_ir",
                                                              "print_kernel",
                                                              "last_scheduled_fusion_ir",
                                                              "scheduled_fusion_ir_for",
                                                              "manual_execute",
                                                              "debug_output",
                                                              "profile"};

constexpr std::array<std::string_view, 12> kTensorMethods = {
    "size",  "shape",    "set_device_mesh",       "outer_split", "inner_split",
    "split", "axis",     "set_allocation_domain", "merge",       "reorder",
    "dtype", "is_tensor"};

}  // namespace

std::optional<Value> callFdMethod(ir::Fusion& fusion, const std::string& method,
                                  const EvaluatedCall& call, const std::vector<InputSpec>& specs) {
  if (method == "define_tensor") return defineTensor(fusion, call);
  if (method == "define_scalar" || method == "define_constant") {
    return defineScalar(fusion, call);
  }
  if (method == "define_vector") {
    const bool sizeOnly = (!call.positional.empty() && call.positional[0].value.is(Kind::kInt)) ||
                          std::any_of(call.keywords.begin(), call.keywords.end(),
                                      [](const Argument& a) { return a.keyword == "size"; });
    return sizeOnly ? defineSymbolicVector(fusion, call) : defineVector(fusion, call);
  }
  if (method == "from_pytorch") return fromPytorch(fusion, call, specs);
  if (method == "add_output") {
    addOutput(fusion, call);
    return Value::none();
  }
  return std::nullopt;
}

bool isRunOnlyFdMethod(const std::string& method) {
  return std::find(kRunOnlyMethods.begin(), kRunOnlyMethods.end(), method) != kRunOnlyMethods.end();
}

Value callFusionHandleMethod(ir::Fusion& fusion, const std::string& method,
                             const EvaluatedCall& call) {
  BoundArguments args(call, {}, &fusion);
  ValueList tensors;
  if (method == "inputs") {
    for (ir::Val* val : fusion.inputs()) {
      if (val->isA<ir::TensorView>()) tensors.push_back(Value::fusionVal(val));
    }
  } else if (method == "outputs") {
    for (ir::Val* val : fusion.outputVals()) {
      if (val->isA<ir::TensorView>()) tensors.push_back(Value::fusionVal(val));
    }
  } else if (method == "print_math") {
    // nvFuser's printout of the fusion's math; FuserLab's IR printer writes
    // the same notation (T0_g_float[iS0{i0}], one expr per statement).
    return Value::string(ir::printFusionIr(fusion));
  } else {
    throw UserError(
        "fd.fusion." + method + " is not supported; expected inputs(), outputs() or print_math()",
        call.location);
  }
  return Value::list(std::move(tensors));
}

bool isTensorMethod(const std::string& name) {
  return std::find(kTensorMethods.begin(), kTensorMethods.end(), name) != kTensorMethods.end();
}

std::optional<Value> tensorAttribute(ir::TensorView* tv, const std::string& name) {
  if (name == "ndim") return Value::integer(tv->rank());
  return std::nullopt;
}

Value callTensorMethod(ir::TensorView* tv, const std::string& method, const EvaluatedCall& call) {
  if (method == "size") {
    BoundArguments args(call, {{"dim", true}}, tv->fusion());
    return extentOf(tv, args.integer("dim"));
  }
  if (std::optional<Value> value = callTensorMeshMethod(tv, method, call)) {
    return *value;
  }
  if (method == "shape") {
    BoundArguments args(call, {}, tv->fusion());
    return shapeOf(tv);
  }
  if (method == "is_tensor") {  // nvfuser_direct's Val.is_tensor()
    BoundArguments args(call, {}, tv->fusion());
    return Value::boolean(true);
  }
  if (method == "dtype") {  // nvfuser_direct: a method, as tv.shape()
    BoundArguments args(call, {}, tv->fusion());
    return Value::dataType(tv->dtype());
  }
  throw UserError("the tensor method " + method + " is not supported", call.location);
}

}  // namespace fuserlab::frontend
