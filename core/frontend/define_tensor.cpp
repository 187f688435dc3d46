#include "core/frontend/define_tensor.h"

#include <algorithm>
#include <cstddef>

#include "core/frontend/python_arithmetic.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::IterDomain;
using ir::IterType;
using Kind = Value::Kind;

// Runs `set` (setStrideOrder, setContiguity) and moves an error it raises to
// the argument it is about.
template <typename Set>
void applyAt(const BoundArguments& args, std::string_view name, Set set) {
  try {
    set();
  } catch (const UserError& error) {
    if (error.location()) throw;
    const Argument* argument = args.find(name);
    if (argument == nullptr) args.failCall(error.message());
    args.failAt(*argument, error.message());
  }
}

DataType concreteDtype(const BoundArguments& args) {
  DataType dtype = args.dtype("dtype", DataType::Float);
  if (dtype == DataType::Null) {
    args.failAt(*args.find("dtype"),
                args.callName() + " needs a concrete dtype, found DataType.Null");
  }
  return dtype;
}

void markCpuScalar(const BoundArguments& args, ir::TensorView* tv) {
  if (!args.boolean("is_cpu", false)) return;
  if (tv->rank() != 0) {
    args.failAt(*args.find("is_cpu"),
                "is_cpu=True is only for 0-dim scalar tensors (shape=[]), but "
                "this tensor has rank " +
                    std::to_string(tv->rank()));
  }
  tv->setCpuScalar(true);
}

// The contiguity of define_tensor's shape form, given in allocation order:
// one bool for every axis, or a list with None for broadcast axes (size 1, or
// expanded: see expandedAxes).
std::vector<std::optional<bool>> contiguityFlags(const BoundArguments& args,
                                                 const ir::TensorView* tv) {
  const auto& allocation = tv->maybeAllocation();
  std::vector<std::optional<bool>> flags;
  const Argument* argument = args.find("contiguity");
  const Value none;
  const Value& value = argument ? argument->value : none;
  if (value.isNone() || value.is(Kind::kBool)) {
    // nvFuser's default is non-contiguous.
    const bool all = value.is(Kind::kBool) && value.boolValue;
    for (IterDomain* id : allocation) {
      flags.push_back(id->isBroadcast() ? std::nullopt : std::optional<bool>(all));
    }
    return flags;
  }
  if (!value.isSequence()) {
    args.failType(*argument, "a bool or a list of bools and Nones");
  }
  const ValueList& items = value.items();
  if (items.size() != allocation.size()) {
    args.failAt(*argument, "contiguity has " + std::to_string(items.size()) +
                               " entries but the tensor has " + std::to_string(allocation.size()) +
                               " axes; expected one per axis, in allocation "
                               "(stride) order");
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const Value& item = items[i];
    if (item.isNone()) {
      // expandedAxes made every None axis a broadcast (expanded where its
      // size is not 1).
      FL_ASSERT(allocation[i]->isBroadcast(), "contiguity[", i, "] is None but allocation axis ",
                allocation[i]->toString(), " is not a broadcast axis");
      flags.emplace_back(std::nullopt);
    } else if (item.is(Kind::kBool)) {
      flags.emplace_back(item.boolValue);
    } else {
      args.failAt(*argument,
                  "expected True, False or None in contiguity, "
                  "found " +
                      describeKind(item) + " at index " + std::to_string(i));
    }
  }
  return flags;
}

// nvFuser's normalizeStrideOrder: a negative entry counts from the end
// (-1 is rank - 1). Entries out of range stay as they are, for setStrideOrder
// to report.
std::vector<int64_t> normalizedStrideOrder(std::vector<int64_t> order) {
  const auto rank = static_cast<int64_t>(order.size());
  for (int64_t& entry : order) {
    if (entry < 0 && entry >= -rank) entry += rank;
  }
  return order;
}

// nvFuser's getExpanded: logical axis i is an expanded broadcast when its
// contiguity (given in allocation order, at rank - 1 - stride_order[i]) is
// None and its shape is not 1; its extent is then 1 and shape[i] (-1:
// symbolic) its expanded extent. A contiguity that is not a list of the
// tensor's rank, or a stride order that is not a permutation, expands
// nothing here: contiguityFlags and setStrideOrder report them.
std::vector<bool> expandedAxes(const BoundArguments& args, const std::vector<int64_t>& shape,
                               const std::vector<int64_t>& order) {
  const size_t rank = shape.size();
  std::vector<bool> expanded(rank, false);
  const Argument* contiguity = args.find("contiguity");
  if (contiguity == nullptr || !contiguity->value.isSequence()) return expanded;
  const ValueList& items = contiguity->value.items();
  if (items.size() != rank) return expanded;
  std::vector<size_t> position(rank);
  std::vector<bool> taken(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    position[i] = i;
    if (order.size() != rank) continue;
    const int64_t entry = order[i];
    if (entry < 0 || entry >= static_cast<int64_t>(rank)) return expanded;
    position[i] = rank - 1 - static_cast<size_t>(entry);
    if (taken[position[i]]) return expanded;
    taken[position[i]] = true;
  }
  for (size_t i = 0; i < rank; ++i) {
    expanded[i] = items[position[i]].isNone() && shape[i] != 1;
  }
  return expanded;
}

// One logical axis of an input: size 1 is a broadcast axis; an expanded
// axis is a broadcast of extent 1 expanded to `size` (-1: symbolic); any
// other size an iteration axis of that extent (-1: symbolic).
IterDomain* inputAxis(ir::Fusion& fusion, int64_t size, bool expanded) {
  if (size == 1) {
    return fusion.newIterDomain(fusion.constInt(1), IterType::Broadcast);
  }
  ir::Scalar* extent = size == -1 ? fusion.newScalar(DataType::Int) : fusion.constInt(size);
  if (expanded) {
    return fusion.newIterDomain(fusion.constInt(1), IterType::Broadcast, extent);
  }
  return fusion.newIterDomain(extent, IterType::Iteration);
}

Value defineFromShape(ir::Fusion& fusion, const EvaluatedCall& given) {
  const EvaluatedCall call = renameKeyword(given, "symbolic_sizes", "shape");
  BoundArguments args(call,
                      {{"shape", true},
                       {"contiguity", false},
                       {"dtype", false},
                       {"is_cpu", false},
                       {"stride_order", false}},
                      &fusion);
  const std::vector<int64_t> shape = args.intList("shape");
  const DataType dtype = concreteDtype(args);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < -1) {
      args.failAt(*args.find("shape"), "shape[" + std::to_string(i) + "] is " +
                                           std::to_string(shape[i]) +
                                           "; expected -1 (a symbolic size), 1 (a broadcast axis) "
                                           "or a size >= 0");
    }
  }
  std::vector<int64_t> order;
  if (args.has("stride_order")) {
    order = normalizedStrideOrder(args.intList("stride_order"));
  }
  const std::vector<bool> expanded = expandedAxes(args, shape, order);
  std::vector<IterDomain*> axes;
  axes.reserve(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    axes.push_back(inputAxis(fusion, shape[i], expanded[i]));
  }
  ir::TensorView* tv = fusion.newTensorView(axes, dtype);
  // Contiguity is per allocation axis, so the stride order comes first.
  if (!order.empty()) {
    applyAt(args, "stride_order", [&] { tv->setStrideOrder(order); });
  }
  const auto flags = contiguityFlags(args, tv);
  applyAt(args, "contiguity", [&] { tv->setContiguity(flags); });
  markCpuScalar(args, tv);
  fusion.addInput(tv);
  return Value::fusionVal(tv);
}

// nvFuser's computeTensorDescriptor (python_common/python_utils.cpp): axes
// with a stride other than 0 are ordered by descending stride (ties keep their
// order), and stride-0 axes are put back at their own positions in that
// order; an axis of stride 0 or size 1 is broadcast (contiguity None), and
// another is contiguous when its stride is the next inner non-broadcast
// axis's stride times that axis's size (1 for the innermost). The sizes
// become shape entries as getTensorViewBuilderSizes makes them (-1 but for
// size 1, unless static_sizes), so a stride-0 axis of size other than 1 is an
// expanded broadcast, as getExpanded derives it.
struct TensorDescriptor {
  std::vector<std::optional<bool>> contiguity;  //!< in allocation order
  std::vector<int64_t> strideOrder;             //!< per logical axis
};

TensorDescriptor describeSizesAndStrides(const std::vector<int64_t>& sizes,
                                         const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  std::vector<size_t> order;
  std::vector<size_t> strideZero;
  for (size_t i = 0; i < rank; ++i) {
    (strides[i] != 0 ? order : strideZero).push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return strides[a] > strides[b]; });
  for (size_t axis : strideZero) {
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(axis), axis);
  }
  auto isBroadcast = [&](size_t axis) { return strides[axis] == 0 || sizes[axis] == 1; };
  TensorDescriptor descriptor;
  descriptor.contiguity.resize(rank);
  descriptor.strideOrder.resize(rank);
  for (size_t position = 0; position < rank; ++position) {
    const size_t axis = order[position];
    descriptor.strideOrder[axis] = static_cast<int64_t>(rank - 1 - position);
    if (isBroadcast(axis)) continue;
    int64_t expected = 1;
    bool overflow = false;
    for (size_t inner = position + 1; inner < rank; ++inner) {
      if (isBroadcast(order[inner])) continue;
      overflow = __builtin_mul_overflow(strides[order[inner]], sizes[order[inner]], &expected);
      break;
    }
    descriptor.contiguity[position] = !overflow && strides[axis] == expected;
  }
  return descriptor;
}

Value defineFromSizes(ir::Fusion& fusion, const EvaluatedCall& call) {
  BoundArguments args(call,
                      {{"sizes", true},
                       {"strides", true},
                       {"dtype", false},
                       {"static_sizes", false},
                       {"is_cpu", false}},
                      &fusion);
  const std::vector<int64_t> sizes = args.intList("sizes");
  const std::vector<int64_t> strides = args.intList("strides");
  const DataType dtype = concreteDtype(args);
  const bool staticSizes = args.boolean("static_sizes", false);
  const size_t rank = sizes.size();
  if (strides.size() != rank) {
    args.failAt(*args.find("strides"), "strides has " + std::to_string(strides.size()) +
                                           " entries but sizes has " + std::to_string(rank) +
                                           "; expected one stride per size");
  }
  for (size_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0) {
      args.failAt(*args.find("sizes"), "sizes[" + std::to_string(i) + "] is " +
                                           std::to_string(sizes[i]) + "; sizes must be >= 0");
    }
    if (strides[i] < 0) {
      args.failAt(*args.find("strides"), "strides[" + std::to_string(i) + "] is " +
                                             std::to_string(strides[i]) + "; strides must be >= 0");
    }
  }
  const TensorDescriptor descriptor = describeSizesAndStrides(sizes, strides);

  std::vector<IterDomain*> axes;
  axes.reserve(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t shape = staticSizes || sizes[i] == 1 ? sizes[i] : -1;
    axes.push_back(inputAxis(fusion, shape, strides[i] == 0));
  }
  ir::TensorView* tv = fusion.newTensorView(axes, dtype);
  applyAt(args, "strides", [&] {
    tv->setStrideOrder(descriptor.strideOrder);
    tv->setContiguity(descriptor.contiguity);
  });
  markCpuScalar(args, tv);
  fusion.addInput(tv);
  return Value::fusionVal(tv);
}

bool usesSizesForm(const EvaluatedCall& call) {
  for (const Argument& keyword : call.keywords) {
    if (keyword.keyword == "sizes" || keyword.keyword == "strides" ||
        keyword.keyword == "static_sizes") {
      return true;
    }
  }
  // Positionally, a second list of ints is strides (contiguity holds bools).
  if (call.positional.size() >= 2 && call.positional[1].value.isSequence()) {
    const ValueList& items = call.positional[1].value.items();
    return std::any_of(items.begin(), items.end(), [](const Value& v) { return v.is(Kind::kInt); });
  }
  return false;
}

ir::ScalarValue convertConstant(const BoundArguments& args, const Value& value, DataType dtype) {
  const Argument& argument = *args.find("value");
  if (dtype == DataType::Bool) return truthValue(value, argument.location);
  if (ir::isIntegral(dtype)) {
    if (value.is(Kind::kFloat)) {
      return truncateToInt(value.floatValue, argument.location);
    }
    return value.is(Kind::kBool) ? int64_t{value.boolValue} : value.intValue;
  }
  return value.toDouble();
}

}  // namespace

Value defineTensor(ir::Fusion& fusion, const EvaluatedCall& call) {
  return usesSizesForm(call) ? defineFromSizes(fusion, call) : defineFromShape(fusion, call);
}

Value defineScalar(ir::Fusion& fusion, const EvaluatedCall& call) {
  // define_scalar(DataType.X) is nvFuser's overload for a symbolic scalar.
  const bool dtypeOnly =
      call.positional.size() == 1 && call.positional[0].value.is(Kind::kDataType);
  std::vector<ParameterSpec> params = {{"value", false}, {"dtype", false}};
  if (dtypeOnly) params = {{"dtype", false}};
  BoundArguments args(call, params, &fusion);
  if (!args.has("value")) {
    const DataType dtype = args.dtype("dtype", DataType::Double);
    if (dtype == DataType::Null) {
      args.failAt(*args.find("dtype"),
                  "a symbolic scalar needs a concrete dtype, found "
                  "DataType.Null");
    }
    ir::Scalar* scalar = fusion.newScalar(dtype);
    fusion.addInput(scalar);
    return Value::fusionVal(scalar);
  }
  const Argument& argument = *args.find("value");
  const Value& value = argument.value;
  if (!value.isNumber()) args.failType(argument, "a number, a bool or None");
  DataType fallback = value.is(Kind::kBool)  ? DataType::Bool
                      : value.is(Kind::kInt) ? DataType::Int
                                             : DataType::Double;
  const DataType dtype = args.dtype("dtype", fallback);
  if (dtype == DataType::Null) {
    args.failAt(*args.find("dtype"), "a constant needs a concrete dtype, found DataType.Null");
  }
  return Value::fusionVal(fusion.newConstant(convertConstant(args, value, dtype), dtype));
}

Value defineVector(ir::Fusion& fusion, const EvaluatedCall& call) {
  BoundArguments args(call, {{"values", true}, {"dtype", false}}, &fusion);
  const Argument& values = *args.find("values");
  if (values.value.is(Kind::kInt)) {
    args.failAt(values,
                "define_vector(size) declares a vector input, which FuserLab "
                "does not support; give the elements instead: "
                "fd.define_vector([S0, 128, T0.size(1)], dtype=DataType.Int)");
  }
  const DataType dtype = args.dtype("dtype", DataType::Int);
  if (!ir::isIntegral(dtype)) {
    args.failAt(*args.find("dtype"),
                "define_vector makes vectors of integers (sizes); found "
                "DataType." +
                    std::string(ir::toString(dtype)));
  }
  ValueList elements;
  for (ir::Scalar* scalar : args.sizeList("values")) {
    if (!ir::isIntegral(scalar->dtype())) {
      args.failAt(values, "define_vector: element " + std::to_string(elements.size()) + " (" +
                              scalar->name() + ") is " +
                              std::string(ir::toString(scalar->dtype())) +
                              "; expected integer scalars");
    }
    elements.push_back(Value::fusionVal(scalar));
  }
  return Value::list(std::move(elements));
}

}  // namespace fuserlab::frontend
