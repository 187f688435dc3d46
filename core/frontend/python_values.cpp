#include "core/frontend/python_values.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/frontend/python_arithmetic.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

[[noreturn]] void fail(const SourceLocation& location, const std::string& message) {
  throw UserError(message, location);
}

thread_local int64_t elementWork = 0;

// Walking nested values (==, <, str()): a list may hold itself (`x.append(x)`
// overflowed the stack) or the same list twice at every level (`x = [x, x]`
// sixty times: 2^60 elements to visit), so a walk is bounded in depth and
// each element it visits is charged to the element work. Errors carry no
// location; the evaluator gives them the expression's.
thread_local int walkDepth = 0;

class NestedWalk {
 public:
  explicit NestedWalk(size_t elements) {
    if (walkDepth >= kMaxNestingDepth) {
      throw UserError("values nested more than " + std::to_string(kMaxNestingDepth) +
                      " deep (a list that contains itself?); FuserLab stops here");
    }
    elementWork += static_cast<int64_t>(elements);
    if (elementWork > kMaxElementWork) {
      throw UserError("the script compares or prints more than " + std::to_string(kMaxElementWork) +
                      " list elements; FuserLab reads scripts that define a "
                      "fusion, not long computations");
    }
    ++walkDepth;
  }
  ~NestedWalk() { --walkDepth; }
  NestedWalk(const NestedWalk&) = delete;
  NestedWalk& operator=(const NestedWalk&) = delete;
};

// Lookups and scans of lists and dicts (`in`, a dict's key lookup, index,
// count, remove, insert and pop's shifting, reverse, sort) read elements
// without keeping them: they get a bound of their own, larger than the
// element work's, so a loop of lookups into a large dict or list ends in
// about a second (60,000 dict insertions compared 1.8 billion keys in 10 s;
// seven times as many ran for minutes). No location, as for the walks above:
// the evaluator adds the expression's.
constexpr int64_t kMaxScanWork = 50'000'000;
thread_local int64_t scanWork = 0;

void chargeScan(size_t elements) {
  scanWork += static_cast<int64_t>(elements);
  if (scanWork > kMaxScanWork) {
    throw UserError("the script looks through more than " + std::to_string(kMaxScanWork) +
                    " list or dict elements ('in', dict lookups, index, count, remove); "
                    "FuserLab reads scripts that define a fusion, not long computations");
  }
}

// valueText's bounds: the text of a message or of str(), not a dump.
constexpr size_t kMaxValueTextChars = 1000;
constexpr int kMaxValueTextDepth = 16;

// A Python index into `size` elements: negative counts from the end.
size_t normalizedIndex(const Value& index, size_t size, const Value& object,
                       const SourceLocation& location) {
  if (!isIntLike(index)) {
    fail(location,
         "the index of " + describeKind(object) + " must be an int, found " + describeKind(index));
  }
  const auto count = static_cast<int64_t>(size);
  int64_t i = intOf(index);
  if (i < -count || i >= count) {
    fail(location, "index " + std::to_string(i) + " is out of range for " + describeKind(object) +
                       " of " + std::to_string(size) + " elements");
  }
  return static_cast<size_t>(i < 0 ? i + count : i);
}

// The positions a slice selects from `size` elements, as Python's
// slice.indices() gives them.
std::vector<size_t> slicePositions(const Value& slice, size_t size,
                                   const SourceLocation& location) {
  const ValueList& parts = *slice.elements;
  auto part = [&](size_t i) -> std::optional<int64_t> {
    if (parts[i].isNone()) return std::nullopt;
    if (!isIntLike(parts[i])) {
      fail(location, "slice indices must be ints or None, found " + describeKind(parts[i]));
    }
    return intOf(parts[i]);
  };
  const int64_t step = part(2).value_or(1);
  if (step == 0) fail(location, "slice step cannot be zero");
  const auto count = static_cast<int64_t>(size);
  auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t x = *v < 0 ? *v + count : *v;
    if (step > 0) return std::clamp<int64_t>(x, 0, count);
    return std::clamp<int64_t>(x, -1, count - 1);
  };
  const int64_t start = clamp(part(0), step > 0 ? 0 : count - 1);
  const int64_t stop = clamp(part(1), step > 0 ? count : -1);
  std::vector<size_t> positions;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    positions.push_back(static_cast<size_t>(i));
  }
  return positions;
}

Value sameKind(const Value& like, ValueList elements) {
  return like.is(Kind::kTuple) ? Value::tuple(std::move(elements))
                               : Value::list(std::move(elements));
}

// The index of `key` among a dict's keys, or nullopt.
std::optional<size_t> dictFind(const Value& dict, const Value& key) {
  const ValueList& entries = *dict.elements;
  chargeScan(entries.size() / 2);
  for (size_t i = 0; i + 1 < entries.size(); i += 2) {
    if (valuesEqual(entries[i], key)) return i;
  }
  return std::nullopt;
}

bool hashable(const Value& value) {
  switch (value.kind) {
    case Kind::kList:
    case Kind::kDict: return false;
    case Kind::kTuple: return std::all_of(value.items().begin(), value.items().end(), hashable);
    default: return true;
  }
}

void dictSet(const Value& dict, const Value& key, const Value& value,
             const SourceLocation& location) {
  if (!hashable(key)) {
    fail(location, describeKind(key) + " cannot be a dict key (unhashable)");
  }
  ValueList& entries = *dict.elements;
  if (std::optional<size_t> at = dictFind(dict, key)) {
    entries[*at + 1] = value;
    return;
  }
  checkSequenceSize(entries.size() / 2 + 1, location);
  entries.push_back(key);
  entries.push_back(value);
}

Value repeated(const Value& sequence, int64_t times, const SourceLocation& location) {
  if (times <= 0) {
    return sequence.is(Kind::kString) ? Value::string("") : sameKind(sequence, {});
  }
  const size_t unit = sequence.is(Kind::kString) ? sequence.text.size() : sequence.items().size();
  if (unit != 0 && static_cast<uint64_t>(times) > kMaxSequenceElements / unit) {
    fail(location, "repeating " + describeKind(sequence) + " of " + std::to_string(unit) +
                       " elements " + std::to_string(times) + " times is more than " +
                       std::to_string(kMaxSequenceElements) +
                       " elements, more than FuserLab's reader keeps");
  }
  chargeElementWork(unit * static_cast<size_t>(times), location);
  if (sequence.is(Kind::kString)) {
    std::string out;
    for (int64_t i = 0; i < times; ++i) out += sequence.text;
    return Value::string(std::move(out));
  }
  ValueList out;
  out.reserve(unit * static_cast<size_t>(times));
  for (int64_t i = 0; i < times; ++i) {
    out.insert(out.end(), sequence.items().begin(), sequence.items().end());
  }
  return sameKind(sequence, std::move(out));
}

// Python's ordering of two plain values for sorted(), min() and max().
bool lessThanImpl(const Value& a, const Value& b, const SourceLocation& location) {
  if (a.isNumber() && b.isNumber()) {
    return truthValue(applyBinary(BinaryOpKind::kLess, a, b, location), location);
  }
  if (a.is(Kind::kString) && b.is(Kind::kString)) return a.text < b.text;
  if (a.isSequence() && b.isSequence()) {
    const ValueList& x = a.items();
    const ValueList& y = b.items();
    const NestedWalk walk(std::min(x.size(), y.size()));
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (lessThanImpl(x[i], y[i], location)) return true;
      if (lessThanImpl(y[i], x[i], location)) return false;
    }
    return x.size() < y.size();
  }
  fail(location, "'<' is not supported between " + describeKind(a) + " and " + describeKind(b));
}

std::string joinStrings(const std::string& separator, const ValueList& parts,
                        const SourceLocation& location) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].is(Kind::kString)) {
      fail(location, "str.join expects strings, found " + describeKind(parts[i]));
    }
    if (i > 0) out += separator;
    out += parts[i].text;
    checkSequenceSize(out.size(), location);
  }
  return out;
}

// Appends `value`'s text to `out`, up to kMaxValueTextChars.
void appendValueText(const Value& value, std::string& out, int depth) {
  if (out.size() >= kMaxValueTextChars) return;
  switch (value.kind) {
    case Kind::kNone: out += "None"; return;
    case Kind::kBool: out += value.boolValue ? "True" : "False"; return;
    case Kind::kInt: out += std::to_string(value.intValue); return;
    case Kind::kFloat: out += std::to_string(value.floatValue); return;
    case Kind::kString: out += quoteForMessage(value.text); return;
    case Kind::kDataType: out += "DataType." + std::string(ir::toString(value.dtype)); return;
    case Kind::kTensor:
    case Kind::kScalar: out += value.val->name(); return;
    case Kind::kList:
    case Kind::kTuple: {
      const bool list = value.is(Kind::kList);
      if (depth >= kMaxValueTextDepth) {
        out += list ? "[...]" : "(...)";
        return;
      }
      out += list ? "[" : "(";
      const ValueList& items = value.items();
      for (size_t i = 0; i < items.size() && i < 16; ++i) {
        if (i > 0) out += ", ";
        if (out.size() >= kMaxValueTextChars) {
          out += "...";
          break;
        }
        appendValueText(items[i], out, depth + 1);
      }
      if (items.size() > 16) out += ", ...";
      if (!list && items.size() == 1) out += ",";
      out += list ? "]" : ")";
      return;
    }
    default: out += describeKind(value); return;
  }
}

}  // namespace

bool isIntLike(const Value& value) { return value.is(Kind::kInt) || value.is(Kind::kBool); }

int64_t intOf(const Value& value) {
  return value.is(Kind::kBool) ? (value.boolValue ? 1 : 0) : value.intValue;
}

ValueList iterableArgument(const BoundArguments& args, std::string_view name) {
  const Argument* argument = args.find(name);
  if (argument == nullptr) return {};
  return iterateValue(argument->value, argument->location);
}

void chargeElementWork(size_t elements, const SourceLocation& location) {
  elementWork += static_cast<int64_t>(elements);
  if (elementWork > kMaxElementWork) {
    fail(location, "the script builds or copies more than " + std::to_string(kMaxElementWork) +
                       " list elements; FuserLab reads scripts that define "
                       "a fusion, not long computations");
  }
}

void resetElementWork() {
  elementWork = 0;
  scanWork = 0;
}

bool valueLess(const Value& a, const Value& b, const SourceLocation& location) {
  return lessThanImpl(a, b, location);
}

void checkSequenceSize(size_t size, const SourceLocation& location) {
  if (size > kMaxSequenceElements) {
    fail(location, "a sequence of " + std::to_string(size) +
                       " elements is more than FuserLab's reader keeps (" +
                       std::to_string(kMaxSequenceElements) + ")");
  }
}

bool valuesEqual(const Value& lhs, const Value& rhs) {
  if (lhs.isNumber() && rhs.isNumber()) {
    if (isIntLike(lhs) && isIntLike(rhs)) return intOf(lhs) == intOf(rhs);
    return lhs.toDouble() == rhs.toDouble();
  }
  if (lhs.isSequence() && rhs.isSequence()) {
    if (lhs.kind != rhs.kind) return false;
    // The same list is equal to itself, as Python's identity shortcut has it
    // (a list holding itself compares equal to itself, NaNs and all).
    if (lhs.elements && lhs.elements == rhs.elements) return true;
    const ValueList& a = lhs.items();
    const ValueList& b = rhs.items();
    if (a.size() != b.size()) return false;
    const NestedWalk walk(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (!valuesEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (lhs.kind != rhs.kind) return false;
  switch (lhs.kind) {
    case Kind::kNone: return true;
    case Kind::kString:
    case Kind::kNamespace:
    case Kind::kClass: return lhs.text == rhs.text;
    case Kind::kDataType:
    case Kind::kTorchDtype: return lhs.dtype == rhs.dtype;
    case Kind::kTensor:
    case Kind::kScalar: return lhs.val == rhs.val;
    case Kind::kParallelType:
    case Kind::kInputTensor:
    case Kind::kDefinition:
    case Kind::kFd: return lhs.intValue == rhs.intValue;
    case Kind::kDict: {
      if (lhs.elements == rhs.elements) return true;
      if (lhs.elements->size() != rhs.elements->size()) return false;
      const NestedWalk walk(lhs.elements->size() / 2);
      for (size_t i = 0; i + 1 < lhs.elements->size(); i += 2) {
        std::optional<size_t> at = dictFind(rhs, (*lhs.elements)[i]);
        if (!at || !valuesEqual((*lhs.elements)[i + 1], (*rhs.elements)[*at + 1])) {
          return false;
        }
      }
      return true;
    }
    case Kind::kFunction: return lhs.function == rhs.function;
    default: return false;
  }
}

bool valuesIdentical(const Value& lhs, const Value& rhs) {
  if (lhs.kind != rhs.kind) return false;
  switch (lhs.kind) {
    case Kind::kList:
    case Kind::kDict: return lhs.elements == rhs.elements;
    case Kind::kTuple: return lhs.elements == rhs.elements || valuesEqual(lhs, rhs);
    case Kind::kOpaque: return false;
    default: return valuesEqual(lhs, rhs);
  }
}

bool containsValue(const Value& container, const Value& item, const SourceLocation& location) {
  if (container.is(Kind::kString)) {
    if (!item.is(Kind::kString)) {
      fail(location,
           "'in <string>' requires a string as the left operand, "
           "found " +
               describeKind(item));
    }
    return container.text.find(item.text) != std::string::npos;
  }
  if (container.is(Kind::kDict)) return dictFind(container, item).has_value();
  if (container.isSequence() || container.is(Kind::kDeviceMesh)) {
    const ValueList& items = container.elements ? *container.elements : ValueList{};
    chargeScan(items.size());
    return std::any_of(items.begin(), items.end(),
                       [&](const Value& v) { return valuesEqual(v, item); });
  }
  fail(location,
       "'in' needs a list, tuple, dict or string on its right, "
       "found " +
           describeKind(container));
}

ValueList iterateValue(const Value& value, const SourceLocation& location) {
  if (value.elements) chargeElementWork(value.elements->size(), location);
  if (value.is(Kind::kString)) chargeElementWork(value.text.size(), location);
  switch (value.kind) {
    case Kind::kList:
    case Kind::kTuple:
    case Kind::kDeviceMesh: return value.elements ? *value.elements : ValueList{};
    case Kind::kDict: {
      ValueList keys;
      for (size_t i = 0; i < value.elements->size(); i += 2) {
        keys.push_back((*value.elements)[i]);
      }
      return keys;
    }
    case Kind::kString: {
      ValueList chars;
      for (char c : value.text) chars.push_back(Value::string(std::string(1, c)));
      return chars;
    }
    default:
      fail(location, "cannot iterate over " + describeKind(value) +
                         "; expected a list, tuple, dict, string or range");
  }
}

std::optional<Value> subscriptValue(const Value& object, const Value& index,
                                    const SourceLocation& location) {
  if (object.is(Kind::kDict)) {
    std::optional<size_t> at = dictFind(object, index);
    if (!at) fail(location, "key " + valueText(index) + " is not in the dict");
    return (*object.elements)[*at + 1];
  }
  if (object.is(Kind::kString)) {
    if (index.is(Kind::kSlice)) {
      std::string out;
      chargeElementWork(object.text.size(), location);
      for (size_t i : slicePositions(index, object.text.size(), location)) {
        out += object.text[i];
      }
      return Value::string(std::move(out));
    }
    return Value::string(
        std::string(1, object.text[normalizedIndex(index, object.text.size(), object, location)]));
  }
  if (!object.isSequence()) return std::nullopt;
  const ValueList& items = object.items();
  if (index.is(Kind::kSlice)) {
    chargeElementWork(items.size(), location);
    ValueList out;
    for (size_t i : slicePositions(index, items.size(), location)) {
      out.push_back(items[i]);
    }
    return sameKind(object, std::move(out));
  }
  return items[normalizedIndex(index, items.size(), object, location)];
}

void assignSubscript(const Value& object, const Value& index, const Value& value,
                     const SourceLocation& location) {
  if (object.is(Kind::kDict)) {
    dictSet(object, index, value, location);
    return;
  }
  if (!object.is(Kind::kList)) {
    fail(location, describeKind(object) +
                       " does not support item assignment; only lists and "
                       "dicts do");
  }
  ValueList& items = *object.elements;
  if (index.is(Kind::kSlice)) {
    ValueList replacement = iterateValue(value, location);
    std::vector<size_t> positions = slicePositions(index, items.size(), location);
    const ValueList& parts = *index.elements;
    const bool simple = parts[2].isNone() || (isIntLike(parts[2]) && intOf(parts[2]) == 1);
    if (simple) {
      const auto count = static_cast<int64_t>(items.size());
      auto bound = [&](const Value& part, int64_t fallback) {
        if (part.isNone()) return fallback;
        if (!isIntLike(part)) {
          fail(location, "slice indices must be ints or None, found " + describeKind(part));
        }
        int64_t x = intOf(part);
        if (x < 0) x = std::max<int64_t>(0, x + count);
        return std::min(x, count);
      };
      const int64_t start = bound(parts[0], 0);
      const int64_t stop = std::max(start, bound(parts[1], count));
      items.erase(items.begin() + start, items.begin() + stop);
      items.insert(items.begin() + start, replacement.begin(), replacement.end());
      checkSequenceSize(items.size(), location);
      return;
    }
    if (replacement.size() != positions.size()) {
      fail(location, "attempt to assign a sequence of size " + std::to_string(replacement.size()) +
                         " to an extended slice of size " + std::to_string(positions.size()));
    }
    for (size_t i = 0; i < positions.size(); ++i) {
      items[positions[i]] = replacement[i];
    }
    return;
  }
  items[normalizedIndex(index, items.size(), object, location)] = value;
}

void deleteSubscript(const Value& object, const Value& index, const SourceLocation& location) {
  if (object.is(Kind::kDict)) {
    std::optional<size_t> at = dictFind(object, index);
    if (!at) fail(location, "key " + valueText(index) + " is not in the dict");
    object.elements->erase(object.elements->begin() + static_cast<std::ptrdiff_t>(*at),
                           object.elements->begin() + static_cast<std::ptrdiff_t>(*at + 2));
    return;
  }
  if (!object.is(Kind::kList)) {
    fail(location,
         describeKind(object) + " does not support item deletion; only lists and dicts do");
  }
  ValueList& items = *object.elements;
  if (index.is(Kind::kSlice)) {
    std::vector<size_t> positions = slicePositions(index, items.size(), location);
    std::sort(positions.begin(), positions.end());
    for (size_t i = positions.size(); i-- > 0;) {
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(positions[i]));
    }
    return;
  }
  items.erase(items.begin() +
              static_cast<std::ptrdiff_t>(normalizedIndex(index, items.size(), object, location)));
}

std::optional<Value> sequenceArithmetic(BinaryOpKind op, const Value& lhs, const Value& rhs,
                                        const SourceLocation& location) {
  const bool lhsSeq = lhs.isSequence() || lhs.is(Kind::kString);
  const bool rhsSeq = rhs.isSequence() || rhs.is(Kind::kString);
  if (!lhsSeq && !rhsSeq) return std::nullopt;
  if (op == BinaryOpKind::kEq) return Value::boolean(valuesEqual(lhs, rhs));
  if (op == BinaryOpKind::kNotEq) return Value::boolean(!valuesEqual(lhs, rhs));
  if (op == BinaryOpKind::kAdd && lhs.kind == rhs.kind) {
    if (lhs.is(Kind::kString)) {
      // Bounded as lists are: `x = x + x` sixty times ran out of memory.
      checkSequenceSize(lhs.text.size() + rhs.text.size(), location);
      chargeElementWork(lhs.text.size() + rhs.text.size(), location);
      return Value::string(lhs.text + rhs.text);
    }
    checkSequenceSize(lhs.items().size() + rhs.items().size(), location);
    chargeElementWork(lhs.items().size() + rhs.items().size(), location);
    ValueList out = lhs.items();
    out.insert(out.end(), rhs.items().begin(), rhs.items().end());
    return sameKind(lhs, std::move(out));
  }
  if (op == BinaryOpKind::kMul) {
    if (lhsSeq && isIntLike(rhs)) return repeated(lhs, intOf(rhs), location);
    if (rhsSeq && isIntLike(lhs)) return repeated(rhs, intOf(lhs), location);
  }
  if (lhs.kind == rhs.kind && (op == BinaryOpKind::kLess || op == BinaryOpKind::kLessEq ||
                               op == BinaryOpKind::kGreater || op == BinaryOpKind::kGreaterEq)) {
    const bool less = lessThanImpl(lhs, rhs, location);
    const bool greater = lessThanImpl(rhs, lhs, location);
    switch (op) {
      case BinaryOpKind::kLess: return Value::boolean(less);
      case BinaryOpKind::kLessEq: return Value::boolean(!greater);
      case BinaryOpKind::kGreater: return Value::boolean(greater);
      default: return Value::boolean(!less);
    }
  }
  if (op == BinaryOpKind::kMod && lhs.is(Kind::kString)) {
    return lhs;  // %-formatting only makes messages; the template stands in
  }
  fail(location, "unsupported operands for '" + std::string(spelling(op)) +
                     "': " + describeKind(lhs) + " and " + describeKind(rhs));
}

bool hasPlainMethod(const Value& receiver, std::string_view name) {
  static constexpr std::string_view kList[] = {"append", "extend", "insert", "pop",
                                               "index",  "count",  "copy",   "reverse",
                                               "sort",   "remove", "clear"};
  static constexpr std::string_view kTuple[] = {"index", "count"};
  static constexpr std::string_view kDict[] = {"get",    "items", "keys",       "values",
                                               "update", "pop",   "setdefault", "copy"};
  static constexpr std::string_view kString[] = {"format",     "join",     "upper",  "lower",
                                                 "startswith", "endswith", "split",  "strip",
                                                 "replace",    "isdigit",  "lstrip", "rstrip"};
  auto in = [&](const auto& names) {
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
  };
  switch (receiver.kind) {
    case Kind::kList: return in(kList);
    case Kind::kTuple: return in(kTuple);
    case Kind::kDict: return in(kDict);
    case Kind::kString: return in(kString);
    default: return false;
  }
}

std::optional<Value> callPlainMethod(const Value& receiver, const std::string& name,
                                     const EvaluatedCall& call) {
  if (!hasPlainMethod(receiver, name)) return std::nullopt;
  const SourceLocation& where = call.location;
  if (receiver.is(Kind::kString)) {
    const std::string& text = receiver.text;
    if (name == "format") return receiver;  // messages only
    if (name == "join") {
      BoundArguments args(call, {{"iterable", true}});
      return Value::string(joinStrings(text, iterableArgument(args, "iterable"), where));
    }
    if (name == "upper" || name == "lower") {
      BoundArguments args(call, {});
      std::string out = text;
      for (char& c : out) {
        c = name == "upper" ? static_cast<char>(std::toupper(c))
                            : static_cast<char>(std::tolower(c));
      }
      return Value::string(std::move(out));
    }
    if (name == "isdigit") {
      BoundArguments args(call, {});
      return Value::boolean(!text.empty() && std::all_of(text.begin(), text.end(), ::isdigit));
    }
    if (name == "startswith" || name == "endswith") {
      BoundArguments args(call, {{"prefix", true}});
      const Argument& prefix = *args.find("prefix");
      if (!prefix.value.is(Kind::kString)) args.failType(prefix, "a string");
      return Value::boolean(name == "startswith" ? text.starts_with(prefix.value.text)
                                                 : text.ends_with(prefix.value.text));
    }
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
      BoundArguments args(call, {});
      const char* spaces = " \t\n\r";
      size_t begin = name == "rstrip" ? 0 : text.find_first_not_of(spaces);
      if (begin == std::string::npos) return Value::string("");
      size_t end = name == "lstrip" ? text.size() : text.find_last_not_of(spaces) + 1;
      return Value::string(text.substr(begin, end - begin));
    }
    if (name == "replace") {
      BoundArguments args(call, {{"old", true}, {"new", true}});
      const Argument& old = *args.find("old");
      const Argument& replacement = *args.find("new");
      if (!old.value.is(Kind::kString) || old.value.text.empty()) {
        args.failType(old, "a non-empty string");
      }
      if (!replacement.value.is(Kind::kString)) {
        args.failType(replacement, "a string");
      }
      std::string out;
      size_t at = 0;
      while (true) {
        size_t next = text.find(old.value.text, at);
        out += text.substr(at, next - at);
        if (next == std::string::npos) break;
        out += replacement.value.text;
        checkSequenceSize(out.size(), where);
        at = next + old.value.text.size();
      }
      return Value::string(std::move(out));
    }
    // split
    BoundArguments args(call, {{"sep", false}});
    ValueList parts;
    if (args.has("sep")) {
      const Argument& sep = *args.find("sep");
      if (!sep.value.is(Kind::kString) || sep.value.text.empty()) {
        args.failType(sep, "a non-empty string");
      }
      size_t at = 0;
      while (true) {
        size_t next = text.find(sep.value.text, at);
        parts.push_back(Value::string(text.substr(at, next - at)));
        if (next == std::string::npos) break;
        at = next + sep.value.text.size();
      }
    } else {
      size_t at = 0;
      while ((at = text.find_first_not_of(" \t\n", at)) != std::string::npos) {
        size_t end = text.find_first_of(" \t\n", at);
        parts.push_back(Value::string(text.substr(at, end - at)));
        at = end;
      }
    }
    return Value::list(std::move(parts));
  }
  if (receiver.is(Kind::kDict)) {
    ValueList& entries = *receiver.elements;
    if (name == "get" || name == "pop" || name == "setdefault") {
      BoundArguments args(call, {{"key", true}, {"default", false}});
      const Value& key = args.find("key")->value;
      Value fallback = args.find("default") ? args.find("default")->value : Value::none();
      std::optional<size_t> at = dictFind(receiver, key);
      if (!at) {
        if (name == "pop" && args.find("default") == nullptr) {
          fail(where, "key " + valueText(key) + " is not in the dict");
        }
        if (name == "setdefault") dictSet(receiver, key, fallback, where);
        return fallback;
      }
      Value found = entries[*at + 1];
      if (name == "pop") {
        entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(*at),
                      entries.begin() + static_cast<std::ptrdiff_t>(*at + 2));
      }
      return found;
    }
    if (name == "update") {
      BoundArguments args(call, {{"other", true}});
      const Argument& other = *args.find("other");
      if (!other.value.is(Kind::kDict)) args.failType(other, "a dict");
      const ValueList copy = *other.value.elements;
      for (size_t i = 0; i + 1 < copy.size(); i += 2) {
        dictSet(receiver, copy[i], copy[i + 1], where);
      }
      return Value::none();
    }
    BoundArguments args(call, {});
    chargeElementWork(entries.size(), where);
    if (name == "copy") return Value::dict(entries);
    ValueList out;
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      if (name == "keys") out.push_back(entries[i]);
      if (name == "values") out.push_back(entries[i + 1]);
      if (name == "items") {
        out.push_back(Value::tuple({entries[i], entries[i + 1]}));
      }
    }
    return Value::list(std::move(out));
  }
  // Lists and tuples. What scans, copies or shifts elements is charged.
  ValueList& items = *receiver.elements;
  if (name == "index" || name == "count") {
    BoundArguments args(call, {{"value", true}});
    const Value& wanted = args.find("value")->value;
    chargeScan(items.size());
    int64_t count = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!valuesEqual(items[i], wanted)) continue;
      if (name == "index") return Value::integer(static_cast<int64_t>(i));
      ++count;
    }
    if (name == "index") {
      fail(where,
           valueText(wanted) + " is not in the " + (receiver.is(Kind::kTuple) ? "tuple" : "list"));
    }
    return Value::integer(count);
  }
  if (name == "append") {
    BoundArguments args(call, {{"value", true}});
    checkSequenceSize(items.size() + 1, where);
    items.push_back(args.find("value")->value);
    return Value::none();
  }
  if (name == "extend") {
    BoundArguments args(call, {{"iterable", true}});
    ValueList more = iterableArgument(args, "iterable");
    checkSequenceSize(items.size() + more.size(), where);
    items.insert(items.end(), more.begin(), more.end());
    return Value::none();
  }
  if (name == "insert") {
    BoundArguments args(call, {{"index", true}, {"value", true}});
    checkSequenceSize(items.size() + 1, where);
    const auto size = static_cast<int64_t>(items.size());
    int64_t i = args.integer("index");
    if (i < 0) i = std::max<int64_t>(0, i + size);
    i = std::min(i, size);
    chargeScan(static_cast<size_t>(size - i));
    items.insert(items.begin() + i, args.find("value")->value);
    return Value::none();
  }
  if (name == "pop") {
    BoundArguments args(call, {{"index", false}});
    if (items.empty()) fail(where, "pop from an empty list");
    const Value index = args.find("index") ? args.find("index")->value : Value::integer(-1);
    size_t at = normalizedIndex(index, items.size(), receiver, where);
    chargeScan(items.size() - at);
    Value popped = items[at];
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(at));
    return popped;
  }
  if (name == "remove") {
    BoundArguments args(call, {{"value", true}});
    const Value& wanted = args.find("value")->value;
    chargeScan(items.size());
    auto it = std::find_if(items.begin(), items.end(),
                           [&](const Value& v) { return valuesEqual(v, wanted); });
    if (it == items.end()) fail(where, valueText(wanted) + " is not in the list");
    items.erase(it);
    return Value::none();
  }
  BoundArguments args(call, {{"reverse", false}});
  if (name == "copy") {
    chargeElementWork(items.size(), where);
    return Value::list(items);
  }
  chargeScan(items.size());
  if (name == "clear") {
    items.clear();
    return Value::none();
  }
  if (name == "reverse") {
    std::reverse(items.begin(), items.end());
    return Value::none();
  }
  // sort
  const bool descending = args.boolean("reverse", false);
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    return descending ? lessThanImpl(b, a, where) : lessThanImpl(a, b, where);
  });
  return Value::none();
}

std::string valueText(const Value& value) {
  std::string out;
  appendValueText(value, out, 0);
  return out;
}

}  // namespace fuserlab::frontend
