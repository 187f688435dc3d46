#include "core/frontend/torch_tensors.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/frontend/inputs_block.h"
#include "core/frontend/python_values.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

// Methods that give the same tensor description (values are random anyway).
constexpr std::string_view kTorchSameTensorMethods[] = {"clone", "detach", "requires_grad_",
                                                        "pin_memory"};

}  // namespace

std::vector<int64_t> torchSizes(const InputSpec& spec) {
  return spec.stridedSizes ? *spec.stridedSizes : spec.sizes;
}

std::vector<int64_t> torchStrides(const InputSpec& spec) {
  if (spec.stridedStrides) return *spec.stridedStrides;
  std::vector<int64_t> strides(spec.sizes.size(), 1);
  for (size_t i = spec.sizes.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * std::max<int64_t>(spec.sizes[i], 1);
  }
  return strides;
}

std::optional<Value> torchTensorAttribute(const InputSpec& spec, const std::string& name) {
  const std::vector<int64_t> sizes = torchSizes(spec);
  if (name == "shape") {
    ValueList items;
    for (int64_t size : sizes) items.push_back(Value::integer(size));
    return Value::tuple(std::move(items));
  }
  if (name == "dtype") return Value::torchDtype(spec.dtype);
  if (name == "ndim") return Value::integer(static_cast<int64_t>(sizes.size()));
  if (name == "device") return Value::string(spec.device);
  if (name == "is_cuda") return Value::boolean(spec.device.starts_with("cuda"));
  if (name == "is_cpu") return Value::boolean(!spec.device.starts_with("cuda"));
  return std::nullopt;
}

std::optional<Value> callTorchTensorQuery(const InputSpec& spec, const std::string& method,
                                          const EvaluatedCall& call) {
  const std::vector<int64_t> sizes = torchSizes(spec);
  const std::vector<int64_t> strides = torchStrides(spec);
  auto pick = [&](const std::vector<int64_t>& values) -> Value {
    BoundArguments args(call, {{"dim", false}});
    if (!args.has("dim")) {
      ValueList items;
      for (int64_t v : values) items.push_back(Value::integer(v));
      return Value::tuple(std::move(items));
    }
    const auto rank = static_cast<int64_t>(values.size());
    int64_t dim = args.integer("dim");
    if (dim < -rank || dim >= rank) {
      args.failAt(*args.find("dim"), "dimension " + std::to_string(dim) +
                                         " is out of range for a tensor of "
                                         "rank " +
                                         std::to_string(rank));
    }
    return Value::integer(values[static_cast<size_t>(dim < 0 ? dim + rank : dim)]);
  };
  if (method == "size") return pick(sizes);
  if (method == "stride") return pick(strides);
  if (method == "dim" || method == "ndimension") {
    BoundArguments args(call, {});
    return Value::integer(static_cast<int64_t>(sizes.size()));
  }
  if (method == "numel") {
    BoundArguments args(call, {});
    int64_t count = 1;
    for (int64_t size : sizes) count *= size;
    return Value::integer(count);
  }
  if (method == "is_contiguous") {
    BoundArguments args(call, {{"memory_format", false}});
    int64_t expected = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] != 1 && strides[i] != expected) return Value::boolean(false);
      expected *= sizes[i];
    }
    return Value::boolean(true);
  }
  if (method == "element_size") {
    BoundArguments args(call, {});
    return Value::integer(static_cast<int64_t>(ir::sizeInBytes(spec.dtype)));
  }
  return std::nullopt;
}

// Torch methods that view or convert an input tensor the script made:
// a new description with the view's sizes and strides over the same
// storage, or another dtype or device. Nullopt for anything else (the
// script's eager reference computations).
std::optional<Value> torchTensorView(std::vector<InputSpec>& specs, const Value& receiver,
                                     const std::string& name, const EvaluatedCall& call) {
  InputSpec copy = specs.at(static_cast<size_t>(receiver.intValue));
  std::vector<int64_t> sizes = torchSizes(copy);
  std::vector<int64_t> strides = torchStrides(copy);
  const auto rank = static_cast<int64_t>(sizes.size());
  auto axis = [&](const BoundArguments& args, std::string_view param, int64_t extra = 0) {
    int64_t dim = args.integer(param);
    if (dim < -(rank + extra) || dim >= rank + extra) {
      args.failAt(*args.find(param), "dimension " + std::to_string(dim) +
                                         " is out of range for a tensor "
                                         "of rank " +
                                         std::to_string(rank));
    }
    return static_cast<size_t>(dim < 0 ? dim + rank + extra : dim);
  };
  auto result = [&](std::vector<int64_t> newSizes, std::vector<int64_t> newStrides) {
    copy.stridedSizes = std::move(newSizes);
    copy.stridedStrides = std::move(newStrides);
    specs.push_back(copy);
    return Value::inputTensor(specs.size() - 1);
  };
  if (std::find(std::begin(kTorchSameTensorMethods), std::end(kTorchSameTensorMethods), name) !=
      std::end(kTorchSameTensorMethods)) {
    return receiver;
  }
  static const std::map<std::string, ir::DataType, std::less<>> kCasts = {
      {"float", ir::DataType::Float},       {"half", ir::DataType::Half},
      {"bfloat16", ir::DataType::BFloat16}, {"double", ir::DataType::Double},
      {"long", ir::DataType::Int},          {"int", ir::DataType::Int32},
      {"bool", ir::DataType::Bool}};
  if (auto cast = kCasts.find(name); cast != kCasts.end()) {
    BoundArguments args(call, {});
    copy.dtype = cast->second;
    specs.push_back(copy);
    return Value::inputTensor(specs.size() - 1);
  }
  if (name == "contiguous") {
    BoundArguments args(call, {{"memory_format", false}});
    copy.sizes = sizes;  // a fresh dense tensor of the view's sizes
    copy.stridedSizes.reset();
    copy.stridedStrides.reset();
    copy.stridedOffset = 0;
    specs.push_back(copy);
    return Value::inputTensor(specs.size() - 1);
  }
  if (name == "to") {
    for (const auto* arguments : {&call.positional, &call.keywords}) {
      for (const Argument& argument : *arguments) {
        if (argument.value.is(Kind::kTorchDtype)) {
          copy.dtype = argument.value.dtype;
        } else if (argument.value.is(Kind::kString)) {
          copy.device = argument.value.text;
        }
      }
    }
    specs.push_back(copy);
    return Value::inputTensor(specs.size() - 1);
  }
  if (name == "t" || name == "transpose") {
    size_t a = 0;
    size_t b = 1;
    if (name == "transpose") {
      BoundArguments args(call, {{"dim0", true}, {"dim1", true}});
      a = axis(args, "dim0");
      b = axis(args, "dim1");
    } else {
      BoundArguments args(call, {});
      if (rank < 2) return receiver;
    }
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
    return result(std::move(sizes), std::move(strides));
  }
  if (name == "permute") {
    std::vector<int64_t> order;
    for (const Argument& argument : call.positional) {
      if (argument.value.isSequence()) {
        for (const Value& v : argument.value.items()) order.push_back(v.intValue);
      } else {
        order.push_back(argument.value.intValue);
      }
    }
    if (static_cast<int64_t>(order.size()) != rank) {
      throw UserError("permute needs " + std::to_string(rank) + " dimensions, found " +
                          std::to_string(order.size()),
                      call.location);
    }
    std::vector<int64_t> newSizes;
    std::vector<int64_t> newStrides;
    std::vector<bool> used(sizes.size(), false);
    for (int64_t dim : order) {
      const int64_t d = dim < 0 ? dim + rank : dim;
      if (d < 0 || d >= rank || used[static_cast<size_t>(d)]) {
        throw UserError(
            "permute's dimensions must be a permutation of 0.." + std::to_string(rank - 1),
            call.location);
      }
      used[static_cast<size_t>(d)] = true;
      newSizes.push_back(sizes[static_cast<size_t>(d)]);
      newStrides.push_back(strides[static_cast<size_t>(d)]);
    }
    return result(std::move(newSizes), std::move(newStrides));
  }
  if (name == "reshape" || name == "view") {
    // Of a dense tensor only: a view of it in the new sizes, as torch gives.
    int64_t expected = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] != 1 && strides[i] != expected) return std::nullopt;
      expected *= sizes[i];
    }
    std::vector<int64_t> shape;
    for (const Argument& argument : call.positional) {
      if (argument.value.isSequence()) {
        for (const Value& v : argument.value.items()) shape.push_back(v.intValue);
      } else if (argument.value.is(Kind::kInt)) {
        shape.push_back(argument.value.intValue);
      } else {
        return std::nullopt;  // view(dtype): not a shape
      }
    }
    int64_t known = 1;
    int64_t inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1 && inferred < 0) {
        inferred = static_cast<int64_t>(i);
      } else if (shape[i] < 0) {
        throw UserError(name + ": size " + std::to_string(shape[i]) + " is invalid", call.location);
      } else {
        known *= shape[i];
      }
    }
    if (inferred >= 0 && known > 0) shape[static_cast<size_t>(inferred)] = expected / known;
    int64_t count = 1;
    for (int64_t size : shape) count *= size;
    if (count != expected) {
      throw UserError(name + ": a tensor of " + std::to_string(expected) +
                          " elements cannot be viewed as " + std::to_string(count),
                      call.location);
    }
    std::vector<int64_t> dense(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) {
      dense[i - 1] = dense[i] * std::max<int64_t>(shape[i], 1);
    }
    return result(std::move(shape), std::move(dense));
  }
  if (name == "unsqueeze") {
    BoundArguments args(call, {{"dim", true}});
    const size_t at = axis(args, "dim", 1);
    const int64_t stride = at < strides.size() ? strides[at] * sizes[at] : 1;
    sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(at), 1);
    strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(at), stride);
    return result(std::move(sizes), std::move(strides));
  }
  return std::nullopt;
}

// torch.tensor(number) or torch.tensor([n, n, ...]) of one repeated
// value: a 0-dim (or 1-D) tensor filled with it.
Value torchTensorLiteral(std::vector<InputSpec>& specs, const NameTable& globals,
                         const EvaluatedCall& call) {
  BoundArguments args(call, {{"data", true},
                             {"dtype", false},
                             {"device", false},
                             {"requires_grad", false},
                             {"pin_memory", false}});
  const Argument& data = *args.find("data");
  // Sizes from the nesting, values in row-major order, as torch reads them.
  InputSpec spec;
  spec.location = call.location;
  std::vector<double> values;
  bool anyFloat = false;
  bool allBool = true;
  std::function<void(const Value&, size_t)> walk = [&](const Value& v, size_t depth) {
    if (v.isNumber()) {
      if (depth != spec.sizes.size()) {
        args.failAt(data, "torch.tensor: the nested lists are not rectangular");
      }
      anyFloat = anyFloat || v.is(Kind::kFloat);
      allBool = allBool && v.is(Kind::kBool);
      values.push_back(v.toDouble());
      checkSequenceSize(values.size(), data.location);
      return;
    }
    if (!v.isSequence()) {
      args.failAt(
          data, "torch.tensor reads numbers and nested lists of numbers, found " + describeKind(v));
    }
    if (depth > 16) args.failAt(data, "torch.tensor: lists nested more than 16 deep");
    const auto count = static_cast<int64_t>(v.items().size());
    if (depth == spec.sizes.size()) {
      if (!values.empty()) {
        args.failAt(data, "torch.tensor: the nested lists are not rectangular");
      }
      spec.sizes.push_back(count);
    } else if (depth > spec.sizes.size() || spec.sizes[depth] != count) {
      args.failAt(data, "torch.tensor: the nested lists are not rectangular");
    }
    for (const Value& item : v.items()) walk(item, depth + 1);
  };
  walk(data.value, 0);
  int64_t expected = 1;
  for (int64_t size : spec.sizes) expected *= size;
  if (static_cast<int64_t>(values.size()) != expected) {
    args.failAt(data, "torch.tensor: the nested lists are not rectangular");
  }
  spec.dtype = anyFloat                     ? ir::DataType::Float
               : allBool && !values.empty() ? ir::DataType::Bool
                                            : ir::DataType::Int;
  if (args.has("dtype")) {
    const Argument& dtype = *args.find("dtype");
    if (!dtype.value.is(Kind::kTorchDtype)) args.failType(dtype, "a torch dtype");
    spec.dtype = dtype.value.dtype;
  }
  if (args.has("device")) {
    const Argument& device = *args.find("device");
    spec.device = device.value.is(Kind::kString) ? device.value.text
                                                 : "cuda:" + std::to_string(device.value.intValue);
  }
  spec.initializer = runtime::TensorInitializer::values(std::move(values));
  specs.push_back(std::move(spec));
  return Value::inputTensor(specs.size() - 1);
}

Value arangeDeviceIds(const InputSpec& spec, const SourceLocation& at) {
  if (spec.initializer.kind != runtime::TensorInitializer::Kind::Arange || spec.sizes.size() != 1) {
    throw UserError("expected a list of device ids or torch.arange(n)", at);
  }
  ValueList ids;
  const double start = spec.initializer.start.value_or(0);
  const double step = spec.initializer.step.value_or(1);
  for (int64_t i = 0; i < spec.sizes[0]; ++i) {
    ids.push_back(Value::integer(static_cast<int64_t>(start + step * i)));
  }
  return Value::list(std::move(ids));
}

std::optional<Value> torchTensorIndex(std::vector<InputSpec>& specs, const Value& tensor,
                                      const Value& index, const SourceLocation& location) {
  InputSpec copy = specs.at(static_cast<size_t>(tensor.intValue));
  const std::vector<int64_t> sizes = torchSizes(copy);
  const std::vector<int64_t> strides = torchStrides(copy);
  const ValueList parts = index.is(Kind::kTuple) ? index.items() : ValueList{index};
  if (parts.size() > sizes.size()) {
    throw UserError("too many indices for a tensor of rank " + std::to_string(sizes.size()),
                    location);
  }
  std::vector<int64_t> newSizes;
  std::vector<int64_t> newStrides;
  int64_t offset = copy.stridedOffset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t size = sizes[d];
    if (d >= parts.size()) {
      newSizes.push_back(size);
      newStrides.push_back(strides[d]);
      continue;
    }
    const Value& part = parts[d];
    if (part.is(Kind::kInt)) {
      int64_t i = part.intValue < 0 ? part.intValue + size : part.intValue;
      if (i < 0 || i >= size) {
        throw UserError("index " + std::to_string(part.intValue) + " is out of range for axis " +
                            std::to_string(d) + " of size " + std::to_string(size),
                        location);
      }
      offset += i * strides[d];
      continue;  // an int index drops the axis
    }
    if (!part.is(Kind::kSlice)) return std::nullopt;
    const ValueList& bounds = *part.elements;
    auto bound = [&](const Value& v, int64_t fallback) {
      if (v.isNone()) return fallback;
      if (!v.is(Kind::kInt)) {
        throw UserError("slice indices of a tensor must be ints", location);
      }
      int64_t x = v.intValue < 0 ? v.intValue + size : v.intValue;
      return std::clamp<int64_t>(x, 0, size);
    };
    const int64_t step = bounds[2].isNone() ? 1 : bounds[2].intValue;
    if (step <= 0) throw UserError("a tensor slice's step must be positive", location);
    const int64_t start = bound(bounds[0], 0);
    const int64_t stop = std::max(start, bound(bounds[1], size));
    newSizes.push_back((stop - start + step - 1) / step);
    newStrides.push_back(strides[d] * step);
    offset += start * strides[d];
  }
  copy.stridedSizes = std::move(newSizes);
  copy.stridedStrides = std::move(newStrides);
  copy.stridedOffset = offset;
  specs.push_back(std::move(copy));
  return Value::inputTensor(specs.size() - 1);
}

}  // namespace fuserlab::frontend
