// The evaluator's calls: arguments evaluated left to right (with `*xs`
// and `**options` expanded), then the builtins, the methods of plain values,
// and the builtins that call back into the script (sorted, min and max with
// key=, map, filter); anything else is the subclass's callValue.
#include <algorithm>
#include <cmath>

#include "core/frontend/expression_evaluator.h"
#include "core/frontend/multidevice_calls.h"
#include "core/frontend/python_arithmetic.h"
#include "core/frontend/python_builtins.h"
#include "core/frontend/python_values.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

}  // namespace

Value ExpressionEvaluator::evaluateCall(const Call& call, const Expr& expr) {
  Value callee = evaluate(*call.callee);
  EvaluatedCall evaluated;
  evaluated.name = dottedName(*call.callee);
  // An op reached other than by its dotted name (`getattr(fd.ops, name)(x)`)
  // is named as if it were written out: "unknown op fd.ops.frob", not "the call".
  if (callee.is(Kind::kMethod) && callee.receiver && callee.receiver->is(Kind::kFdOps) &&
      !call.callee->is<Name>() && !call.callee->is<Attribute>()) {
    evaluated.name = "fd.ops." + callee.text;
  }
  evaluated.location = expr.location;
  evaluated.positional.reserve(call.args.size());
  for (const ExprPtr& arg : call.args) {
    if (const auto* starred = arg->as<Starred>()) {
      // `f(*shape)`: one positional argument per element.
      Value inner = evaluate(*starred->value);
      for (Value& element : iterateValue(inner, starred->value->location)) {
        evaluated.positional.push_back(Argument{std::move(element), arg->location, "", {}});
      }
      continue;
    }
    evaluated.positional.push_back(Argument{evaluate(*arg), arg->location, "", {}});
  }
  evaluated.keywords.reserve(call.keywords.size());
  for (const Keyword& keyword : call.keywords) {
    if (keyword.name.empty()) {
      // `f(**options)`: one keyword argument per string key.
      Value mapping = evaluate(*keyword.value);
      if (!mapping.is(Kind::kDict)) {
        throw UserError("'**' needs a dict, found " + describeKind(mapping),
                        keyword.value->location);
      }
      const ValueList entries = *mapping.elements;
      for (size_t i = 0; i + 1 < entries.size(); i += 2) {
        if (!entries[i].is(Kind::kString)) {
          throw UserError("keywords must be strings, found " + describeKind(entries[i]),
                          keyword.value->location);
        }
        evaluated.keywords.push_back(
            Argument{entries[i + 1], keyword.value->location, entries[i].text, keyword.location});
      }
      continue;
    }
    evaluated.keywords.push_back(Argument{evaluate(*keyword.value), keyword.value->location,
                                          keyword.name, keyword.location});
  }
  for (size_t i = 0; i < evaluated.keywords.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (evaluated.keywords[i].keyword == evaluated.keywords[j].keyword) {
        throw UserError(evaluated.name +
                            " got multiple values for the "
                            "keyword argument '" +
                            evaluated.keywords[i].keyword + "'",
                        evaluated.keywords[i].keywordLocation);
      }
    }
  }
  return this->call(callee, evaluated);
}

Value ExpressionEvaluator::call(const Value& callee, const EvaluatedCall& call) {
  if (callee.is(Kind::kOpaque)) return callee;
  if (callee.is(Kind::kNamespace) && callee.text.starts_with("builtins.") &&
      callee.text != "builtins.print") {
    // len(outputs), zip(outputs, expected): run-time values in, a run-time
    // value out.
    for (const auto* arguments : {&call.positional, &call.keywords}) {
      for (const Argument& argument : *arguments) {
        if (argument.value.is(Kind::kOpaque)) return argument.value;
      }
    }
  }
  if (callee.is(Kind::kNamespace) &&
      (callee.text.starts_with("builtins.") || callee.text.starts_with("math.") ||
       callee.text.starts_with("itertools."))) {
    return callBuiltin(callee.text, call);
  }
  if (callee.is(Kind::kMethod) && callee.receiver) {
    if (std::optional<Value> result = callPlainMethod(*callee.receiver, callee.text, call)) {
      return *result;
    }
  }
  return callValue(callee, call);
}

Value ExpressionEvaluator::callWithKey(const std::string& path, const EvaluatedCall& call) {
  // sorted(xs, key=f, reverse=b), min/max(xs, key=f), map(f, xs),
  // filter(f, xs): they call back into the script.
  const SourceLocation& where = call.location;
  auto callOne = [&](const Value& function, const ValueList& args) {
    EvaluatedCall inner;
    inner.name = "the function";
    inner.location = where;
    for (const Value& arg : args) {
      inner.positional.push_back(Argument{arg, where, "", {}});
    }
    return this->call(function, inner);
  };
  if (path == "builtins.map") {
    if (call.positional.size() < 2 || !call.keywords.empty()) {
      throw UserError("map() takes a function and at least one iterable", where);
    }
    std::vector<ValueList> lists;
    for (size_t i = 1; i < call.positional.size(); ++i) {
      lists.push_back(iterateValue(call.positional[i].value, call.positional[i].location));
    }
    size_t count = SIZE_MAX;
    for (const ValueList& list : lists) count = std::min(count, list.size());
    ValueList out;
    for (size_t i = 0; i < count; ++i) {
      ValueList args;
      for (const ValueList& list : lists) args.push_back(list[i]);
      countStep(where);
      out.push_back(callOne(call.positional[0].value, args));
    }
    return Value::list(std::move(out));
  }
  if (path == "builtins.filter") {
    BoundArguments args(call, {{"function", true}, {"iterable", true}});
    const Value& function = args.find("function")->value;
    ValueList out;
    for (const Value& v :
         iterateValue(args.find("iterable")->value, args.find("iterable")->location)) {
      countStep(where);
      const Value keep = function.isNone() ? v : callOne(function, {v});
      if (truthValue(keep, where)) out.push_back(v);
    }
    return Value::list(std::move(out));
  }
  // sorted, min, max
  BoundArguments args(
      call,
      path == "builtins.sorted"
          ? std::vector<ParameterSpec>{{"iterable", true}, {"key", false}, {"reverse", false}}
          : std::vector<ParameterSpec>{{"iterable", true}, {"key", false}, {"default", false}});
  ValueList items = iterateValue(args.find("iterable")->value, args.find("iterable")->location);
  ValueList keys;
  for (const Value& v : items) {
    countStep(where);
    keys.push_back(args.has("key") ? callOne(args.find("key")->value, {v}) : v);
  }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto less = [&](size_t a, size_t b) {
    return truthValue(sequenceArithmetic(BinaryOpKind::kLess, Value::tuple({keys[a]}),
                                         Value::tuple({keys[b]}), where)
                          .value_or(Value::boolean(false)),
                      where);
  };
  if (path == "builtins.sorted") {
    const bool reverse = args.boolean("reverse", false);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return reverse ? less(b, a) : less(a, b); });
    ValueList out;
    for (size_t i : order) out.push_back(items[i]);
    return Value::list(std::move(out));
  }
  if (items.empty()) {
    if (args.find("default")) return args.find("default")->value;
    throw UserError(path.substr(9) + "() of an empty sequence", where);
  }
  size_t best = 0;
  for (size_t i = 1; i < items.size(); ++i) {
    if (path == "builtins.min" ? less(i, best) : less(best, i)) best = i;
  }
  return items[best];
}

Value ExpressionEvaluator::callBuiltin(const std::string& path, const EvaluatedCall& call) {
  if (path == "builtins.print") return Value::none();
  if (path == "builtins.map" || path == "builtins.filter" || path == "builtins.sorted" ||
      ((path == "builtins.min" || path == "builtins.max") && !call.keywords.empty())) {
    return callWithKey(path, call);
  }
  if (std::optional<Value> value = callMeshBuiltin(path, call)) return *value;
  if (std::optional<Value> value = callPlainBuiltin(path, call)) return *value;
  if (path.starts_with("math.") || path.starts_with("itertools.")) {
    throw UserError(path + " is not a function FuserLab's reader knows", call.location);
  }
  if (path != "builtins.float" && path != "builtins.int" && path != "builtins.bool" &&
      path != "builtins.abs") {
    return callValue(Value::nameSpace(path), call);
  }
  BoundArguments args(call, {{"x", false}});
  const Argument* x = args.find("x");
  const SourceLocation& where = x ? x->location : call.location;
  if (path == "builtins.float") {
    if (x == nullptr) return Value::floating(0.0);
    if (x->value.is(Kind::kString)) return parseFloatString(x->value.text, where);
    if (x->value.isNumber()) return Value::floating(x->value.toDouble());
    args.failType(*x, "a number or a string");
  }
  if (path == "builtins.int") {
    if (x == nullptr) return Value::integer(0);
    if (x->value.is(Kind::kInt)) return x->value;
    if (x->value.is(Kind::kBool)) return Value::integer(x->value.boolValue);
    if (x->value.is(Kind::kFloat)) {
      return Value::integer(truncateToInt(x->value.floatValue, where));
    }
    args.failType(*x, "a number");
  }
  if (path == "builtins.bool") {
    return Value::boolean(x != nullptr && truthValue(x->value, where));
  }
  if (path == "builtins.abs") {
    if (x != nullptr && x->value.isNumber()) {
      if (x->value.is(Kind::kFloat)) {
        return Value::floating(std::fabs(x->value.floatValue));
      }
      return applyUnary(x->value.intValue < 0 ? UnaryOpKind::kNegate : UnaryOpKind::kPlus,
                        x->value.is(Kind::kBool) ? Value::integer(x->value.boolValue) : x->value,
                        where);
    }
    if (x != nullptr && x->value.isFusionVal()) {
      return callValue(Value::nameSpace("builtins.abs"), call);
    }
    if (x == nullptr) args.failCall("abs() takes exactly one argument");
    args.failType(*x, "a number");
  }
  return callValue(Value::nameSpace(path), call);
}

Value ExpressionEvaluator::callValue(const Value& callee, const EvaluatedCall& call) {
  if (callee.is(Kind::kNamespace)) {
    if (std::optional<Value> value = callMeshBuiltin(callee.text, call)) {
      return *value;
    }
  }
  std::string message = call.name + " cannot be called here";
  if (callee.is(Kind::kNamespace) && callee.text.starts_with("torch.")) {
    message +=
        "; torch constructors are only read in the 'inputs = [...]' "
        "block";
  }
  throw UserError(message, call.location);
}

}  // namespace fuserlab::frontend
