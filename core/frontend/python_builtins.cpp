#include "core/frontend/python_builtins.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/frontend/python_arithmetic.h"
#include "core/frontend/python_values.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

[[noreturn]] void fail(const SourceLocation& location, const std::string& message) {
  throw UserError(message, location);
}

std::optional<Value> mathFunction(const std::string& name, const EvaluatedCall& call) {
  static constexpr std::string_view kUnary[] = {
      "sqrt", "exp", "log",  "log2", "log10", "floor",    "ceil",  "fabs", "sin",
      "cos",  "tan", "tanh", "erf",  "trunc", "isfinite", "isnan", "isinf"};
  if (std::find(std::begin(kUnary), std::end(kUnary), name) != std::end(kUnary)) {
    BoundArguments args(call, {{"x", true}});
    const Argument& x = *args.find("x");
    if (!x.value.isNumber()) args.failType(x, "a number");
    const double v = x.value.toDouble();
    if (name == "floor" || name == "ceil" || name == "trunc") {
      if (isIntLike(x.value)) return Value::integer(intOf(x.value));
      const double r = name == "floor"  ? std::floor(v)
                       : name == "ceil" ? std::ceil(v)
                                        : std::trunc(v);
      return Value::integer(truncateToInt(r, x.location));
    }
    if (name == "isfinite") return Value::boolean(std::isfinite(v));
    if (name == "isnan") return Value::boolean(std::isnan(v));
    if (name == "isinf") return Value::boolean(std::isinf(v));
    if ((name == "sqrt" && v < 0) || (name.starts_with("log") && v <= 0)) {
      args.failAt(x, "math domain error");
    }
    double r = 0;
    if (name == "sqrt") r = std::sqrt(v);
    if (name == "exp") r = std::exp(v);
    if (name == "log") r = std::log(v);
    if (name == "log2") r = std::log2(v);
    if (name == "log10") r = std::log10(v);
    if (name == "fabs") r = std::fabs(v);
    if (name == "sin") r = std::sin(v);
    if (name == "cos") r = std::cos(v);
    if (name == "tan") r = std::tan(v);
    if (name == "tanh") r = std::tanh(v);
    if (name == "erf") r = std::erf(v);
    return Value::floating(r);
  }
  if (name == "pow") {
    BoundArguments args(call, {{"x", true}, {"y", true}});
    return Value::floating(std::pow(args.number("x", 0), args.number("y", 0)));
  }
  if (name == "gcd") {
    BoundArguments args(call, {{"a", true}, {"b", true}});
    return Value::integer(std::gcd(args.integer("a"), args.integer("b")));
  }
  if (name == "prod") {
    BoundArguments args(call, {{"iterable", true}, {"start", false}});
    Value product = args.has("start") ? args.find("start")->value : Value::integer(1);
    for (const Value& v : iterableArgument(args, "iterable")) {
      product = applyBinary(BinaryOpKind::kMul, product, v, call.location);
    }
    return product;
  }
  if (name == "isclose") {
    BoundArguments args(call, {{"a", true}, {"b", true}, {"rel_tol", false}, {"abs_tol", false}});
    const double a = args.number("a", 0);
    const double b = args.number("b", 0);
    const double rel = args.number("rel_tol", 1e-9);
    const double abs = args.number("abs_tol", 0.0);
    return Value::boolean(std::fabs(a - b) <=
                          std::max(rel * std::max(std::fabs(a), std::fabs(b)), abs));
  }
  return std::nullopt;
}

// itertools.permutations, product, combinations and chain, as lists.
std::optional<Value> itertoolsFunction(const std::string& name, const EvaluatedCall& call) {
  const SourceLocation& where = call.location;
  ValueList out;
  auto push = [&](ValueList row) {
    chargeElementWork(row.size() + 1, where);
    checkSequenceSize(out.size() + 1, where);
    out.push_back(Value::tuple(std::move(row)));
  };
  if (name == "chain") {
    for (const Argument& argument : call.positional) {
      for (const Value& v : iterateValue(argument.value, argument.location)) {
        checkSequenceSize(out.size() + 1, where);
        out.push_back(v);
      }
    }
    return Value::list(std::move(out));
  }
  if (name == "product") {
    int64_t repeat = 1;
    for (const Argument& keyword : call.keywords) {
      if (keyword.keyword != "repeat" || !keyword.value.is(Kind::kInt)) {
        fail(keyword.keywordLocation, "itertools.product takes repeat=<int>");
      }
      repeat = keyword.value.intValue;
    }
    if (repeat < 0 || repeat > 64) fail(where, "itertools.product takes repeat from 0 to 64");
    std::vector<ValueList> pools;
    for (int64_t r = 0; r < repeat; ++r) {
      for (const Argument& argument : call.positional) {
        pools.push_back(iterateValue(argument.value, argument.location));
      }
    }
    std::vector<size_t> at(pools.size(), 0);
    for (const ValueList& pool : pools) {
      if (pool.empty()) return Value::list({});
    }
    while (true) {
      ValueList row;
      for (size_t i = 0; i < pools.size(); ++i) row.push_back(pools[i][at[i]]);
      push(std::move(row));
      size_t i = pools.size();
      while (i > 0 && ++at[i - 1] == pools[i - 1].size()) at[--i] = 0;
      if (i == 0) break;
    }
    return Value::list(std::move(out));
  }
  if (name == "permutations" || name == "combinations") {
    BoundArguments args(call, {{"iterable", true}, {"r", name == "combinations"}});
    ValueList pool = iterableArgument(args, "iterable");
    const int64_t n = static_cast<int64_t>(pool.size());
    const int64_t r = args.integer("r", n);
    if (r < 0 || r > n) return Value::list({});
    if (r > 64) fail(where, "itertools." + name + " of more than 64 elements at a time");
    std::vector<int64_t> pick(static_cast<size_t>(r));
    std::vector<bool> used(pool.size(), false);
    // Depth-first in lexicographic order of positions, as itertools gives.
    std::function<void(int64_t, int64_t)> choose = [&](int64_t depth, int64_t from) {
      if (depth == r) {
        ValueList row;
        for (int64_t i : pick) row.push_back(pool[static_cast<size_t>(i)]);
        push(std::move(row));
        return;
      }
      for (int64_t i = name == "combinations" ? from : 0; i < n; ++i) {
        if (used[static_cast<size_t>(i)]) continue;
        used[static_cast<size_t>(i)] = true;
        pick[static_cast<size_t>(depth)] = i;
        choose(depth + 1, i + 1);
        used[static_cast<size_t>(i)] = false;
      }
    };
    choose(0, 0);
    return Value::list(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Value> callPlainBuiltin(const std::string& path, const EvaluatedCall& call) {
  if (path.starts_with("math.")) return mathFunction(path.substr(5), call);
  if (path.starts_with("itertools.")) {
    return itertoolsFunction(path.substr(10), call);
  }
  if (!path.starts_with("builtins.")) return std::nullopt;
  const std::string name = path.substr(9);
  const SourceLocation& where = call.location;
  if (name == "len") {
    BoundArguments args(call, {{"obj", true}});
    const Argument& obj = *args.find("obj");
    switch (obj.value.kind) {
      case Kind::kString: return Value::integer(static_cast<int64_t>(obj.value.text.size()));
      case Kind::kDict: return Value::integer(static_cast<int64_t>(obj.value.elements->size() / 2));
      case Kind::kList:
      case Kind::kTuple:
      case Kind::kDeviceMesh:
        return Value::integer(static_cast<int64_t>(obj.value.elements->size()));
      default: args.failType(obj, "a list, tuple, dict or string");
    }
  }
  if (name == "list" || name == "tuple" || name == "set" || name == "reversed" ||
      name == "frozenset") {
    BoundArguments args(call, {{"iterable", false}});
    ValueList items = iterableArgument(args, "iterable");
    if (name == "reversed") std::reverse(items.begin(), items.end());
    if (name == "set" || name == "frozenset") {
      ValueList distinct;
      for (const Value& v : items) {
        if (std::none_of(distinct.begin(), distinct.end(),
                         [&](const Value& d) { return valuesEqual(d, v); })) {
          distinct.push_back(v);
        }
      }
      items = std::move(distinct);
    }
    return name == "tuple" ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  if (name == "dict") {
    Value dict = Value::dict({});
    if (!call.positional.empty()) {
      BoundArguments args(EvaluatedCall{call.name, call.location, call.positional, {}},
                          {{"mapping", true}});
      const Argument& mapping = *args.find("mapping");
      if (mapping.value.is(Kind::kDict)) {
        *dict.elements = *mapping.value.elements;
      } else {
        for (const Value& pair : iterateValue(mapping.value, mapping.location)) {
          if (!pair.isSequence() || pair.items().size() != 2) {
            args.failAt(mapping, "dict() expects pairs, found " + describeKind(pair));
          }
          assignSubscript(dict, pair.items()[0], pair.items()[1], where);
        }
      }
    }
    for (const Argument& keyword : call.keywords) {
      assignSubscript(dict, Value::string(keyword.keyword), keyword.value, where);
    }
    return dict;
  }
  if (name == "enumerate") {
    BoundArguments args(call, {{"iterable", true}, {"start", false}});
    int64_t i = args.integer("start", 0);
    ValueList out;
    for (const Value& v : iterableArgument(args, "iterable")) {
      out.push_back(Value::tuple({Value::integer(i++), v}));
    }
    return Value::list(std::move(out));
  }
  if (name == "zip") {
    std::vector<ValueList> lists;
    for (const Argument& argument : call.positional) {
      lists.push_back(iterateValue(argument.value, argument.location));
    }
    for (const Argument& keyword : call.keywords) {
      if (keyword.keyword != "strict") {
        throw UserError("zip() got an unexpected keyword argument '" + keyword.keyword + "'",
                        keyword.keywordLocation);
      }
    }
    size_t count = lists.empty() ? 0 : SIZE_MAX;
    for (const ValueList& list : lists) count = std::min(count, list.size());
    ValueList out;
    for (size_t i = 0; i < count; ++i) {
      ValueList row;
      for (const ValueList& list : lists) row.push_back(list[i]);
      out.push_back(Value::tuple(std::move(row)));
    }
    return Value::list(std::move(out));
  }
  if (name == "any" || name == "all") {
    BoundArguments args(call, {{"iterable", true}});
    for (const Value& v : iterableArgument(args, "iterable")) {
      const bool truth = truthValue(v, where);
      if (name == "any" && truth) return Value::boolean(true);
      if (name == "all" && !truth) return Value::boolean(false);
    }
    return Value::boolean(name == "all");
  }
  if (name == "sum") {
    BoundArguments args(call, {{"iterable", true}, {"start", false}});
    Value total = args.find("start") ? args.find("start")->value : Value::integer(0);
    for (const Value& v : iterableArgument(args, "iterable")) {
      if (v.is(Kind::kOpaque)) return v;
      if (std::optional<Value> seq =
              (total.isSequence() ? sequenceArithmetic(BinaryOpKind::kAdd, total, v, where)
                                  : std::nullopt)) {
        total = *seq;
      } else {
        if (!v.isNumber() || !total.isNumber()) return std::nullopt;
        total = applyBinary(BinaryOpKind::kAdd, total, v, where);
      }
    }
    return total;
  }
  if (name == "min" || name == "max") {
    if (call.keywords.size() > 0) return std::nullopt;  // key=: the caller's
    ValueList items;
    if (call.positional.size() == 1) {
      items = iterateValue(call.positional[0].value, call.positional[0].location);
    } else {
      for (const Argument& a : call.positional) items.push_back(a.value);
    }
    if (items.empty()) fail(where, name + "() of an empty sequence");
    if (std::any_of(items.begin(), items.end(), [](const Value& v) { return v.isFusionVal(); })) {
      return std::nullopt;
    }
    Value best = items[0];
    for (size_t i = 1; i < items.size(); ++i) {
      const bool better =
          name == "min" ? valueLess(items[i], best, where) : valueLess(best, items[i], where);
      if (better) best = items[i];
    }
    return best;
  }
  if (name == "round") {
    BoundArguments args(call, {{"number", true}, {"ndigits", false}});
    const Argument& number = *args.find("number");
    if (!number.value.isNumber()) args.failType(number, "a number");
    if (!args.has("ndigits")) {
      return Value::integer(truncateToInt(std::nearbyint(number.value.toDouble()), where));
    }
    const double scale = std::pow(10.0, static_cast<double>(args.integer("ndigits")));
    return Value::floating(std::nearbyint(number.value.toDouble() * scale) / scale);
  }
  if (name == "divmod") {
    BoundArguments args(call, {{"a", true}, {"b", true}});
    const Value& a = args.find("a")->value;
    const Value& b = args.find("b")->value;
    return Value::tuple({applyBinary(BinaryOpKind::kFloorDiv, a, b, where),
                         applyBinary(BinaryOpKind::kMod, a, b, where)});
  }
  if (name == "pow") {
    BoundArguments args(call, {{"base", true}, {"exp", true}});
    return applyBinary(BinaryOpKind::kPow, args.find("base")->value, args.find("exp")->value,
                       where);
  }
  if (name == "str" || name == "repr") {
    BoundArguments args(call, {{"object", false}});
    if (!args.find("object")) return Value::string("");
    const Value& v = args.find("object")->value;
    if (v.is(Kind::kString) && name == "str") return v;
    return Value::string(valueText(v));
  }
  if (name == "isinstance") {
    BoundArguments args(call, {{"obj", true}, {"classinfo", true}});
    const Value& obj = args.find("obj")->value;
    const Value& info = args.find("classinfo")->value;
    ValueList classes = info.is(Kind::kTuple) ? info.items() : ValueList{info};
    for (const Value& c : classes) {
      if (!c.is(Kind::kNamespace)) continue;
      const std::string& t = c.text;
      const bool match =
          (t == "builtins.int" && obj.is(Kind::kInt)) ||
          (t == "builtins.float" && obj.is(Kind::kFloat)) ||
          (t == "builtins.bool" && obj.is(Kind::kBool)) ||
          (t == "builtins.str" && obj.is(Kind::kString)) ||
          (t == "builtins.list" && obj.is(Kind::kList)) ||
          (t == "builtins.tuple" && obj.is(Kind::kTuple)) ||
          (t == "builtins.dict" && obj.is(Kind::kDict)) ||
          (t.ends_with("DataType") && obj.is(Kind::kDataType)) ||
          (t.ends_with(".Tensor") && (obj.is(Kind::kTensor) || obj.is(Kind::kInputTensor))) ||
          (t.ends_with(".Scalar") && obj.is(Kind::kScalar)) ||
          (t == "torch.dtype" && obj.is(Kind::kTorchDtype));
      if (match) return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  return std::nullopt;
}

}  // namespace fuserlab::frontend
