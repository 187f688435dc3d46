#include "core/frontend/expression_evaluator.h"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/frontend/multidevice_calls.h"
#include "core/frontend/python_arithmetic.h"
#include "core/frontend/python_builtins.h"
#include "core/frontend/python_values.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

constexpr std::string_view kDataTypePath = "nvfuser.DataType";

// nvfuser_direct, nvFuser's frontend since 2026-02, names the same things as
// the older nvfuser module; FuserLab reads both under one path.
std::string canonicalModule(const std::string& path) {
  constexpr std::string_view kDirect = "nvfuser_direct";
  if (path.starts_with(kDirect) && (path.size() == kDirect.size() || path[kDirect.size()] == '.')) {
    return "nvfuser" + path.substr(kDirect.size());
  }
  return path;
}

// Names every script may use without importing them, as nvFuser's repro
// scripts do (some omit `import torch`).
const Value* lookupBuiltin(std::string_view name) {
  static const NameTable builtins = [] {
    NameTable table;
    table["torch"] = Value::nameSpace("torch");
    table["math"] = Value::nameSpace("math");
    table["nvfuser"] = Value::nameSpace("nvfuser");
    table["DataType"] = Value::nameSpace(std::string(kDataTypePath));
    table["FusionDefinition"] = Value::nameSpace("nvfuser.FusionDefinition");
    for (const char* function : {"float",
                                 "int",
                                 "bool",
                                 "abs",
                                 "print",
                                 "range",
                                 "len",
                                 "list",
                                 "tuple",
                                 "dict",
                                 "set",
                                 "frozenset",
                                 "reversed",
                                 "enumerate",
                                 "zip",
                                 "any",
                                 "all",
                                 "sum",
                                 "min",
                                 "max",
                                 "round",
                                 "divmod",
                                 "pow",
                                 "str",
                                 "repr",
                                 "isinstance",
                                 "sorted",
                                 "map",
                                 "filter",
                                 "super",
                                 "ValueError",
                                 "RuntimeError",
                                 "NotImplementedError",
                                 "TypeError",
                                 "AssertionError",
                                 "KeyError",
                                 "IndexError",
                                 "Exception",
                                 "object",
                                 "getattr",
                                 "hasattr",
                                 "iter",
                                 "next",
                                 "type",
                                 "id",
                                 "hash"}) {
      table[function] = Value::nameSpace(std::string("builtins.") + function);
    }
    table["__name__"] = Value::string("__main__");
    return table;
  }();
  auto it = builtins.find(name);
  return it == builtins.end() ? nullptr : &it->second;
}

Value mathConstant(std::string_view name) {
  if (name == "pi") return Value::floating(std::numbers::pi);
  if (name == "e") return Value::floating(std::numbers::e);
  if (name == "tau") return Value::floating(2 * std::numbers::pi);
  if (name == "inf") {
    return Value::floating(std::numeric_limits<double>::infinity());
  }
  if (name == "nan") {
    return Value::floating(std::numeric_limits<double>::quiet_NaN());
  }
  return Value::none();
}

Value dataTypeNamed(const std::string& name) {
  // parseDataType throws for known but unsupported types (Float8, complex).
  std::optional<ir::DataType> dtype = ir::parseDataType(name);
  if (!dtype) {
    throw UserError("DataType." + name +
                    " is not a DataType; expected one of Bool, Int32, Int, "
                    "Half, BFloat16, Float, Double or Null");
  }
  return Value::dataType(*dtype);
}

}  // namespace

void bindImport(const Stmt& stmt, NameTable& names) {
  if (const auto* import = stmt.as<Import>()) {
    for (const ImportAlias& alias : import->names) {
      if (!alias.asName.empty()) {
        names[alias.asName] = Value::nameSpace(canonicalModule(alias.name));
      } else {
        // `import torch.testing` binds `torch`.
        std::string first = alias.name.substr(0, alias.name.find('.'));
        names[first] = Value::nameSpace(canonicalModule(first));
      }
    }
  } else if (const auto* from = stmt.as<ImportFrom>()) {
    const std::string module = canonicalModule(from->module);
    for (const ImportAlias& alias : from->names) {
      if (alias.name == "*") continue;  // the builtins cover nvfuser's names
      const std::string& bound = alias.asName.empty() ? alias.name : alias.asName;
      names[bound] = Value::nameSpace(module + "." + alias.name);
    }
  }
}

std::string dottedName(const Expr& expr) {
  if (const auto* name = expr.as<Name>()) return name->id;
  if (const auto* attribute = expr.as<Attribute>()) {
    if (attribute->object->is<Name>() || attribute->object->is<Attribute>()) {
      return dottedName(*attribute->object) + "." + attribute->name;
    }
    // A method of a call's result: `torch.randn(4).contiguous`.
    if (const auto* call = attribute->object->as<Call>()) {
      return dottedName(*call->callee) + "(...)." + attribute->name;
    }
  }
  return "the " + std::string(kindName(expr));
}

void assignTargets(const Expr& target, const Value& value,
                   const std::function<void(const std::string&, const Value&)>& bind) {
  if (const auto* name = target.as<Name>()) {
    bind(name->id, value);
    return;
  }
  const std::vector<ExprPtr>* names = nullptr;
  if (const auto* tuple = target.as<Tuple>()) names = &tuple->elements;
  if (const auto* list = target.as<List>()) names = &list->elements;
  if (names == nullptr) {
    throw UserError("cannot assign to a " + std::string(kindName(target)), target.location);
  }
  if (!value.isSequence()) {
    throw UserError("cannot unpack " + describeKind(value) + " into " +
                        std::to_string(names->size()) + " names",
                    target.location);
  }
  if (value.items().size() != names->size()) {
    throw UserError("expected " + std::to_string(names->size()) + " values to unpack, found " +
                        std::to_string(value.items().size()),
                    target.location);
  }
  for (size_t i = 0; i < names->size(); ++i) {
    assignTargets(*(*names)[i], value.items()[i], bind);
  }
}

Value ExpressionEvaluator::evaluate(const Expr& expr) {
  // The parser bounds one tree's height; calls into script functions stack
  // trees on each other, so the whole evaluation is bounded too.
  if (evaluationDepth_ >= kMaxEvaluationDepth) {
    throw UserError(
        "expressions and the function calls inside them nest "
        "more than " +
            std::to_string(kMaxEvaluationDepth) + " deep; FuserLab stops here",
        expr.location);
  }
  ++evaluationDepth_;
  try {
    Value value = evaluateNode(expr);
    --evaluationDepth_;
    return value;
  } catch (const UserError& error) {
    --evaluationDepth_;
    if (error.location()) throw;
    throw UserError(error.message(), expr.location);
  } catch (...) {
    --evaluationDepth_;
    throw;
  }
}

void ExpressionEvaluator::countStep(const SourceLocation& location) {
  if (++steps_ > kMaxScriptSteps) {
    throw UserError("the script runs more than " + std::to_string(kMaxScriptSteps) +
                        " steps (statements, loop turns and comprehension "
                        "elements); FuserLab reads scripts that define a "
                        "fusion, not long computations",
                    location);
  }
}

ValueList ExpressionEvaluator::evaluateElements(const std::vector<ExprPtr>& elements) {
  ValueList values;
  values.reserve(elements.size());
  for (const ExprPtr& element : elements) {
    if (const auto* starred = element->as<Starred>()) {
      Value inner = evaluate(*starred->value);
      ValueList expanded = iterateValue(inner, starred->value->location);
      values.insert(values.end(), expanded.begin(), expanded.end());
      checkSequenceSize(values.size(), element->location);
      continue;
    }
    values.push_back(evaluate(*element));
  }
  if (!elements.empty()) {
    chargeElementWork(values.size(), elements.front()->location);
  }
  return values;
}

Value ExpressionEvaluator::evaluateNode(const Expr& expr) {
  if (const auto* name = expr.as<Name>()) {
    return lookupName(name->id, expr.location);
  }
  if (const auto* number = expr.as<Number>()) {
    return number->isInt ? Value::integer(number->intValue) : Value::floating(number->floatValue);
  }
  if (const auto* string = expr.as<String>()) {
    if (string->isBytes) {
      throw UserError("bytes literals are not supported", expr.location);
    }
    return Value::string(string->value);
  }
  if (const auto* constant = expr.as<Constant>()) {
    switch (constant->kind) {
      case ConstantKind::kTrue: return Value::boolean(true);
      case ConstantKind::kFalse: return Value::boolean(false);
      case ConstantKind::kNone: return Value::none();
    }
  }
  if (const auto* attribute = expr.as<Attribute>()) {
    return evaluateAttribute(*attribute, expr);
  }
  if (const auto* call = expr.as<Call>()) return evaluateCall(*call, expr);
  if (const auto* list = expr.as<List>()) {
    return Value::list(evaluateElements(list->elements));
  }
  if (const auto* tuple = expr.as<Tuple>()) {
    return Value::tuple(evaluateElements(tuple->elements));
  }
  if (const auto* subscript = expr.as<Subscript>()) {
    return evaluateSubscript(*subscript, expr);
  }
  if (const auto* unary = expr.as<UnaryOp>()) {
    Value operand = evaluate(*unary->operand);
    if (operand.isFusionVal()) {
      return unaryOnFusionValue(unary->op, operand, expr.location);
    }
    if (operand.is(Kind::kOpaque) && unary->op != UnaryOpKind::kNot) {
      return operand;
    }
    if (operand.is(Kind::kInputTensor)) {
      return Value::opaque("a torch computation");
    }
    return applyUnary(unary->op, operand, expr.location);
  }
  if (const auto* binary = expr.as<BinaryOp>()) {
    return evaluateBinary(*binary, expr);
  }
  if (const auto* ifExp = expr.as<IfExp>()) {
    Value test = evaluate(*ifExp->test);
    return truthValue(test, ifExp->test->location) ? evaluate(*ifExp->body)
                                                   : evaluate(*ifExp->orelse);
  }
  if (const auto* slice = expr.as<Slice>()) {
    auto part = [&](const ExprPtr& e) { return e ? evaluate(*e) : Value::none(); };
    return Value::slice(part(slice->lower), part(slice->upper), part(slice->step));
  }
  if (const auto* dict = expr.as<Dict>()) return evaluateDict(*dict);
  if (const auto* comprehension = expr.as<Comprehension>()) {
    return evaluateComprehension(*comprehension, expr);
  }
  if (const auto* lambda = expr.as<Lambda>()) return makeLambda(*lambda, expr);
  if (const auto* named = expr.as<NamedExpr>()) {
    Value value = evaluate(*named->value);
    bindName(named->target, value, expr.location);
    return value;
  }
  if (expr.is<Starred>()) {
    throw UserError(
        "a starred expression ('*x') is only allowed in a list, "
        "a tuple, a call or an assignment target",
        expr.location);
  }
  throw UserError("a " + std::string(kindName(expr)) + " is not supported here", expr.location);
}

Value ExpressionEvaluator::evaluateDict(const Dict& dict) {
  Value result = Value::dict({});
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    Value key = evaluate(*dict.keys[i]);
    Value value = evaluate(*dict.values[i]);
    assignSubscript(result, key, value, dict.keys[i]->location);
  }
  return result;
}

Value ExpressionEvaluator::evaluateComprehension(const Comprehension& comprehension,
                                                 const Expr& expr) {
  ValueList out;
  scopes_.emplace_back();
  opaqueComprehension_ = false;
  try {
    runClauses(comprehension, 0, out);
  } catch (...) {
    scopes_.pop_back();
    throw;
  }
  scopes_.pop_back();
  if (opaqueComprehension_) {
    opaqueComprehension_ = false;
    return Value::opaque("a comprehension over run-time values");
  }
  switch (comprehension.kind) {
    case ComprehensionKind::kDict: {
      Value dict = Value::dict({});
      for (size_t i = 0; i + 1 < out.size(); i += 2) {
        assignSubscript(dict, out[i], out[i + 1], expr.location);
      }
      return dict;
    }
    case ComprehensionKind::kSet: {
      ValueList distinct;
      for (const Value& v : out) {
        bool seen = false;
        for (const Value& d : distinct) seen = seen || valuesEqual(d, v);
        if (!seen) distinct.push_back(v);
      }
      return Value::list(std::move(distinct));
    }
    default:
      // A generator is consumed where it stands (sum(...), tuple(...)), so
      // a list gives the same result.
      return Value::list(std::move(out));
  }
}

void ExpressionEvaluator::runClauses(const Comprehension& comprehension, size_t clause,
                                     ValueList& out) {
  if (clause == comprehension.clauses.size()) {
    countStep(comprehension.element->location);
    out.push_back(evaluate(*comprehension.element));
    if (comprehension.value) out.push_back(evaluate(*comprehension.value));
    checkSequenceSize(out.size(), comprehension.element->location);
    return;
  }
  const ComprehensionFor& current = comprehension.clauses[clause];
  Value iterable = evaluate(*current.iterable);
  if (iterable.is(Kind::kOpaque)) {
    opaqueComprehension_ = true;
    return;
  }
  const size_t depth = scopes_.size() - 1;
  for (const Value& element : iterateValue(iterable, current.iterable->location)) {
    assignTargets(*current.target, element,
                  [&](const std::string& name, const Value& v) { scopes_[depth][name] = v; });
    bool keep = true;
    for (const ExprPtr& condition : current.conditions) {
      if (!truthValue(evaluate(*condition), condition->location)) {
        keep = false;
        break;
      }
    }
    if (keep) runClauses(comprehension, clause + 1, out);
  }
}

Value ExpressionEvaluator::lookupName(const std::string& name, const SourceLocation& location) {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    if (auto it = scope->find(name); it != scope->end()) return it->second;
  }
  if (const Value* local = lookupLocal(name)) return *local;
  if (auto it = globals_.find(name); it != globals_.end()) return it->second;
  if (const Value* builtin = lookupBuiltin(name)) return *builtin;
  constexpr size_t kShown = 60;
  std::string shown = name.size() > kShown ? name.substr(0, kShown) + "..." : name;
  throw UserError(shown + " is not defined", location);
}

Value ExpressionEvaluator::evaluateAttribute(const Attribute& attribute, const Expr& expr) {
  Value object = evaluate(*attribute.object);
  return attributeValue(object, attribute, expr);
}

Value ExpressionEvaluator::attributeValue(const Value& object, const Attribute& attribute,
                                          const Expr& expr) {
  if (object.is(Kind::kOpaque)) return object;
  if (hasPlainMethod(object, attribute.name)) {
    return Value::method(object, attribute.name);
  }
  if (!object.is(Kind::kNamespace)) {
    return attributeOf(object, attribute, expr);
  }
  const std::string& path = object.text;
  const std::string& name = attribute.name;
  if (path == kDataTypePath) return dataTypeNamed(name);
  if (std::optional<Value> type = parallelTypeAttribute(path, name, attribute.nameLocation)) {
    return *type;
  }
  if (path == "torch") {
    if (std::optional<ir::DataType> dtype = ir::parseTorchDtype(name)) {
      return Value::torchDtype(*dtype);
    }
  }
  if (path == "math") {
    Value constant = mathConstant(name);
    if (!constant.isNone()) return constant;
  }
  return Value::nameSpace(canonicalModule(path + "." + name));
}

Value ExpressionEvaluator::attributeOf(const Value& object, const Attribute& attribute,
                                       const Expr& expr) {
  throw UserError(describeKind(object) + " has no attribute " + quoteForMessage(attribute.name) +
                      " that FuserLab knows",
                  attribute.nameLocation);
}

Value ExpressionEvaluator::evaluateSubscript(const Subscript& subscript, const Expr& expr) {
  Value object = evaluate(*subscript.object);
  Value index = evaluate(*subscript.index);
  if (object.is(Kind::kOpaque)) return object;
  if (object.is(Kind::kInputTensor)) {
    return indexTorchTensor(object, index, subscript.index->location);
  }
  if (std::optional<Value> value = subscriptValue(object, index, subscript.index->location)) {
    return *value;
  }
  throw UserError("cannot index " + describeKind(object) +
                      "; only lists, tuples, dicts and strings can be indexed",
                  expr.location);
}

Value ExpressionEvaluator::evaluateBinary(const BinaryOp& binary, const Expr& expr) {
  Value lhs = evaluate(*binary.lhs);
  if (binary.op == BinaryOpKind::kAnd || binary.op == BinaryOpKind::kOr) {
    // Python's short circuit: the deciding operand is the result.
    const bool truth = truthValue(lhs, binary.lhs->location);
    if ((binary.op == BinaryOpKind::kAnd) != truth) return lhs;
    Value rhs = evaluate(*binary.rhs);
    truthValue(rhs, binary.rhs->location);  // refuses fusion values
    return rhs;
  }
  Value rhs = evaluate(*binary.rhs);
  switch (binary.op) {
    case BinaryOpKind::kIs: return Value::boolean(valuesIdentical(lhs, rhs));
    case BinaryOpKind::kIsNot: return Value::boolean(!valuesIdentical(lhs, rhs));
    case BinaryOpKind::kIn: return Value::boolean(containsValue(rhs, lhs, binary.opLocation));
    case BinaryOpKind::kNotIn: return Value::boolean(!containsValue(rhs, lhs, binary.opLocation));
    default: break;
  }
  if (lhs.isFusionVal() || rhs.isFusionVal()) {
    return binaryOnFusionValues(binary.op, lhs, rhs, binary.opLocation);
  }
  if (lhs.is(Kind::kOpaque)) return lhs;
  if (rhs.is(Kind::kOpaque)) return rhs;
  if (lhs.is(Kind::kInputTensor) || rhs.is(Kind::kInputTensor)) {
    // Eager torch arithmetic: the script's own reference, computed when
    // it runs, not by the reader.
    return Value::opaque("a torch computation");
  }
  if (std::optional<Value> value = sequenceArithmetic(binary.op, lhs, rhs, binary.opLocation)) {
    return *value;
  }
  if ((binary.op == BinaryOpKind::kEq || binary.op == BinaryOpKind::kNotEq) &&
      !(lhs.isNumber() && rhs.isNumber())) {
    const bool equal = valuesEqual(lhs, rhs);
    return Value::boolean(binary.op == BinaryOpKind::kEq ? equal : !equal);
  }
  return applyBinary(binary.op, lhs, rhs, binary.opLocation);
}

void ExpressionEvaluator::assign(const Expr& target, const Value& value) {
  if (const auto* name = target.as<Name>()) {
    bindName(name->id, value, target.location);
    return;
  }
  if (const auto* subscript = target.as<Subscript>()) {
    Value object = evaluate(*subscript->object);
    Value index = evaluate(*subscript->index);
    if (object.is(Kind::kOpaque)) return;
    assignSubscript(object, index, value, subscript->index->location);
    return;
  }
  if (const auto* attribute = target.as<Attribute>()) {
    Value object = evaluate(*attribute->object);
    if (object.is(Kind::kOpaque)) return;
    assignAttribute(object, attribute->name, value, attribute->nameLocation);
    return;
  }
  const std::vector<ExprPtr>* targets = nullptr;
  if (const auto* tuple = target.as<Tuple>()) targets = &tuple->elements;
  if (const auto* list = target.as<List>()) targets = &list->elements;
  if (targets == nullptr) {
    throw UserError("cannot assign to a " + std::string(kindName(target)), target.location);
  }
  if (value.is(Kind::kOpaque)) {
    // `out, *_ = fd.execute(inputs)`: every name gets the run-time value.
    for (const ExprPtr& element : *targets) {
      const Expr& inner = element->is<Starred>() ? *element->as<Starred>()->value : *element;
      assign(inner, value);
    }
    return;
  }
  ValueList items = iterateValue(value, target.location);
  size_t starAt = targets->size();
  for (size_t i = 0; i < targets->size(); ++i) {
    if ((*targets)[i]->is<Starred>()) starAt = i;
  }
  if (starAt == targets->size()) {
    if (items.size() != targets->size()) {
      throw UserError("expected " + std::to_string(targets->size()) + " values to unpack, found " +
                          std::to_string(items.size()),
                      target.location);
    }
    for (size_t i = 0; i < targets->size(); ++i) assign(*(*targets)[i], items[i]);
    return;
  }
  const size_t fixed = targets->size() - 1;
  if (items.size() < fixed) {
    throw UserError("expected at least " + std::to_string(fixed) + " values to unpack, found " +
                        std::to_string(items.size()),
                    target.location);
  }
  const size_t rest = items.size() - fixed;
  for (size_t i = 0; i < starAt; ++i) assign(*(*targets)[i], items[i]);
  ValueList starred(items.begin() + static_cast<std::ptrdiff_t>(starAt),
                    items.begin() + static_cast<std::ptrdiff_t>(starAt + rest));
  assign(*(*targets)[starAt]->as<Starred>()->value, Value::list(std::move(starred)));
  for (size_t i = starAt + 1; i < targets->size(); ++i) {
    assign(*(*targets)[i], items[i - 1 + rest]);
  }
}

void ExpressionEvaluator::bindName(const std::string& name, const Value& value,
                                   const SourceLocation& location) {
  throw UserError("cannot assign to " + quoteForMessage(name) + " here", location);
}

void ExpressionEvaluator::assignAttribute(const Value& object, const std::string& name,
                                          const Value& value, const SourceLocation& location) {
  throw UserError(
      "cannot set the attribute " + quoteForMessage(name) + " of " + describeKind(object),
      location);
}

Value ExpressionEvaluator::indexTorchTensor(const Value& tensor, const Value& index,
                                            const SourceLocation& location) {
  return Value::opaque("a torch computation");
}

Value ExpressionEvaluator::makeLambda(const Lambda& lambda, const Expr& expr) {
  throw UserError("a lambda is not supported here", expr.location);
}

const Value* ExpressionEvaluator::lookupLocal(std::string_view name) const { return nullptr; }

Value ExpressionEvaluator::binaryOnFusionValues(BinaryOpKind op, const Value& lhs, const Value& rhs,
                                                const SourceLocation& location) {
  throw UserError("'" + std::string(spelling(op)) + "' on " + describeKind(lhs) + " and " +
                      describeKind(rhs) + " is not supported here",
                  location);
}

Value ExpressionEvaluator::unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                                              const SourceLocation& location) {
  throw UserError("unary '" + std::string(spelling(op)) + "' on " + describeKind(operand) +
                      " is not supported here",
                  location);
}

}  // namespace fuserlab::frontend
