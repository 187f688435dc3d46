#include "core/frontend/call_arguments.h"

#include <algorithm>

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

// "a list containing a float" for a sequence whose element `bad` is wrong.
std::string describeSequenceWith(const Value& sequence, const Value& bad) {
  return describeKind(sequence) + " containing " + describeKind(bad);
}

std::string pluralArguments(size_t count) {
  return std::to_string(count) + (count == 1 ? " argument" : " arguments");
}

}  // namespace

EvaluatedCall renameKeyword(const EvaluatedCall& call, std::string_view alias,
                            std::string_view name) {
  EvaluatedCall copy = call;
  for (Argument& keyword : copy.keywords) {
    if (keyword.keyword == alias) keyword.keyword = name;
  }
  return copy;
}

ir::Scalar* literalConstant(ir::Fusion& fusion, const Value& value) {
  switch (value.kind) {
    case Kind::kInt: return fusion.constInt(value.intValue);
    case Kind::kFloat: return fusion.constDouble(value.floatValue);
    case Kind::kBool: return fusion.constBool(value.boolValue);
    default: return nullptr;
  }
}

BoundArguments::BoundArguments(const EvaluatedCall& call, std::vector<ParameterSpec> params,
                               ir::Fusion* fusion)
    : call_(call), params_(std::move(params)), bound_(params_.size(), nullptr), fusion_(fusion) {
  if (call_.positional.size() > params_.size()) {
    const Argument& extra = call_.positional[params_.size()];
    failAt(extra, call_.name + " takes at most " + pluralArguments(params_.size()) +
                      (params_.empty() ? "" : " (" + parameterNames() + ")") + " but " +
                      std::to_string(call_.positional.size()) + " were given");
  }
  for (size_t i = 0; i < call_.positional.size(); ++i) {
    bound_[i] = &call_.positional[i];
  }
  for (const Argument& keyword : call_.keywords) {
    auto it = std::find_if(params_.begin(), params_.end(),
                           [&](const ParameterSpec& p) { return p.name == keyword.keyword; });
    if (it == params_.end()) {
      throw UserError(call_.name + " got an unexpected keyword argument " +
                          quoteForMessage(keyword.keyword) + "; expected: " + parameterNames(),
                      keyword.keywordLocation);
    }
    const size_t index = static_cast<size_t>(it - params_.begin());
    if (bound_[index] != nullptr) {
      throw UserError(
          call_.name + " got multiple values for argument '" + std::string(it->name) + "'",
          keyword.keywordLocation);
    }
    bound_[index] = &keyword;
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].required && bound_[i] == nullptr) {
      failCall(call_.name + " is missing the required argument '" + std::string(params_[i].name) +
               "'; expected: " + parameterNames());
    }
  }
}

std::string BoundArguments::parameterNames() const {
  std::string names;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (i) names += ", ";
    names += params_[i].name;
  }
  return names;
}

std::string_view BoundArguments::nameOf(const Argument& argument) const {
  for (size_t i = 0; i < bound_.size(); ++i) {
    if (bound_[i] == &argument) return params_[i].name;
  }
  return argument.keyword;
}

const Argument* BoundArguments::find(std::string_view name) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].name == name) return bound_[i];
  }
  return nullptr;
}

bool BoundArguments::has(std::string_view name) const {
  const Argument* argument = find(name);
  return argument != nullptr && !argument->value.isNone();
}

const Argument& BoundArguments::require(std::string_view name) const {
  const Argument* argument = find(name);
  if (argument == nullptr) {
    failCall(call_.name + " is missing the required argument '" + std::string(name) +
             "'; expected: " + parameterNames());
  }
  return *argument;
}

ir::Fusion& BoundArguments::fusion(const Argument& argument) const {
  if (fusion_ == nullptr) {
    failAt(argument, "fusion values cannot be used in " + call_.name);
  }
  return *fusion_;
}

void BoundArguments::failType(const Argument& argument, std::string_view expected) const {
  failAt(argument, "expected " + std::string(expected) + " for argument '" +
                       std::string(nameOf(argument)) + "' of " + call_.name + ", found " +
                       describeKind(argument.value));
}

void BoundArguments::failAt(const Argument& argument, const std::string& message) const {
  throw UserError(message, argument.location);
}

void BoundArguments::failCall(const std::string& message) const {
  throw UserError(message, call_.location);
}

ir::TensorView* BoundArguments::tensor(std::string_view name) const {
  const Argument& argument = require(name);
  if (ir::TensorView* tv = argument.value.tensor()) return tv;
  failType(argument, "a tensor");
}

ir::TensorView* BoundArguments::optionalTensor(std::string_view name) const {
  if (!has(name)) return nullptr;
  return tensor(name);
}

ir::Val* BoundArguments::operand(std::string_view name) const {
  const Argument& argument = require(name);
  if (argument.value.isFusionVal()) return argument.value.val;
  if (argument.value.isNumber()) {
    return literalConstant(fusion(argument), argument.value);
  }
  failType(argument, "a tensor, a scalar or a number");
}

ir::Scalar* BoundArguments::scalar(std::string_view name) const {
  const Argument& argument = require(name);
  if (ir::Scalar* s = argument.value.scalar()) return s;
  if (argument.value.isNumber()) {
    return literalConstant(fusion(argument), argument.value);
  }
  failType(argument, "a scalar or a number");
}

ir::Scalar* BoundArguments::optionalScalar(std::string_view name) const {
  if (!has(name)) return nullptr;
  return scalar(name);
}

int64_t BoundArguments::integer(std::string_view name) const {
  const Argument& argument = require(name);
  if (argument.value.is(Kind::kInt)) return argument.value.intValue;
  failType(argument, "an int");
}

int64_t BoundArguments::integer(std::string_view name, int64_t fallback) const {
  return has(name) ? integer(name) : fallback;
}

double BoundArguments::number(std::string_view name, double fallback) const {
  if (!has(name)) return fallback;
  const Argument& argument = require(name);
  if (argument.value.is(Kind::kInt) || argument.value.is(Kind::kFloat)) {
    return argument.value.toDouble();
  }
  failType(argument, "a number");
}

bool BoundArguments::boolean(std::string_view name, bool fallback) const {
  if (!has(name)) return fallback;
  const Argument& argument = require(name);
  const Value& value = argument.value;
  if (value.is(Kind::kBool)) return value.boolValue;
  // Python's bool is an int; 0 and 1 are as good as False and True.
  if (value.is(Kind::kInt) && (value.intValue == 0 || value.intValue == 1)) {
    return value.intValue == 1;
  }
  failType(argument, "a bool");
}

ir::DataType BoundArguments::dtype(std::string_view name) const {
  const Argument& argument = require(name);
  if (argument.value.is(Kind::kDataType)) return argument.value.dtype;
  failType(argument, "a DataType (e.g. DataType.Float)");
}

ir::DataType BoundArguments::dtype(std::string_view name, ir::DataType fallback) const {
  return has(name) ? dtype(name) : fallback;
}

std::vector<int64_t> BoundArguments::intList(std::string_view name, bool acceptSingle) const {
  const Argument& argument = require(name);
  const Value& value = argument.value;
  const std::string_view expected = acceptSingle ? "an int or a list of ints" : "a list of ints";
  if (acceptSingle && value.is(Kind::kInt)) return {value.intValue};
  if (!value.isSequence()) failType(argument, expected);
  std::vector<int64_t> out;
  out.reserve(value.items().size());
  for (const Value& element : value.items()) {
    if (!element.is(Kind::kInt)) {
      failAt(argument, "expected " + std::string(expected) + " for argument '" +
                           std::string(nameOf(argument)) + "' of " + call_.name + ", found " +
                           describeSequenceWith(value, element));
    }
    out.push_back(element.intValue);
  }
  return out;
}

std::vector<bool> BoundArguments::boolList(std::string_view name) const {
  const Argument& argument = require(name);
  const Value& value = argument.value;
  if (!value.isSequence()) failType(argument, "a list of bools");
  std::vector<bool> out;
  out.reserve(value.items().size());
  for (const Value& element : value.items()) {
    if (!element.is(Kind::kBool)) {
      failAt(argument, "expected a list of bools for argument '" + std::string(nameOf(argument)) +
                           "' of " + call_.name + ", found " +
                           describeSequenceWith(value, element));
    }
    out.push_back(element.boolValue);
  }
  return out;
}

std::vector<ir::Scalar*> BoundArguments::sizeList(std::string_view name) const {
  const Argument& argument = require(name);
  const Value& value = argument.value;
  constexpr std::string_view kExpected =
      "a list of sizes (ints, integer scalars such as T0.size(0), a "
      "define_vector result or T0.shape())";
  if (!value.isSequence()) failType(argument, kExpected);
  std::vector<ir::Scalar*> out;
  out.reserve(value.items().size());
  for (const Value& element : value.items()) {
    if (element.is(Kind::kInt)) {
      out.push_back(fusion(argument).constInt(element.intValue));
    } else if (ir::Scalar* s = element.scalar()) {
      out.push_back(s);
    } else {
      failAt(argument, "expected " + std::string(kExpected) + " for argument '" +
                           std::string(nameOf(argument)) + "' of " + call_.name + ", found " +
                           describeSequenceWith(value, element));
    }
  }
  return out;
}

std::vector<ir::TensorView*> BoundArguments::tensorList(std::string_view name) const {
  const Argument& argument = require(name);
  const Value& value = argument.value;
  if (!value.isSequence()) failType(argument, "a list of tensors");
  std::vector<ir::TensorView*> out;
  out.reserve(value.items().size());
  for (const Value& element : value.items()) {
    ir::TensorView* tv = element.tensor();
    if (tv == nullptr) {
      failAt(argument, "expected a list of tensors for argument '" + std::string(nameOf(argument)) +
                           "' of " + call_.name + ", found " +
                           describeSequenceWith(value, element));
    }
    out.push_back(tv);
  }
  return out;
}

}  // namespace fuserlab::frontend
