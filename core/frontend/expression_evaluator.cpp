#include "core/frontend/expression_evaluator.h"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/frontend/multidevice_calls.h"
#include "core/frontend/python_arithmetic.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

constexpr std::string_view kDataTypePath = "nvfuser.DataType";

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
    for (const char* function :
         {"float", "int", "bool", "abs", "print", "range"}) {
      table[function] = Value::nameSpace(std::string("builtins.") + function);
    }
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
        names[alias.asName] = Value::nameSpace(alias.name);
      } else {
        // `import torch.testing` binds `torch`.
        std::string first = alias.name.substr(0, alias.name.find('.'));
        names[first] = Value::nameSpace(first);
      }
    }
  } else if (const auto* from = stmt.as<ImportFrom>()) {
    for (const ImportAlias& alias : from->names) {
      if (alias.name == "*") continue;  // the builtins cover nvfuser's names
      const std::string& bound = alias.asName.empty() ? alias.name : alias.asName;
      names[bound] = Value::nameSpace(from->module + "." + alias.name);
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

void assignTargets(
    const Expr& target, const Value& value,
    const std::function<void(const std::string&, const Value&)>& bind) {
  if (const auto* name = target.as<Name>()) {
    bind(name->id, value);
    return;
  }
  const std::vector<ExprPtr>* names = nullptr;
  if (const auto* tuple = target.as<Tuple>()) names = &tuple->elements;
  if (const auto* list = target.as<List>()) names = &list->elements;
  if (names == nullptr) {
    throw UserError("cannot assign to a " + std::string(kindName(target)),
                    target.location);
  }
  if (!value.isSequence()) {
    throw UserError("cannot unpack " + describeKind(value) + " into " +
                        std::to_string(names->size()) + " names",
                    target.location);
  }
  if (value.items().size() != names->size()) {
    throw UserError("expected " + std::to_string(names->size()) +
                        " values to unpack, found " +
                        std::to_string(value.items().size()),
                    target.location);
  }
  for (size_t i = 0; i < names->size(); ++i) {
    const Expr& element = *(*names)[i];
    const auto* name = element.as<Name>();
    if (name == nullptr) {
      throw UserError("cannot assign to a " + std::string(kindName(element)),
                      element.location);
    }
    bind(name->id, value.items()[i]);
  }
}

Value ExpressionEvaluator::evaluate(const Expr& expr) {
  try {
    return evaluateNode(expr);
  } catch (const UserError& error) {
    if (error.location()) throw;
    throw UserError(error.message(), expr.location);
  }
}

Value ExpressionEvaluator::evaluateNode(const Expr& expr) {
  if (const auto* name = expr.as<Name>()) {
    return lookupName(name->id, expr.location);
  }
  if (const auto* number = expr.as<Number>()) {
    return number->isInt ? Value::integer(number->intValue)
                         : Value::floating(number->floatValue);
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
    ValueList elements;
    elements.reserve(list->elements.size());
    for (const ExprPtr& element : list->elements) {
      elements.push_back(evaluate(*element));
    }
    return Value::list(std::move(elements));
  }
  if (const auto* tuple = expr.as<Tuple>()) {
    ValueList elements;
    elements.reserve(tuple->elements.size());
    for (const ExprPtr& element : tuple->elements) {
      elements.push_back(evaluate(*element));
    }
    return Value::tuple(std::move(elements));
  }
  if (const auto* subscript = expr.as<Subscript>()) {
    return evaluateSubscript(*subscript, expr);
  }
  if (const auto* unary = expr.as<UnaryOp>()) {
    Value operand = evaluate(*unary->operand);
    if (operand.isFusionVal()) {
      return unaryOnFusionValue(unary->op, operand, expr.location);
    }
    return applyUnary(unary->op, operand, expr.location);
  }
  if (const auto* binary = expr.as<BinaryOp>()) {
    return evaluateBinary(*binary, expr);
  }
  throw UserError("a " + std::string(kindName(expr)) + " is not supported here",
                  expr.location);
}

Value ExpressionEvaluator::lookupName(const std::string& name,
                                      const SourceLocation& location) {
  if (const Value* local = lookupLocal(name)) return *local;
  if (auto it = globals_.find(name); it != globals_.end()) return it->second;
  if (const Value* builtin = lookupBuiltin(name)) return *builtin;
  constexpr size_t kShown = 60;
  std::string shown = name.size() > kShown ? name.substr(0, kShown) + "..." : name;
  throw UserError(shown + " is not defined", location);
}

Value ExpressionEvaluator::evaluateAttribute(const Attribute& attribute,
                                             const Expr& expr) {
  Value object = evaluate(*attribute.object);
  if (!object.is(Kind::kNamespace)) {
    return attributeOf(object, attribute, expr);
  }
  const std::string& path = object.text;
  const std::string& name = attribute.name;
  if (path == kDataTypePath) return dataTypeNamed(name);
  if (std::optional<Value> type =
          parallelTypeAttribute(path, name, attribute.nameLocation)) {
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
  return Value::nameSpace(path + "." + name);
}

Value ExpressionEvaluator::attributeOf(const Value& object,
                                       const Attribute& attribute,
                                       const Expr& expr) {
  throw UserError(describeKind(object) + " has no attribute " +
                      quoteForMessage(attribute.name) +
                      " that FuserLab knows",
                  attribute.nameLocation);
}

Value ExpressionEvaluator::evaluateCall(const Call& call, const Expr& expr) {
  Value callee = evaluate(*call.callee);
  EvaluatedCall evaluated;
  evaluated.name = dottedName(*call.callee);
  evaluated.location = expr.location;
  evaluated.positional.reserve(call.args.size());
  for (const ExprPtr& arg : call.args) {
    evaluated.positional.push_back(
        Argument{evaluate(*arg), arg->location, "", {}});
  }
  evaluated.keywords.reserve(call.keywords.size());
  for (const Keyword& keyword : call.keywords) {
    evaluated.keywords.push_back(Argument{evaluate(*keyword.value),
                                          keyword.value->location,
                                          keyword.name, keyword.location});
  }
  if (callee.is(Kind::kNamespace) && callee.text.starts_with("builtins.")) {
    return callBuiltin(callee.text, evaluated);
  }
  return callValue(callee, evaluated);
}

Value ExpressionEvaluator::callBuiltin(const std::string& path,
                                       const EvaluatedCall& call) {
  if (path == "builtins.print") return callValue(Value::nameSpace(path), call);
  if (std::optional<Value> value = callMeshBuiltin(path, call)) return *value;
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
      return applyUnary(x->value.intValue < 0 ? UnaryOpKind::kNegate
                                              : UnaryOpKind::kPlus,
                        x->value.is(Kind::kBool)
                            ? Value::integer(x->value.boolValue)
                            : x->value,
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

Value ExpressionEvaluator::callValue(const Value& callee,
                                     const EvaluatedCall& call) {
  if (callee.is(Kind::kNamespace)) {
    if (std::optional<Value> value = callMeshBuiltin(callee.text, call)) {
      return *value;
    }
  }
  std::string message = call.name + " cannot be called here";
  if (callee.is(Kind::kNamespace) && callee.text.starts_with("torch.")) {
    message += "; torch constructors are only read in the 'inputs = [...]' "
               "block";
  }
  throw UserError(message, call.location);
}

Value ExpressionEvaluator::evaluateSubscript(const Subscript& subscript,
                                             const Expr& expr) {
  Value object = evaluate(*subscript.object);
  Value index = evaluate(*subscript.index);
  if (!object.isSequence()) {
    throw UserError("cannot index " + describeKind(object) +
                        "; only lists and tuples can be indexed",
                    expr.location);
  }
  if (!index.is(Kind::kInt)) {
    throw UserError("the index of " + describeKind(object) +
                        " must be an int, found " + describeKind(index),
                    subscript.index->location);
  }
  const int64_t size = static_cast<int64_t>(object.items().size());
  int64_t i = index.intValue;
  if (i < -size || i >= size) {
    throw UserError("index " + std::to_string(i) + " is out of range for " +
                        describeKind(object) + " of " + std::to_string(size) +
                        " elements",
                    subscript.index->location);
  }
  if (i < 0) i += size;
  return object.items()[static_cast<size_t>(i)];
}

Value ExpressionEvaluator::evaluateBinary(const BinaryOp& binary,
                                          const Expr& expr) {
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
  if (lhs.isFusionVal() || rhs.isFusionVal()) {
    return binaryOnFusionValues(binary.op, lhs, rhs, binary.opLocation);
  }
  return applyBinary(binary.op, lhs, rhs, binary.opLocation);
}

const Value* ExpressionEvaluator::lookupLocal(std::string_view name) const {
  return nullptr;
}

Value ExpressionEvaluator::binaryOnFusionValues(BinaryOpKind op,
                                                const Value& lhs,
                                                const Value& rhs,
                                                const SourceLocation& location) {
  throw UserError("'" + std::string(spelling(op)) + "' on " +
                      describeKind(lhs) + " and " + describeKind(rhs) +
                      " is not supported here",
                  location);
}

Value ExpressionEvaluator::unaryOnFusionValue(UnaryOpKind op,
                                              const Value& operand,
                                              const SourceLocation& location) {
  throw UserError("unary '" + std::string(spelling(op)) + "' on " +
                      describeKind(operand) + " is not supported here",
                  location);
}

}  // namespace fuserlab::frontend
