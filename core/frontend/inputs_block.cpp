#include "core/frontend/inputs_block.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/ir/size_limits.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::kMaxTensorElements;
using runtime::TensorInitializer;
using Kind = Value::Kind;

constexpr std::string_view kSupported =
    "torch.randn, torch.rand, torch.randint, torch.ones, torch.zeros, "
    "torch.empty, torch.empty_strided, torch.full, torch.arange or "
    "torch.testing.make_tensor, optionally followed by .as_strided(size, "
    "stride[, storage_offset]) or .expand(*sizes) (or torch.as_strided, "
    "torch.nn.Parameter of one)";

// Keyword arguments every constructor accepts besides its own.
constexpr std::array<std::string_view, 5> kCommonKeywords = {"dtype", "device", "requires_grad",
                                                             "pin_memory", "layout"};

// A copy of `call` without its positional arguments, for constructors that
// take their sizes as *args (torch.randn(2, 3) and torch.randn((2, 3))).
EvaluatedCall keywordsOnly(const EvaluatedCall& call) {
  EvaluatedCall copy;
  copy.name = call.name;
  copy.location = call.location;
  copy.keywords = call.keywords;
  return copy;
}

std::vector<ParameterSpec> withCommonKeywords(std::vector<ParameterSpec> params) {
  for (std::string_view keyword : kCommonKeywords) {
    params.push_back({keyword, false});
  }
  return params;
}

std::string sizesText(const std::vector<int64_t>& sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? " x " : "") + std::to_string(sizes[i]);
  return text;
}

// Sizes (or strides) of an entry: none negative, and for sizes, at most
// kMaxTensorElements elements in all.
void checkSizes(const BoundArguments& args, const Argument& at, const std::vector<int64_t>& sizes,
                std::string_view what) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      args.failAt(at, std::string(what) + "[" + std::to_string(i) + "] is " +
                          std::to_string(sizes[i]) + "; expected a size >= 0");
    }
  }
  if (what != "size" || std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return;
  int64_t count = 1;
  for (int64_t size : sizes) {
    if (count > kMaxTensorElements / size) {
      args.failAt(at, "a tensor of " + sizesText(sizes) + " elements is more than 2^48 (" +
                          std::to_string(kMaxTensorElements) + "); no GPU holds one");
    }
    count *= size;
  }
}

int64_t elementCount(const std::vector<int64_t>& sizes) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;  // checkSizes bounded the product
  return count;
}

// The sizes of a *size constructor: ints as separate arguments, one list or
// tuple of ints, or the `size=` keyword.
std::vector<int64_t> varargSizes(const EvaluatedCall& call, const BoundArguments& args) {
  if (call.positional.empty()) {
    if (!args.has("size")) {
      args.failCall(call.name + " needs a size, e.g. " + call.name + "(2, 3) or " + call.name +
                    "((2, 3))");
    }
    std::vector<int64_t> sizes = args.intList("size");
    checkSizes(args, *args.find("size"), sizes, "size");
    return sizes;
  }
  if (args.find("size") != nullptr) {
    args.failAt(*args.find("size"), call.name + " got its size both as arguments and as size=");
  }
  std::vector<int64_t> sizes;
  if (call.positional.size() == 1 && call.positional[0].value.isSequence()) {
    const Argument& only = call.positional[0];
    for (const Value& element : only.value.items()) {
      if (!element.is(Kind::kInt)) {
        args.failAt(only, "expected a tuple of ints as the size of " + call.name + ", found " +
                              describeKind(only.value) + " containing " + describeKind(element));
      }
      sizes.push_back(element.intValue);
    }
    checkSizes(args, only, sizes, "size");
    return sizes;
  }
  for (const Argument& argument : call.positional) {
    if (!argument.value.is(Kind::kInt)) {
      args.failAt(argument, "expected an int size for " + call.name + ", found " +
                                describeKind(argument.value));
    }
    if (argument.value.intValue < 0) {
      args.failAt(argument, "size " + std::to_string(argument.value.intValue) + " of " + call.name +
                                " is negative; expected a size >= 0");
    }
    sizes.push_back(argument.value.intValue);
  }
  checkSizes(args, call.positional.back(), sizes, "size");
  return sizes;
}

class InputsReader : public ExpressionEvaluator {
 public:
  InputsReader(const NameTable& globals, std::vector<InputSpec>& specs)
      : ExpressionEvaluator(globals), specs_(specs) {}

  //! A torch call (constructor, tensor method) outside a literal block.
  Value callTorch(const Value& callee, const EvaluatedCall& call) {
    return callValue(callee, call);
  }

  const InputSpec& spec(const Value& value) const {
    return specs_.at(static_cast<size_t>(value.intValue));
  }

 protected:
  Value attributeOf(const Value& object, const Attribute& attribute, const Expr& expr) override {
    if (object.is(Kind::kInputTensor)) {
      return Value::method(object, attribute.name);
    }
    return ExpressionEvaluator::attributeOf(object, attribute, expr);
  }

  Value callValue(const Value& callee, const EvaluatedCall& call) override {
    if (callee.is(Kind::kNamespace)) return construct(callee.text, call);
    if (callee.is(Kind::kMethod) && callee.receiver && callee.receiver->is(Kind::kInputTensor)) {
      InputSpec copy = spec(*callee.receiver);
      if (callee.text == "as_strided") return asStrided(std::move(copy), call);
      if (callee.text == "expand") return expand(std::move(copy), call);
      if (callee.text == "cuda") {
        BoundArguments args(call, {{"device", false}, {"non_blocking", false}});
        copy.device = "cuda:" + std::to_string(args.integer("device", 0));
        return add(std::move(copy));
      }
    }
    throw UserError(call.name +
                        " is not supported in the inputs block; "
                        "expected " +
                        std::string(kSupported),
                    call.location);
  }

 private:
  Value add(InputSpec spec) {
    specs_.push_back(std::move(spec));
    return Value::inputTensor(specs_.size() - 1);
  }

  // The dtype= and device= keywords, with `fallback` as the dtype.
  void readCommon(const BoundArguments& args, InputSpec& spec, DataType fallback) {
    spec.dtype = fallback;
    if (args.has("dtype")) {
      const Argument& dtype = *args.find("dtype");
      if (!dtype.value.is(Kind::kTorchDtype)) {
        args.failType(dtype, "a torch dtype (e.g. torch.float32)");
      }
      spec.dtype = dtype.value.dtype;
    }
    if (args.has("device")) {
      const Argument& device = *args.find("device");
      if (device.value.is(Kind::kString)) {
        spec.device = device.value.text;
      } else if (device.value.is(Kind::kInt)) {
        spec.device = "cuda:" + std::to_string(device.value.intValue);
      } else {
        args.failType(device, "a device such as 'cuda:0'");
      }
    }
    args.boolean("requires_grad", false);
  }

  Value construct(const std::string& path, const EvaluatedCall& call) {
    InputSpec spec;
    spec.location = call.location;
    if (path == "torch.device") {
      BoundArguments args(call, {{"type", true}, {"index", false}});
      const Argument& type = *args.find("type");
      if (!type.value.is(Kind::kString)) args.failType(type, "a string");
      std::string device = type.value.text;
      if (args.has("index")) device += ":" + std::to_string(args.integer("index"));
      return Value::string(device);
    }
    if (path == "torch.randn" || path == "torch.rand" || path == "torch.ones" ||
        path == "torch.zeros") {
      EvaluatedCall keywords = keywordsOnly(call);
      BoundArguments args(keywords, withCommonKeywords({{"size", false}}));
      spec.sizes = varargSizes(call, args);
      readCommon(args, spec, DataType::Float);
      spec.initializer = path == "torch.randn"  ? TensorInitializer::randn()
                         : path == "torch.rand" ? TensorInitializer::rand()
                         : path == "torch.ones" ? TensorInitializer::ones()
                                                : TensorInitializer::zeros();
      return add(std::move(spec));
    }
    if (path == "torch.empty") {
      // torch.empty's values are whatever its memory held: they are filled
      // as torch.testing.make_tensor fills a tensor (random, of its dtype).
      EvaluatedCall keywords = keywordsOnly(call);
      BoundArguments args(keywords,
                          withCommonKeywords({{"size", false}, {"memory_format", false}}));
      spec.sizes = varargSizes(call, args);
      readCommon(args, spec, DataType::Float);
      spec.initializer = TensorInitializer::makeTensor();
      return add(std::move(spec));
    }
    if (path == "torch.empty_strided") {
      // The storage its strides reach, filled as torch.empty's, viewed.
      BoundArguments args(call, withCommonKeywords({{"size", true}, {"stride", true}}));
      const std::vector<int64_t> sizes = args.intList("size");
      const std::vector<int64_t> strides = args.intList("stride");
      checkSizes(args, *args.find("size"), sizes, "size");
      checkSizes(args, *args.find("stride"), strides, "stride");
      readCommon(args, spec, DataType::Float);
      spec.initializer = TensorInitializer::makeTensor();
      int64_t storage = 1;
      for (size_t i = 0; i < sizes.size() && i < strides.size(); ++i) {
        if (sizes[i] == 0) storage = 0;
        if (storage > 0) storage += (sizes[i] - 1) * strides[i];
      }
      spec.sizes = {storage};
      EvaluatedCall view;
      view.name = "torch.empty_strided";
      view.location = call.location;
      view.positional = {*args.find("size"), *args.find("stride")};
      return asStrided(std::move(spec), view);
    }
    if (path == "torch.as_strided") {
      // torch.as_strided(input, size, stride[, storage_offset]): the method.
      if (call.positional.empty() || !call.positional[0].value.is(Kind::kInputTensor)) {
        throw UserError("torch.as_strided takes a tensor of the inputs block first", call.location);
      }
      EvaluatedCall rest = call;
      rest.positional.erase(rest.positional.begin());
      return asStrided(this->spec(call.positional[0].value), rest);
    }
    if (path == "torch.nn.Parameter" || path == "torch.nn.parameter.Parameter") {
      // A parameter is its data (requires_grad does not change the values).
      BoundArguments args(call, {{"data", true}, {"requires_grad", false}});
      const Argument& data = *args.find("data");
      if (!data.value.is(Kind::kInputTensor)) args.failType(data, "a tensor of the inputs block");
      args.boolean("requires_grad", true);
      return data.value;
    }
    if (path == "torch.testing.make_tensor") {
      EvaluatedCall keywords = keywordsOnly(call);
      BoundArguments args(keywords, withCommonKeywords({{"size", false},
                                                        {"low", false},
                                                        {"high", false},
                                                        {"noncontiguous", false},
                                                        {"exclude_zero", false},
                                                        {"memory_format", false}}));
      spec.sizes = varargSizes(call, args);
      readCommon(args, spec, DataType::Float);
      std::optional<double> low;
      std::optional<double> high;
      if (args.has("low")) low = args.number("low", 0.0);
      if (args.has("high")) high = args.number("high", 0.0);
      spec.initializer = TensorInitializer::makeTensor(low, high);
      return add(std::move(spec));
    }
    if (path == "torch.randint") {
      std::vector<ParameterSpec> params = {{"high", true}, {"size", true}, {"low", false}};
      if (call.positional.size() >= 3) {
        params = {{"low", false}, {"high", true}, {"size", true}};
      }
      BoundArguments args(call, withCommonKeywords(params));
      spec.sizes = args.intList("size");
      checkSizes(args, *args.find("size"), spec.sizes, "size");
      readCommon(args, spec, DataType::Int);
      const int64_t low = args.integer("low", 0);
      const int64_t high = args.integer("high");
      if (high <= low) {
        args.failAt(*args.find("high"), "torch.randint: high (" + std::to_string(high) +
                                            ") must be greater than low (" + std::to_string(low) +
                                            ")");
      }
      spec.initializer =
          TensorInitializer::randint(static_cast<double>(low), static_cast<double>(high));
      return add(std::move(spec));
    }
    if (path == "torch.full") {
      BoundArguments args(call, withCommonKeywords({{"size", true}, {"fill_value", true}}));
      spec.sizes = args.intList("size");
      checkSizes(args, *args.find("size"), spec.sizes, "size");
      const Argument& fill = *args.find("fill_value");
      if (!fill.value.isNumber()) args.failType(fill, "a number");
      // torch infers the dtype from the fill value.
      const DataType inferred = fill.value.is(Kind::kBool)  ? DataType::Bool
                                : fill.value.is(Kind::kInt) ? DataType::Int
                                                            : DataType::Float;
      readCommon(args, spec, inferred);
      spec.initializer = TensorInitializer::full(fill.value.toDouble());
      return add(std::move(spec));
    }
    if (path == "torch.arange") return arange(std::move(spec), call);
    throw UserError(call.name +
                        " is not supported in the inputs block; "
                        "expected " +
                        std::string(kSupported),
                    call.location);
  }

  // torch.arange(end), (start, end) or (start, end, step).
  Value arange(InputSpec spec, const EvaluatedCall& call) {
    std::vector<ParameterSpec> params = {{"start", false}, {"end", true}, {"step", false}};
    if (call.positional.size() == 1) {
      params = {{"end", true}, {"start", false}, {"step", false}};
    }
    BoundArguments args(call, withCommonKeywords(params));
    bool anyFloat = false;
    for (std::string_view name : {"start", "end", "step"}) {
      if (const Argument* argument = args.find(name)) {
        if (argument->value.is(Kind::kFloat)) anyFloat = true;
      }
    }
    const double start = args.number("start", 0.0);
    const double end = args.number("end", 0.0);
    const double step = args.number("step", 1.0);
    const Argument& at = *args.find("end");
    if (step == 0.0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(end)) {
      args.failAt(at, "torch.arange needs finite bounds and a non-zero step");
    }
    const double count = std::ceil((end - start) / step);
    if (count < 0) {
      args.failAt(at,
                  "torch.arange: the bounds are inconsistent with the "
                  "step's sign");
    }
    if (count > static_cast<double>(kMaxTensorElements)) {
      args.failAt(at, "torch.arange would make more than 2^48 elements");
    }
    spec.sizes = {static_cast<int64_t>(count)};
    readCommon(args, spec, anyFloat ? DataType::Float : DataType::Int);
    spec.initializer = TensorInitializer::arange(start, step);
    return add(std::move(spec));
  }

  Value asStrided(InputSpec spec, const EvaluatedCall& call) {
    BoundArguments args(call, {{"size", true}, {"stride", true}, {"storage_offset", false}});
    std::vector<int64_t> sizes = args.intList("size");
    std::vector<int64_t> strides = args.intList("stride");
    checkSizes(args, *args.find("size"), sizes, "size");
    checkSizes(args, *args.find("stride"), strides, "stride");
    if (sizes.size() != strides.size()) {
      args.failAt(*args.find("stride"), "as_strided got " + std::to_string(sizes.size()) +
                                            " sizes but " + std::to_string(strides.size()) +
                                            " strides; expected one stride per size");
    }
    const int64_t offset = args.integer("storage_offset", 0);
    if (offset < 0) {
      args.failAt(*args.find("storage_offset"),
                  "storage_offset is " + std::to_string(offset) + "; expected an offset >= 0");
    }
    // As torch: the view lies inside the storage of the tensor it views (its
    // last element at offset + sum((size - 1) * stride)).
    if (std::find(sizes.begin(), sizes.end(), 0) == sizes.end()) {
      const int64_t storage = elementCount(spec.sizes);
      int64_t last = offset;
      bool overflow = false;
      for (size_t i = 0; i < sizes.size(); ++i) {
        int64_t reach = 0;
        overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                   __builtin_add_overflow(last, reach, &last);
      }
      if (overflow || last >= storage) {
        args.failAt(
            *args.find("size"),
            "as_strided(size=" + sizesText(sizes) + ", stride=" + sizesText(strides) +
                ", storage_offset=" + std::to_string(offset) + ") reaches " +
                (overflow ? std::string("past int64's range") : "element " + std::to_string(last)) +
                " of a storage of " + std::to_string(storage) +
                " elements; torch refuses this view too");
      }
    }
    spec.stridedSizes = std::move(sizes);
    spec.stridedStrides = std::move(strides);
    spec.stridedOffset = offset;
    return add(std::move(spec));
  }

  // torch.Tensor.expand(*sizes): a view with new leading axes and size-1
  // axes expanded, both of stride 0; -1 keeps an existing axis. Kept as the
  // strided view (stridedSizes/stridedStrides) of the constructed tensor.
  Value expand(InputSpec spec, const EvaluatedCall& call) {
    EvaluatedCall keywords = keywordsOnly(call);
    BoundArguments args(keywords, {{"size", false}, {"implicit", false}});
    args.boolean("implicit", false);
    std::vector<int64_t> target;
    const Argument* at = nullptr;
    if (call.positional.empty()) {
      if (!args.has("size")) {
        args.failCall(
            "expand needs the sizes to expand to, e.g. "
            "t.expand(4, 8) or t.expand((4, 8))");
      }
      at = args.find("size");
      target = args.intList("size");
    } else if (args.has("size")) {
      args.failAt(*args.find("size"), "expand got its sizes both as arguments and as size=");
    } else if (call.positional.size() == 1 && call.positional[0].value.isSequence()) {
      at = &call.positional[0];
      for (const Value& element : at->value.items()) {
        if (!element.is(Kind::kInt)) {
          args.failAt(*at,
                      "expected a tuple of ints as the sizes of expand, "
                      "found " +
                          describeKind(element) + " in it");
        }
        target.push_back(element.intValue);
      }
    } else {
      for (const Argument& argument : call.positional) {
        if (!argument.value.is(Kind::kInt)) {
          args.failAt(argument,
                      "expected an int size for expand, found " + describeKind(argument.value));
        }
        target.push_back(argument.value.intValue);
      }
      at = &call.positional.back();
    }
    // Where a size's error points: the size itself when given one by one.
    auto sizeAt = [&](size_t d) -> const Argument& {
      return call.positional.size() == target.size() && target.size() > 1 ? call.positional[d]
                                                                          : *at;
    };
    const std::vector<int64_t> sizes = spec.stridedSizes.value_or(spec.sizes);
    const std::vector<int64_t> strides =
        spec.stridedStrides.value_or(runtime::Tensor::contiguousStrides(sizes));
    if (target.size() < sizes.size()) {
      args.failAt(*at, "expand: the number of sizes (" + std::to_string(target.size()) +
                           ") must be at least the tensor's rank (" + std::to_string(sizes.size()) +
                           ", sizes " + sizesText(sizes) + ")");
    }
    const size_t added = target.size() - sizes.size();
    std::vector<int64_t> outSizes(target.size());
    std::vector<int64_t> outStrides(target.size(), 0);
    for (size_t d = 0; d < target.size(); ++d) {
      const int64_t size = target[d];
      const std::string axis =
          "expand: size " + std::to_string(size) + " at position " + std::to_string(d);
      if (d < added) {
        if (size < 0) {
          args.failAt(sizeAt(d), axis +
                                     " is a new leading axis and needs a "
                                     "size >= 0 (-1 keeps only an existing "
                                     "axis)");
        }
        outSizes[d] = size;
        continue;
      }
      const int64_t own = sizes[d - added];
      if (size == -1 || size == own) {
        outSizes[d] = own;
        outStrides[d] = strides[d - added];
      } else if (own == 1 && size >= 0) {
        outSizes[d] = size;
      } else {
        args.failAt(sizeAt(d), axis + " does not match the tensor's size " + std::to_string(own) +
                                   " there; only axes of size 1 expand "
                                   "(sizes " +
                                   sizesText(sizes) + ")");
      }
    }
    checkSizes(args, *at, outSizes, "size");
    spec.stridedSizes = std::move(outSizes);
    spec.stridedStrides = std::move(outStrides);
    return add(std::move(spec));
  }

  std::vector<InputSpec>& specs_;
};

}  // namespace

std::vector<InputSpec> readInputsBlock(const Expr& value, const NameTable& globals) {
  const std::vector<ExprPtr>* entries = nullptr;
  if (const auto* list = value.as<List>()) entries = &list->elements;
  if (const auto* tuple = value.as<Tuple>()) entries = &tuple->elements;
  if (entries == nullptr) {
    throw UserError(
        "expected the inputs block as a list: inputs = [" + std::string(kSupported) + ", ...]",
        value.location);
  }
  std::vector<InputSpec> table;
  InputsReader reader(globals, table);
  std::vector<InputSpec> specs;
  specs.reserve(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    const Expr& entry = *(*entries)[i];
    Value v = reader.evaluate(entry);
    InputSpec spec;
    if (v.is(Kind::kInputTensor)) {
      spec = reader.spec(v);
    } else if (v.isNumber()) {
      spec.isScalar = true;
      if (v.is(Kind::kBool)) {
        spec.scalar = v.boolValue;
      } else if (v.is(Kind::kInt)) {
        spec.scalar = v.intValue;
      } else {
        spec.scalar = v.floatValue;
      }
    } else {
      throw UserError("inputs entry " + std::to_string(i) + " is " + describeKind(v) +
                          "; expected " + std::string(kSupported) + ", or a Python number",
                      entry.location);
    }
    spec.location = entry.location;
    specs.push_back(std::move(spec));
  }
  return specs;
}

Value callTorch(std::vector<InputSpec>& specs, const NameTable& globals, const Value& callee,
                const EvaluatedCall& call) {
  InputsReader reader(globals, specs);
  return reader.callTorch(callee, call);
}

std::vector<InputSpec> inputSpecsOf(const Value& entries, const std::vector<InputSpec>& specs,
                                    const SourceLocation& location) {
  if (!entries.isSequence()) {
    throw UserError("expected the inputs as a list, found " + describeKind(entries) +
                        "; e.g. inputs = [" + std::string(kSupported) + ", ...]",
                    location);
  }
  // As fd.execute does: a list or tuple entry gives one input per element
  // (the scalars of an fd.define_vector(n)).
  ValueList flat;
  for (const Value& entry : entries.items()) {
    if (entry.isSequence()) {
      flat.insert(flat.end(), entry.items().begin(), entry.items().end());
    } else {
      flat.push_back(entry);
    }
  }
  std::vector<InputSpec> result;
  for (size_t i = 0; i < flat.size(); ++i) {
    const Value& v = flat[i];
    InputSpec spec;
    if (v.is(Kind::kInputTensor)) {
      spec = specs.at(static_cast<size_t>(v.intValue));
    } else if (v.isNumber()) {
      spec.isScalar = true;
      if (v.is(Kind::kBool)) {
        spec.scalar = v.boolValue;
      } else if (v.is(Kind::kInt)) {
        spec.scalar = v.intValue;
      } else {
        spec.scalar = v.floatValue;
      }
      spec.location = location;
    } else {
      throw UserError("inputs entry " + std::to_string(i) + " is " + describeKind(v) +
                          "; expected " + std::string(kSupported) + ", or a Python number",
                      location);
    }
    result.push_back(std::move(spec));
  }
  return result;
}

}  // namespace fuserlab::frontend
