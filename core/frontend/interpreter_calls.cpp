// The interpreter's calls: script functions (argument binding, closures,
// partial), the methods of the FusionDefinition and of its values, torch
// and the module functions scripts call.
#include <algorithm>
#include <functional>

#include "core/frontend/fd_methods.h"
#include "core/frontend/fd_ops.h"
#include "core/frontend/inputs_block.h"
#include "core/frontend/interpreter_internal.h"
#include "core/frontend/multidevice_calls.h"
#include "core/frontend/python_values.h"
#include "core/frontend/torch_tensors.h"

namespace fuserlab::frontend::interpreter_detail {

using Kind = Value::Kind;

Value Interpreter::callValue(const Value& callee, const EvaluatedCall& call) {
  switch (callee.kind) {
    case Kind::kFunction: return callFunction(*callee.function, call);
    case Kind::kClass: {
      auto it = classes_.find(callee.text);
      if (it == classes_.end()) {
        throw UserError("instances of the class " + callee.text +
                            " are not supported; FuserLab reads "
                            "FusionDefinition subclasses",
                        call.location);
      }
      return Value::fd(instantiate(*it->second, call));
    }
    case Kind::kMethod:
      if (callee.receiver) return callMethod(*callee.receiver, callee.text, call);
      break;
    case Kind::kNamespace: return callNamespace(callee.text, call);
    default: break;
  }
  return ExpressionEvaluator::callValue(callee, call);
}

namespace {

// The values a call made point at it, so that an error found later at the
// given sizes (an extent that divides by zero) names the call's line.
// Values made by an inner call (a helper function's fd.ops) keep its line.
void stampNewVals(ir::Fusion& fusion, size_t first, const SourceLocation& location) {
  const auto& vals = fusion.vals();
  int32_t index = -1;
  for (size_t i = first; i < vals.size(); ++i) {
    if (vals[i]->scriptLocationIndex() >= 0) continue;
    if (index < 0) index = fusion.addScriptLocation(location);
    vals[i]->setScriptLocationIndex(index);
  }
}

}  // namespace

Value Interpreter::binaryOnFusionValues(BinaryOpKind op, const Value& lhs, const Value& rhs,
                                        const SourceLocation& location) {
  ir::Fusion& fusion = fusionOf(lhs.isFusionVal() ? lhs : rhs, location);
  if (lhs.isFusionVal() && rhs.isFusionVal() && lhs.val->fusion() != rhs.val->fusion()) {
    throw UserError("'" + std::string(spelling(op)) +
                        "' on values of two "
                        "different FusionDefinitions",
                    location);
  }
  checkFusionSize(fusion, location);
  const size_t first = fusion.vals().size();
  Value result = applyOperator(fusion, op, lhs, rhs, location);
  stampNewVals(fusion, first, location);
  return result;
}

Value Interpreter::unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                                      const SourceLocation& location) {
  ir::Fusion& fusion = fusionOf(operand, location);
  checkFusionSize(fusion, location);
  const size_t first = fusion.vals().size();
  Value result = applyUnaryOperator(fusion, op, operand, location);
  stampNewVals(fusion, first, location);
  return result;
}

Value Interpreter::indexTorchTensor(const Value& tensor, const Value& index,
                                    const SourceLocation& location) {
  if (std::optional<Value> view = torchTensorIndex(specs_, tensor, index, location)) {
    return *view;
  }
  return Value::opaque("a torch computation");
}

// Every fusion value passed to `fusion`'s op belongs to it (a script with
// two FusionDefinitions may mix up their values).
void Interpreter::checkSameFusion(const ir::Fusion& fusion, const EvaluatedCall& call) {
  std::function<void(const Value&, const SourceLocation&)> check = [&](const Value& value,
                                                                       const SourceLocation& at) {
    if (value.isFusionVal() && value.val->fusion() != &fusion) {
      throw UserError(
          value.val->name() + " belongs to another FusionDefinition than " + call.name + "'s", at);
    }
    if (value.isSequence()) {
      for (const Value& item : value.items()) check(item, at);
    }
  };
  for (const auto* arguments : {&call.positional, &call.keywords}) {
    for (const Argument& argument : *arguments) check(argument.value, argument.location);
  }
}

// The reader's bound on what one script builds (a loop that never ends
// would otherwise build ops until the step budget).
void Interpreter::checkFusionSize(const ir::Fusion& fusion, const SourceLocation& location) {
  if (fusion.exprs().size() >= kMaxDefinedOps) {
    throw UserError("the definition builds more than " + std::to_string(kMaxDefinedOps) +
                        " ops; FuserLab reads fusions up to that size",
                    location);
  }
}

Value Interpreter::callFunction(const FunctionObject& function, const EvaluatedCall& call) {
  if (function.partialOf) {
    EvaluatedCall merged;
    merged.name = call.name;
    merged.location = call.location;
    for (const Value& arg : function.partialArgs) {
      merged.positional.push_back(Argument{arg, call.location, "", {}});
    }
    merged.positional.insert(merged.positional.end(), call.positional.begin(),
                             call.positional.end());
    for (const auto& [name, value] : function.partialKeywords) {
      merged.keywords.push_back(Argument{value, call.location, name, call.location});
    }
    for (const Argument& keyword : call.keywords) {
      std::erase_if(merged.keywords,
                    [&](const Argument& a) { return a.keyword == keyword.keyword; });
      merged.keywords.push_back(keyword);
    }
    return callFunction(*function.partialOf, merged);
  }
  if (depth_ >= kMaxCallDepth) {
    throw UserError("functions call each other more than " + std::to_string(kMaxCallDepth) +
                        " deep (recursion?); FuserLab stops here",
                    call.location);
  }
  auto scope = std::make_shared<Scope>();
  scope->parent = function.closure;
  keepTrackOf(scope);
  bindParameters(function, call, scope->names);
  // Name the fusion a definition function builds after the function.
  for (const auto& [name, value] : scope->names) {
    if (!value.is(Kind::kFd)) continue;
    if (function.moduleLevel) calledWithFd_.insert(&function);
    Builder& b = builder(value);
    if (!b.named && function.body != nullptr) {
      b.named = true;
      b.name = function.name;
      b.location = function.location;
    }
  }
  std::shared_ptr<Scope> saved = std::move(frame_);
  std::vector<NameTable> savedScopes = std::move(scopes_);
  scopes_.clear();
  frame_ = scope;
  ++depth_;
  Value result = Value::none();
  try {
    if (function.expression != nullptr) {
      result = evaluate(*function.expression);
    } else {
      Flow flow = execBlock(*function.body);
      if (flow == Flow::kReturn) result = std::move(returnValue_);
      if (flow == Flow::kBreak || flow == Flow::kContinue) {
        throw UserError("'break' or 'continue' outside a loop", function.location);
      }
    }
  } catch (...) {
    --depth_;
    frame_ = std::move(saved);
    scopes_ = std::move(savedScopes);
    throw;
  }
  --depth_;
  frame_ = std::move(saved);
  scopes_ = std::move(savedScopes);
  return result;
}

// Python's binding of arguments to parameters: positional in order, the
// rest to *args; keywords by name, the rest to **kwargs; then defaults.
void Interpreter::bindParameters(const FunctionObject& function, const EvaluatedCall& call,
                                 NameTable& names) {
  const std::vector<Parameter>& params = *function.params;
  const std::string& fname = function.name;
  std::vector<bool> bound(params.size(), false);
  size_t next = 0;
  ValueList extra;
  for (const Argument& argument : call.positional) {
    while (next < params.size() &&
           (params[next].kind != ParameterKind::kNormal || params[next].keywordOnly)) {
      if (params[next].kind == ParameterKind::kVarArgs) break;
      ++next;
    }
    if (next < params.size() && params[next].kind == ParameterKind::kNormal &&
        !params[next].keywordOnly) {
      names[params[next].name] = argument.value;
      bound[next] = true;
      ++next;
      continue;
    }
    if (next < params.size() && params[next].kind == ParameterKind::kVarArgs) {
      extra.push_back(argument.value);
      continue;
    }
    throw UserError(fname + "() takes " + std::to_string(positionalCount(params)) +
                        " positional arguments but " + std::to_string(call.positional.size()) +
                        " were given",
                    argument.location);
  }
  Value kwargs = Value::dict({});
  for (const Argument& keyword : call.keywords) {
    size_t at = params.size();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].kind == ParameterKind::kNormal && params[i].name == keyword.keyword) {
        at = i;
      }
    }
    if (at == params.size()) {
      const bool hasKwargs = std::any_of(params.begin(), params.end(), [](const Parameter& p) {
        return p.kind == ParameterKind::kKwArgs;
      });
      if (!hasKwargs) {
        throw UserError(fname + "() got an unexpected keyword argument '" + keyword.keyword + "'",
                        keyword.keywordLocation);
      }
      assignSubscript(kwargs, Value::string(keyword.keyword), keyword.value,
                      keyword.keywordLocation);
      continue;
    }
    if (bound[at]) {
      throw UserError(fname + "() got multiple values for argument '" + keyword.keyword + "'",
                      keyword.keywordLocation);
    }
    names[params[at].name] = keyword.value;
    bound[at] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& param = params[i];
    if (param.kind == ParameterKind::kVarArgs) {
      names[param.name] = Value::tuple(extra);
    } else if (param.kind == ParameterKind::kKwArgs) {
      names[param.name] = kwargs;
    } else if (!bound[i]) {
      if (!function.defaults[i]) {
        throw UserError(fname + "() missing the argument '" + param.name + "' (declared at line " +
                            std::to_string(param.location.line) + ")",
                        call.location);
      }
      names[param.name] = *function.defaults[i];
    }
  }
}

size_t Interpreter::positionalCount(const std::vector<Parameter>& params) {
  return static_cast<size_t>(std::count_if(params.begin(), params.end(), [](const Parameter& p) {
    return p.kind == ParameterKind::kNormal && !p.keywordOnly;
  }));
}

Value Interpreter::callMethod(const Value& receiver, const std::string& name,
                              const EvaluatedCall& call) {
  switch (receiver.kind) {
    case Kind::kFdOps: {
      ir::Fusion& fusion = *builder(receiver).fusion;
      checkFusionSize(fusion, call.location);
      checkSameFusion(fusion, call);
      const size_t first = fusion.vals().size();
      Value result = callFdOp(fusion, name, call);
      stampNewVals(fusion, first, call.location);
      return result;
    }
    case Kind::kFd: {
      ir::Fusion* fusion = builder(receiver).fusion.get();
      const size_t first = fusion != nullptr ? fusion->vals().size() : 0;
      Value result = callFd(receiver, name, call);
      if (fusion != nullptr) stampNewVals(*fusion, first, call.location);
      return result;
    }
    case Kind::kSched:
      checkSameFusion(*builder(receiver).fusion, call);
      return callSchedMethod(*builder(receiver).fusion, name, call);
    case Kind::kFusionHandle: return callFusionHandleMethod(*builder(receiver).fusion, name, call);
    case Kind::kIterDomain: return callIterDomainMethod(receiver, name, call);
    case Kind::kTensor: return callTensorMethod(receiver.tensor(), name, call);
    case Kind::kScalar:
      if (name == "is_tensor") {
        const BoundArguments args(call, {});
        return Value::boolean(false);
      }
      break;
    case Kind::kInputTensor: {
      if (std::optional<Value> value = callTorchTensorQuery(spec(receiver), name, call)) {
        return *value;
      }
      if (std::find(std::begin(kTorchViewMethods), std::end(kTorchViewMethods), name) !=
          std::end(kTorchViewMethods)) {
        return callTorch(specs_, globals_, Value::method(receiver, name), call);
      }
      if (std::optional<Value> view = torchTensorView(specs_, receiver, name, call)) {
        return *view;
      }
      return Value::opaque("the result of the torch method " + name);
    }
    default: break;
  }
  return ExpressionEvaluator::callValue(Value::method(receiver, name), call);
}

Value Interpreter::callFd(const Value& fd, const std::string& name, const EvaluatedCall& call) {
  Builder& b = builder(fd);
  if (b.classDef != nullptr) {
    if (const FunctionDef* def = method(*b.classDef, name)) {
      return callClassMethod(*def, fd, call);
    }
  }
  if (name == "execute" || name == "validate" || name == "manual_execute") {
    if (!call.positional.empty() && call.positional[0].value.isSequence()) {
      runWith(fd, call.positional[0].value, call.positional[0].location);
    }
    return Value::opaque("the outputs of fd." + name);
  }
  if (isRunOnlyFdMethod(name)) return Value::opaque("what fd." + name + " gives");
  if (b.closed && (name.starts_with("define_") || name == "add_output" || name == "from_pytorch")) {
    throw UserError(call.name +
                        ": this FusionDefinition is finished (its "
                        "'with' block ended)",
                    call.location);
  }
  if (std::optional<Value> value = callFdMethod(*b.fusion, name, call, specs_)) {
    return *value;
  }
  throw UserError(call.name +
                      " is not a FusionDefinition method FuserLab reads; "
                      "expected define_tensor, define_scalar, "
                      "define_vector, from_pytorch, add_output, "
                      "fd.ops.<op>, or execute",
                  call.location);
}

const FunctionDef* Interpreter::method(const ClassDef& def, std::string_view name) {
  for (const StmtPtr& stmt : def.body) {
    const auto* function = stmt->as<FunctionDef>();
    if (function != nullptr && function->name == name) return function;
  }
  return nullptr;
}

Value Interpreter::callClassMethod(const FunctionDef& def, const Value& self,
                                   const EvaluatedCall& call) {
  auto function = std::make_shared<FunctionObject>();
  function->name = def.name;
  function->params = &def.params;
  function->body = &def.body;
  function->location = call.location;
  for (const Parameter& param : def.params) {
    function->defaults.push_back(
        param.defaultValue ? std::optional<Value>(evaluate(*param.defaultValue)) : std::nullopt);
  }
  EvaluatedCall withSelf = call;
  withSelf.positional.insert(withSelf.positional.begin(), Argument{self, call.location, "", {}});
  return callFunction(*function, withSelf);
}

Value Interpreter::callNamespace(const std::string& path, const EvaluatedCall& call) {
  if (path.ends_with("FusionDefinition")) {
    return Value::fd(newBuilder(call.location));
  }
  if (path.ends_with("torch_dtype_to_nvfuser_dtype")) {
    BoundArguments args(call, {{"dtype", true}});
    const Argument& dtype = *args.find("dtype");
    if (!dtype.value.is(Kind::kTorchDtype)) {
      args.failType(dtype, "a torch dtype (e.g. torch.bfloat16)");
    }
    return Value::dataType(dtype.value.dtype);
  }
  if (path == "builtins.super") return Value::opaque("super()");
  if (path == "functools.partial") return makePartial(call);
  if (path == kTestFixture + ".exec_nvfuser") return execNvfuser(call);
  if (path.starts_with(kTestFixture)) {
    return Value::opaque("what " + call.name + " gives");
  }
  if (path == "torch.tensor") return torchTensorLiteral(specs_, globals_, call);
  if (path == "builtins.getattr" || path == "builtins.hasattr") {
    return getAttribute(path == "builtins.hasattr", call);
  }
  if (path.ends_with("Error") || path.ends_with("Exception")) {
    std::string text = path.substr(path.rfind('.') + 1);
    if (!call.positional.empty() && call.positional[0].value.is(Kind::kString)) {
      text += ": " + call.positional[0].value.text;
    }
    return Value::string(text);
  }
  if (path.ends_with("DeviceMesh")) {
    EvaluatedCall converted = call;
    for (Argument& argument : converted.positional) {
      if (argument.value.is(Kind::kInputTensor)) {
        argument.value = arangeDeviceIds(spec(argument.value), argument.location);
      }
    }
    return ExpressionEvaluator::callValue(Value::nameSpace(path), converted);
  }
  if (path.starts_with("torch.")) {
    if (std::find(std::begin(kTorchConstructors), std::end(kTorchConstructors), path) !=
        std::end(kTorchConstructors)) {
      return callTorch(specs_, globals_, Value::nameSpace(path), call);
    }
    // torch.manual_seed, torch.testing.assert_close, torch.nn.functional:
    // what they compute is the run's, not the definition's.
    return Value::opaque("the result of " + path);
  }
  if (auto answer = architecturePredicate(path, call)) return *answer;
  if (path == "nvfuser_direct.version" || path == "nvfuser.version") {
    // The module's version(): FuserLab answers with its own.
    BoundArguments args(call, {});
    return Value::string(FUSERLAB_VERSION);
  }
  // Functions of modules FuserLab does not model (pytest, the test suite's
  // helpers such as python.direct_utils): what they compute is the run's.
  const std::string root = path.substr(0, path.find('.'));
  if (root != "nvfuser" && root != "builtins" && root != "math" && root != "fuserlab" &&
      path.find('.') != std::string::npos) {
    return Value::opaque("the result of " + path);
  }
  return ExpressionEvaluator::callValue(Value::nameSpace(path), call);
}

// nvFuser's test-suite predicates on the GPU's architecture
// (python.direct_utils: is_pre_ampere(), microarchitecture_is(9, 0), ...),
// which tests branch on: answered for compute capability 9.0, the H100 and
// H200 that FuserLab compiles for by default; nullopt for other calls.
std::optional<Value> Interpreter::architecturePredicate(const std::string& path,
                                                        const EvaluatedCall& call) {
  constexpr int64_t kMajor = 9;
  constexpr int64_t kMinor = 0;
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find("utils") == std::string::npos) return std::nullopt;
  const std::string name = path.substr(dot + 1);
  static const std::pair<std::string_view, int64_t> kBefore[] = {
      {"is_pre_volta", 7}, {"is_pre_ampere", 8}, {"is_pre_hopper", 9}, {"is_pre_blackwell", 10}};
  for (const auto& [predicate, major] : kBefore) {
    if (name == predicate) {
      BoundArguments args(call, {});
      return Value::boolean(kMajor < major);
    }
  }
  if (name == "microarchitecture_is_pre") {
    BoundArguments args(call, {{"major", true}});
    return Value::boolean(kMajor < args.integer("major"));
  }
  if (name == "microarchitecture_is") {
    BoundArguments args(call, {{"major", true}, {"minor", true}});
    return Value::boolean(args.integer("major") == kMajor && args.integer("minor") == kMinor);
  }
  return std::nullopt;
}

// getattr(object, name[, default]) and hasattr(object, name).
Value Interpreter::getAttribute(bool has, const EvaluatedCall& call) {
  BoundArguments args(call, {{"object", true}, {"name", true}, {"default", false}});
  const Argument& name = *args.find("name");
  if (!name.value.is(Kind::kString)) args.failType(name, "a string");
  Attribute attribute{nullptr, name.value.text, name.location};
  Expr at;
  at.location = call.location;
  try {
    Value value = attributeValue(args.find("object")->value, attribute, at);
    return has ? Value::boolean(true) : value;
  } catch (const UserError&) {
    if (has) return Value::boolean(false);
    if (const Argument* fallback = args.find("default")) {
      return fallback->value;
    }
    throw;
  }
}

// functools.partial(f, *args, **kwargs).
Value Interpreter::makePartial(const EvaluatedCall& call) {
  if (call.positional.empty() || !call.positional[0].value.is(Kind::kFunction)) {
    throw UserError(
        "functools.partial takes a function of the script "
        "first",
        call.location);
  }
  auto function = std::make_shared<FunctionObject>(*call.positional[0].value.function);
  function->partialOf = call.positional[0].value.function;
  function->moduleLevel = false;
  for (size_t i = 1; i < call.positional.size(); ++i) {
    function->partialArgs.push_back(call.positional[i].value);
  }
  for (const Argument& keyword : call.keywords) {
    function->partialKeywords.emplace_back(keyword.keyword, keyword.value);
  }
  return Value::functionValue(std::move(function));
}

// `nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)`, as nvFuser's
// tests run a definition: it builds the fusion with those inputs.
Value Interpreter::execNvfuser(const EvaluatedCall& call) {
  std::vector<Argument> positional = call.positional;
  const Argument* function = positional.empty() ? nullptr : &positional[0];
  const Argument* inputs = positional.size() > 1 ? &positional[1] : nullptr;
  for (const Argument& keyword : call.keywords) {
    if (keyword.keyword == "fusion_func") function = &keyword;
    if (keyword.keyword == "inputs") inputs = &keyword;
  }
  if (function == nullptr || !function->value.is(Kind::kFunction)) {
    throw UserError("exec_nvfuser takes the definition function first", call.location);
  }
  const int64_t index = newBuilder(call.location);
  EvaluatedCall build{function->value.function->name, call.location, {}, {}};
  build.positional.push_back(Argument{Value::fd(index), call.location, "", {}});
  callFunction(*function->value.function, build);
  close(index, true);
  if (inputs != nullptr && inputs->value.isSequence()) {
    runWith(Value::fd(index), inputs->value, inputs->location);
  }
  return Value::opaque("the outputs of exec_nvfuser");
}

const InputSpec& Interpreter::spec(const Value& tensor) const {
  return specs_.at(static_cast<size_t>(tensor.intValue));
}

ir::Fusion& Interpreter::fusionOf(const Value& value, const SourceLocation& location) {
  if (value.isFusionVal()) return *value.val->fusion();
  throw UserError("expected a fusion value, found " + describeKind(value), location);
}

}  // namespace fuserlab::frontend::interpreter_detail
