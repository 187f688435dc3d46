#include "core/frontend/interpreter.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/frontend/fd_methods.h"
#include "core/frontend/fd_ops.h"
#include "core/frontend/inputs_block.h"
#include "core/frontend/lexer.h"
#include "core/frontend/multidevice_calls.h"
#include "core/frontend/python_arithmetic.h"
#include "core/frontend/python_values.h"
#include "core/frontend/test_functions.h"
#include "core/frontend/torch_tensors.h"
#include "core/ops/arith.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

// The torch functions that make a tensor the inputs can hold.
constexpr std::string_view kTorchConstructors[] = {
    "torch.randn", "torch.rand",   "torch.randint", "torch.ones",
    "torch.zeros", "torch.full",   "torch.arange",  "torch.testing.make_tensor",
    "torch.device", "torch.empty", "torch.tensor"};

// The torch tensor methods the inputs block reads (inputs_block.h).
constexpr std::string_view kTorchViewMethods[] = {"as_strided", "cuda",
                                                  "expand"};

enum class Flow { kNormal, kReturn, kBreak, kContinue };

// What a pasted test function gets for nvFuser's test fixtures
// (nvfuser_direct_test, the TestCase's self): exec_nvfuser builds.
const std::string kTestFixture = "fuserlab.test_fixture";
constexpr std::string_view kFixtureNames[] = {"nvfuser_direct_test",
                                              "nvfuser_test", "self"};

// One FusionDefinition the script builds.
struct Builder {
  std::unique_ptr<ir::Fusion> fusion = std::make_unique<ir::Fusion>();
  NameTable attributes;              // `self.x` of a subclass
  const ClassDef* classDef = nullptr;
  std::string name;                  // the function or class that built it
  SourceLocation location;
  bool named = false;
  bool closed = false;
  std::optional<Value> inputs;       // what fd.execute / `inputs =` gave
  SourceLocation inputsLocation;
  bool inputsFromExecute = false;
};

class Interpreter : public ExpressionEvaluator {
 public:
  Interpreter(std::string_view source, const std::string& fileName)
      : ExpressionEvaluator(globals_), source_(source), fileName_(fileName) {}

  Script run(const Module& module) {
    execModuleBody(module.body);
    // A subclass the script never instantiates is read with its defaults.
    for (const auto& [name, def] : classes_) {
      if (!instantiatedClasses_.contains(name)) {
        instantiate(*def, EvaluatedCall{name, classLocations_[name], {}, {}});
      }
    }
    if (builders_.empty()) runTestFunctions();
    readUncalledDefinitions();
    // A builder left open (fd = FusionDefinition() without a with-block).
    for (size_t i = 0; i < builders_.size(); ++i) {
      if (!builders_[i].closed) close(static_cast<int64_t>(i), false);
    }
    return collect();
  }

 protected:
  // ---- Names ---------------------------------------------------------------

  const Value* lookupLocal(std::string_view name) const override {
    for (const Scope* scope = frame_.get(); scope != nullptr;
         scope = scope->parent.get()) {
      if (auto it = scope->names.find(name); it != scope->names.end()) {
        return &it->second;
      }
    }
    return nullptr;
  }

  void bindName(const std::string& name, const Value& value,
                const SourceLocation& location) override {
    if (value.isFusionVal() && value.val->scriptName().empty()) {
      value.val->setScriptName(name);
    }
    if (frame_) {
      frame_->names[name] = value;
      return;
    }
    globals_[name] = value;
    if (name == "inputs") noteInputs(value, location);
  }

  void assignAttribute(const Value& object, const std::string& name,
                       const Value& value,
                       const SourceLocation& location) override {
    if (!object.is(Kind::kFd)) {
      ExpressionEvaluator::assignAttribute(object, name, value, location);
    }
    if (value.isFusionVal() && value.val->scriptName().empty()) {
      value.val->setScriptName(name);
    }
    builder(object).attributes[name] = value;
  }

  // ---- Attributes ----------------------------------------------------------

  Value attributeOf(const Value& object, const Attribute& attribute,
                    const Expr& expr) override {
    const std::string& name = attribute.name;
    switch (object.kind) {
      case Kind::kFd: {
        Builder& b = builder(object);
        if (auto it = b.attributes.find(name); it != b.attributes.end()) {
          return it->second;
        }
        if (name == "ops") return Value::fdOps(object.intValue);
        if (name == "sched") return Value::sched(object.intValue);
        if (name == "fusion") return Value::fusionHandle(object.intValue);
        return Value::method(object, name);
      }
      case Kind::kFdOps:
      case Kind::kSched:
      case Kind::kFusionHandle:
      case Kind::kIterDomain:
        return Value::method(object, name);
      case Kind::kTensor:
        if (std::optional<Value> value =
                tensorAttribute(object.tensor(), name)) {
          return *value;
        }
        if (isTensorMethod(name)) return Value::method(object, name);
        break;
      case Kind::kInputTensor:
        if (std::optional<Value> value =
                torchTensorAttribute(spec(object), name)) {
          return *value;
        }
        return Value::method(object, name);
      case Kind::kDataType:
        if (name == "name") {
          return Value::string(std::string(ir::toString(object.dtype)));
        }
        break;
      default:
        break;
    }
    return ExpressionEvaluator::attributeOf(object, attribute, expr);
  }

  // ---- Calls ---------------------------------------------------------------

  Value callValue(const Value& callee, const EvaluatedCall& call) override {
    switch (callee.kind) {
      case Kind::kFunction:
        return callFunction(*callee.function, call);
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
      case Kind::kNamespace:
        return callNamespace(callee.text, call);
      default:
        break;
    }
    return ExpressionEvaluator::callValue(callee, call);
  }

  Value binaryOnFusionValues(BinaryOpKind op, const Value& lhs,
                             const Value& rhs,
                             const SourceLocation& location) override {
    ir::Fusion& fusion = fusionOf(lhs.isFusionVal() ? lhs : rhs, location);
    if (lhs.isFusionVal() && rhs.isFusionVal() &&
        lhs.val->fusion() != rhs.val->fusion()) {
      throw UserError("'" + std::string(spelling(op)) + "' on values of two "
                      "different FusionDefinitions",
                      location);
    }
    return applyOperator(fusion, op, lhs, rhs, location);
  }

  Value unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                           const SourceLocation& location) override {
    return applyUnaryOperator(fusionOf(operand, location), op, operand,
                              location);
  }

  Value makeLambda(const Lambda& lambda, const Expr& expr) override {
    auto function = std::make_shared<FunctionObject>();
    function->name = "<lambda>";
    function->params = &lambda.params;
    function->expression = lambda.body.get();
    function->closure = frame_;
    function->location = expr.location;
    for (const Parameter& param : lambda.params) {
      function->defaults.push_back(
          param.defaultValue ? std::optional<Value>(evaluate(*param.defaultValue))
                             : std::nullopt);
    }
    return Value::functionValue(std::move(function));
  }

 private:
  // ---- Statements ----------------------------------------------------------

  void execModuleBody(const std::vector<StmtPtr>& body) {
    Flow flow = execBlock(body);
    if (flow == Flow::kBreak || flow == Flow::kContinue) {
      throw UserError("'break' or 'continue' outside a loop",
                      body.empty() ? SourceLocation{} : body.back()->location);
    }
  }

  Flow execBlock(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& stmt : body) {
      Flow flow = Flow::kNormal;
      try {
        countStep(stmt->location);
        flow = execStatement(*stmt);
      } catch (const UserError& error) {
        if (error.location()) throw;
        throw UserError(error.message(), stmt->location);
      }
      if (flow != Flow::kNormal) return flow;
    }
    return Flow::kNormal;
  }

  Flow execStatement(const Stmt& stmt) {
    if (const auto* assign = stmt.as<Assign>()) {
      if (isRunOnlyCall(*assign->value)) {
        runOnlyCall(*assign->value);
        this->assign(*assign->target, Value::opaque("the outputs of the run"));
        return Flow::kNormal;
      }
      Value value = evaluate(*assign->value);
      checkInputsAssignment(*assign, value);
      this->assign(*assign->target, value);
      for (const ExprPtr& extra : assign->extraTargets) {
        this->assign(*extra, value);
      }
      return Flow::kNormal;
    }
    if (const auto* statement = stmt.as<ExprStatement>()) {
      if (isRunOnlyCall(*statement->value)) {
        runOnlyCall(*statement->value);
      } else if (!statement->value->is<String>()) {
        evaluate(*statement->value);
      }
      return Flow::kNormal;
    }
    if (const auto* assign = stmt.as<AugAssign>()) {
      execAugAssign(*assign);
      return Flow::kNormal;
    }
    if (const auto* branch = stmt.as<If>()) {
      Value test = evaluate(*branch->condition);
      return execBlock(truthValue(test, branch->condition->location)
                           ? branch->body
                           : branch->orelse);
    }
    if (const auto* loop = stmt.as<For>()) return execFor(*loop);
    if (const auto* loop = stmt.as<While>()) return execWhile(*loop);
    if (const auto* ret = stmt.as<Return>()) {
      if (!frame_) {
        throw UserError("'return' outside a function", stmt.location);
      }
      returnValue_ = ret->value ? evaluate(*ret->value) : Value::none();
      return Flow::kReturn;
    }
    if (stmt.is<Break>()) return Flow::kBreak;
    if (stmt.is<Continue>()) return Flow::kContinue;
    if (stmt.is<Pass>()) return Flow::kNormal;
    if (const auto* def = stmt.as<FunctionDef>()) {
      execDef(*def, stmt);
      return Flow::kNormal;
    }
    if (const auto* with = stmt.as<With>()) return execWith(*with, stmt);
    if (const auto* assertion = stmt.as<Assert>()) {
      execAssert(*assertion, stmt);
      return Flow::kNormal;
    }
    if (const auto* raise = stmt.as<Raise>()) {
      std::string what = "an exception";
      if (raise->exception) {
        Value exception = evaluate(*raise->exception);
        if (exception.is(Kind::kString)) what = exception.text;
      }
      throw UserError("the script raises " + what +
                          " here (FuserLab ran its Python up to this line)",
                      stmt.location);
    }
    if (stmt.is<Import>() || stmt.is<ImportFrom>()) {
      bindImport(stmt, frame_ ? frame_->names : globals_);
      return Flow::kNormal;
    }
    if (const auto* classDef = stmt.as<ClassDef>()) {
      execClassDef(*classDef, stmt);
      return Flow::kNormal;
    }
    throw UserError("'" + std::string(kindName(stmt)) +
                        "' statements are not supported",
                    stmt.location);
  }

  // `fd.execute(inputs)` and its kin: the inputs they name belong to the
  // fusion; arguments the reader cannot compute (a sharded tensor from
  // torch.distributed, a name defined only at run time) leave it without.
  bool isRunOnlyCall(const Expr& expr) {
    const auto* call = expr.as<Call>();
    const auto* callee = call ? call->callee->as<Attribute>() : nullptr;
    return callee != nullptr && isRunOnlyFdMethod(callee->name);
  }

  void runOnlyCall(const Expr& expr) {
    const Call& call = *expr.as<Call>();
    const Attribute& callee = *call.callee->as<Attribute>();
    Value object = evaluate(*callee.object);
    if (!object.is(Kind::kFd)) {
      evaluate(expr);  // not a FusionDefinition: an ordinary call
      return;
    }
    if (callee.name != "execute" && callee.name != "validate" &&
        callee.name != "manual_execute") {
      return;
    }
    if (call.args.empty()) return;
    std::optional<Value> inputs;
    try {
      inputs = evaluate(*call.args[0]);
    } catch (const UserError&) {
      return;
    }
    if (inputs->isSequence()) {
      Builder& b = builder(object);
      b.inputs = *inputs;
      b.inputsLocation = call.args[0]->location;
      b.inputsFromExecute = true;
    }
  }

  // `inputs = ...` at module level is the inputs block: a list whose
  // entries are torch tensors or Python numbers.
  void checkInputsAssignment(const Assign& assign, const Value& value) {
    const auto* name = assign.target->as<Name>();
    if (frame_ || name == nullptr || name->id != "inputs") return;
    if (!value.isSequence()) {
      if (value.is(Kind::kInputTensor) || value.isNumber() ||
          value.is(Kind::kString) || value.is(Kind::kDict)) {
        throw UserError("expected the inputs block as a list: inputs = "
                        "[torch.randn(...), ...], found " +
                            describeKind(value),
                        assign.value->location);
      }
      return;
    }
    const std::vector<ExprPtr>* entries = nullptr;
    if (const auto* list = assign.value->as<List>()) entries = &list->elements;
    if (const auto* tuple = assign.value->as<Tuple>()) entries = &tuple->elements;
    for (size_t i = 0; i < value.items().size(); ++i) {
      const Value& entry = value.items()[i];
      if (entry.is(Kind::kInputTensor) || entry.isNumber()) continue;
      const SourceLocation& at =
          entries != nullptr && entries->size() == value.items().size()
              ? (*entries)[i]->location
              : assign.value->location;
      throw UserError("inputs entry " + std::to_string(i) + " is " +
                          describeKind(entry) +
                          "; expected a torch tensor (torch.randn, "
                          "torch.rand, torch.randint, torch.ones, "
                          "torch.zeros, torch.full, torch.arange or "
                          "torch.testing.make_tensor, optionally viewed "
                          "through .as_strided(...) or .expand(...)) or a "
                          "Python number",
                      at);
    }
  }

  void execAugAssign(const AugAssign& assign) {
    Value current = evaluate(*assign.target);
    Value operand = evaluate(*assign.value);
    // `xs += ys` on a list extends it in place, as Python's does.
    if (current.is(Kind::kList) && assign.op == BinaryOpKind::kAdd) {
      ValueList more = iterateValue(operand, assign.value->location);
      checkSequenceSize(current.elements->size() + more.size(),
                        assign.value->location);
      current.elements->insert(current.elements->end(), more.begin(),
                               more.end());
      return;
    }
    Value result = combine(assign.op, current, operand, assign.target->location);
    this->assign(*assign.target, result);
  }

  // `lhs op rhs` on values already evaluated.
  Value combine(BinaryOpKind op, const Value& lhs, const Value& rhs,
                const SourceLocation& location) {
    if (lhs.isFusionVal() || rhs.isFusionVal()) {
      return binaryOnFusionValues(op, lhs, rhs, location);
    }
    if (lhs.is(Kind::kOpaque)) return lhs;
    if (rhs.is(Kind::kOpaque)) return rhs;
    if (std::optional<Value> value = sequenceArithmetic(op, lhs, rhs, location)) {
      return *value;
    }
    return applyBinary(op, lhs, rhs, location);
  }

  Flow execFor(const For& loop) {
    Value iterable = evaluate(*loop.iterable);
    // A loop over run-time results (the outputs of fd.execute) checks
    // them; it defines nothing the reader can compute.
    if (iterable.is(Kind::kOpaque)) return Flow::kNormal;
    for (const Value& element : iterateValue(iterable, loop.iterable->location)) {
      countStep(loop.iterable->location);
      assign(*loop.target, element);
      Flow flow = execBlock(loop.body);
      if (flow == Flow::kBreak) break;
      if (flow == Flow::kReturn) return flow;
    }
    return Flow::kNormal;
  }

  Flow execWhile(const While& loop) {
    while (truthValue(evaluate(*loop.condition), loop.condition->location)) {
      countStep(loop.condition->location);
      Flow flow = execBlock(loop.body);
      if (flow == Flow::kBreak) break;
      if (flow == Flow::kReturn) return flow;
    }
    return Flow::kNormal;
  }

  void execAssert(const Assert& assertion, const Stmt& stmt) {
    Value test = evaluate(*assertion.test);
    // A check on run-time results (outputs against torch) cannot be
    // decided here; the fusion is defined either way.
    if (test.is(Kind::kOpaque)) return;
    if (truthValue(test, assertion.test->location)) return;
    std::string message = "assertion failed: " + toString(*assertion.test);
    if (assertion.message) {
      Value text = evaluate(*assertion.message);
      if (text.is(Kind::kString)) message += " (" + text.text + ")";
    }
    throw UserError(message, stmt.location);
  }

  void execDef(const FunctionDef& def, const Stmt& stmt) {
    auto function = std::make_shared<FunctionObject>();
    function->name = def.name;
    function->params = &def.params;
    function->body = &def.body;
    function->closure = frame_;
    function->location = stmt.location;
    function->moduleLevel = !frame_;
    function->def = &def;
    for (const Parameter& param : def.params) {
      function->defaults.push_back(
          param.defaultValue ? std::optional<Value>(evaluate(*param.defaultValue))
                             : std::nullopt);
    }
    Value value = Value::functionValue(function);
    if (function->moduleLevel) moduleFunctions_.push_back(function);
    bindName(def.name, value, stmt.location);
  }

  void execClassDef(const ClassDef& def, const Stmt& stmt) {
    bool isFusionDefinition = false;
    for (const ExprPtr& base : def.bases) {
      Value value = evaluate(*base);
      isFusionDefinition |= value.is(Kind::kNamespace) &&
                            value.text.ends_with("FusionDefinition");
    }
    bindName(def.name, Value::classNamed(def.name), stmt.location);
    if (!isFusionDefinition) {
      if (method(def, "definition") != nullptr) {
        throw UserError("class " + def.name +
                            ": only subclasses of FusionDefinition are read",
                        stmt.location);
      }
      return;  // usable only as a name
    }
    if (method(def, "definition") == nullptr) {
      throw UserError("class " + def.name +
                          " needs a method 'def definition(self)'",
                      stmt.location);
    }
    classes_[def.name] = &def;
    classLocations_[def.name] = stmt.location;
  }

  Flow execWith(const With& with, const Stmt& stmt) {
    Value context = evaluate(*with.context);
    if (!with.target.empty()) {
      bindName(with.target,
               context.is(Kind::kFd) ? context
                                     : Value::opaque("the context of 'with'"),
               with.targetLocation);
    }
    Flow flow = execBlock(with.body);
    if (context.is(Kind::kFd)) {
      Builder& b = builder(context);
      if (!b.closed) close(context.intValue, true, stmt.location);
    }
    return flow;
  }

  // ---- Functions -------------------------------------------------------------

  Value callFunction(const FunctionObject& function, const EvaluatedCall& call) {
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
        std::erase_if(merged.keywords, [&](const Argument& a) {
          return a.keyword == keyword.keyword;
        });
        merged.keywords.push_back(keyword);
      }
      return callFunction(*function.partialOf, merged);
    }
    if (depth_ >= kMaxCallDepth) {
      throw UserError("functions call each other more than " +
                          std::to_string(kMaxCallDepth) +
                          " deep (recursion?); FuserLab stops here",
                      call.location);
    }
    auto scope = std::make_shared<Scope>();
    scope->parent = function.closure;
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
          throw UserError("'break' or 'continue' outside a loop",
                          function.location);
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
  void bindParameters(const FunctionObject& function, const EvaluatedCall& call,
                      NameTable& names) {
    const std::vector<Parameter>& params = *function.params;
    const std::string& fname = function.name;
    std::vector<bool> bound(params.size(), false);
    size_t next = 0;
    ValueList extra;
    for (const Argument& argument : call.positional) {
      while (next < params.size() &&
             (params[next].kind != ParameterKind::kNormal ||
              params[next].keywordOnly)) {
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
                          " positional arguments but " +
                          std::to_string(call.positional.size()) + " were given",
                      argument.location);
    }
    Value kwargs = Value::dict({});
    for (const Argument& keyword : call.keywords) {
      size_t at = params.size();
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].kind == ParameterKind::kNormal &&
            params[i].name == keyword.keyword) {
          at = i;
        }
      }
      if (at == params.size()) {
        const bool hasKwargs = std::any_of(
            params.begin(), params.end(),
            [](const Parameter& p) { return p.kind == ParameterKind::kKwArgs; });
        if (!hasKwargs) {
          throw UserError(fname + "() got an unexpected keyword argument '" +
                              keyword.keyword + "'",
                          keyword.keywordLocation);
        }
        assignSubscript(kwargs, Value::string(keyword.keyword), keyword.value,
                        keyword.keywordLocation);
        continue;
      }
      if (bound[at]) {
        throw UserError(fname + "() got multiple values for argument '" +
                            keyword.keyword + "'",
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
          throw UserError(fname + "() missing the argument '" + param.name +
                              "' (declared at line " +
                              std::to_string(param.location.line) + ")",
                          call.location);
        }
        names[param.name] = *function.defaults[i];
      }
    }
  }

  static size_t positionalCount(const std::vector<Parameter>& params) {
    return static_cast<size_t>(std::count_if(
        params.begin(), params.end(), [](const Parameter& p) {
          return p.kind == ParameterKind::kNormal && !p.keywordOnly;
        }));
  }

  // ---- FusionDefinitions -----------------------------------------------------

  Builder& builder(const Value& fd) {
    return builders_.at(static_cast<size_t>(fd.intValue));
  }

  ir::Fusion& fusionOf(const Value& value, const SourceLocation& location) {
    if (value.isFusionVal()) return *value.val->fusion();
    throw UserError("expected a fusion value, found " + describeKind(value),
                    location);
  }

  int64_t newBuilder(const SourceLocation& location) {
    Builder b;
    b.location = location;
    builders_.push_back(std::move(b));
    return static_cast<int64_t>(builders_.size() - 1);
  }

  // The fusion is finished: a with-block ended, or a subclass was read.
  void close(int64_t index, bool built,
             const SourceLocation& location = SourceLocation{}) {
    Builder& b = builders_[static_cast<size_t>(index)];
    b.closed = true;
    if (!b.named) {
      ++inlineBlocks_;
      b.name = inlineBlocks_ > 1 ? "fusion_" + std::to_string(inlineBlocks_)
                                 : "fusion";
      if (location.line > 0) b.location = location;
    }
    closedOrder_.push_back(index);
    if (built) executed_ = index;
    // `inputs = [...]` written before the fusion was built belongs to it.
    if (pendingInputs_ && !b.inputs) {
      b.inputs = pendingInputs_;
      b.inputsLocation = pendingInputsLocation_;
      pendingInputs_.reset();
    }
  }

  // `inputs = <value>` at module level: the inputs of the fusion built
  // last if it has none yet, else of the next one built.
  void noteInputs(const Value& value, const SourceLocation& location) {
    if (!value.isSequence()) return;  // the name reused for something else
    if (!closedOrder_.empty()) {
      Builder& last = builders_[static_cast<size_t>(closedOrder_.back())];
      if (!last.inputs) {
        last.inputs = value;
        last.inputsLocation = location;
        return;
      }
    }
    pendingInputs_ = value;
    pendingInputsLocation_ = location;
  }

  Value callMethod(const Value& receiver, const std::string& name,
                   const EvaluatedCall& call) {
    switch (receiver.kind) {
      case Kind::kFdOps:
        return callFdOp(*builder(receiver).fusion, name, call);
      case Kind::kFd:
        return callFd(receiver, name, call);
      case Kind::kSched:
        return callSchedMethod(*builder(receiver).fusion, name, call);
      case Kind::kFusionHandle:
        return callFusionHandleMethod(*builder(receiver).fusion, name, call);
      case Kind::kIterDomain:
        return callIterDomainMethod(receiver, name, call);
      case Kind::kTensor:
        return callTensorMethod(receiver.tensor(), name, call);
      case Kind::kInputTensor: {
        if (std::optional<Value> value =
                callTorchTensorQuery(spec(receiver), name, call)) {
          return *value;
        }
        if (std::find(std::begin(kTorchViewMethods), std::end(kTorchViewMethods),
                      name) != std::end(kTorchViewMethods)) {
          return callTorch(specs_, globals_, Value::method(receiver, name), call);
        }
        if (std::optional<Value> view = torchTensorView(specs_, receiver, name, call)) {
          return *view;
        }
        return Value::opaque("the result of the torch method " + name);
      }
      default:
        break;
    }
    return ExpressionEvaluator::callValue(Value::method(receiver, name), call);
  }

  Value callFd(const Value& fd, const std::string& name,
               const EvaluatedCall& call) {
    Builder& b = builder(fd);
    if (b.classDef != nullptr) {
      if (const FunctionDef* def = method(*b.classDef, name)) {
        return callClassMethod(*def, fd, call);
      }
    }
    if (name == "execute" || name == "validate" || name == "manual_execute") {
      if (!call.positional.empty() && call.positional[0].value.isSequence()) {
        b.inputs = call.positional[0].value;
        b.inputsLocation = call.positional[0].location;
        b.inputsFromExecute = true;
      }
      return Value::opaque("the outputs of fd." + name);
    }
    if (isRunOnlyFdMethod(name)) return Value::opaque("what fd." + name + " gives");
    if (b.closed && (name.starts_with("define_") || name == "add_output" ||
                     name == "from_pytorch")) {
      throw UserError(call.name + ": this FusionDefinition is finished (its "
                                  "'with' block ended)",
                      call.location);
    }
    if (std::optional<Value> value =
            callFdMethod(*b.fusion, name, call, specs_)) {
      return *value;
    }
    throw UserError(call.name +
                        " is not a FusionDefinition method FuserLab reads; "
                        "expected define_tensor, define_scalar, "
                        "define_vector, from_pytorch, add_output, "
                        "fd.ops.<op>, or execute",
                    call.location);
  }

  static const FunctionDef* method(const ClassDef& def, std::string_view name) {
    for (const StmtPtr& stmt : def.body) {
      const auto* function = stmt->as<FunctionDef>();
      if (function != nullptr && function->name == name) return function;
    }
    return nullptr;
  }

  Value callClassMethod(const FunctionDef& def, const Value& self,
                        const EvaluatedCall& call) {
    auto function = std::make_shared<FunctionObject>();
    function->name = def.name;
    function->params = &def.params;
    function->body = &def.body;
    function->location = call.location;
    for (const Parameter& param : def.params) {
      function->defaults.push_back(
          param.defaultValue ? std::optional<Value>(evaluate(*param.defaultValue))
                             : std::nullopt);
    }
    EvaluatedCall withSelf = call;
    withSelf.positional.insert(withSelf.positional.begin(),
                               Argument{self, call.location, "", {}});
    return callFunction(*function, withSelf);
  }

  // `Model(args)`: __init__ with the arguments, then definition() and
  // multidevice_schedule() build one fusion.
  int64_t instantiate(const ClassDef& def, const EvaluatedCall& call) {
    instantiatedClasses_.insert(def.name);
    const int64_t index = newBuilder(call.location);
    Builder& b = builders_[static_cast<size_t>(index)];
    b.classDef = &def;
    b.named = true;
    b.name = def.name;
    b.location = classLocations_[def.name];
    const Value self = Value::fd(index);
    if (const FunctionDef* init = method(def, "__init__")) {
      callClassMethod(*init, self, call);
    } else if (!call.positional.empty() || !call.keywords.empty()) {
      throw UserError(def.name + "() takes no arguments (it has no __init__)",
                      call.location);
    }
    EvaluatedCall none{def.name, call.location, {}, {}};
    callClassMethod(*method(def, "definition"), self, none);
    if (const FunctionDef* schedule = method(def, "multidevice_schedule")) {
      callClassMethod(*schedule, self, none);
    }
    close(index, true);
    return index;
  }

  Value callNamespace(const std::string& path, const EvaluatedCall& call) {
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
      if (std::find(std::begin(kTorchConstructors), std::end(kTorchConstructors),
                    path) != std::end(kTorchConstructors)) {
        return callTorch(specs_, globals_, Value::nameSpace(path), call);
      }
      // torch.manual_seed, torch.testing.assert_close, torch.nn.functional:
      // what they compute is the run's, not the definition's.
      return Value::opaque("the result of " + path);
    }
    if (path.starts_with("pytest.") || path.starts_with("unittest.") ||
        path.starts_with("functools.") || path.starts_with("itertools.")) {
      return Value::opaque("the result of " + path);
    }
    return ExpressionEvaluator::callValue(Value::nameSpace(path), call);
  }

  // getattr(object, name[, default]) and hasattr(object, name).
  Value getAttribute(bool has, const EvaluatedCall& call) {
    BoundArguments args(call, {{"object", true}, {"name", true},
                               {"default", false}});
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
  Value makePartial(const EvaluatedCall& call) {
    if (call.positional.empty() || !call.positional[0].value.is(Kind::kFunction)) {
      throw UserError("functools.partial takes a function of the script "
                      "first",
                      call.location);
    }
    auto function = std::make_shared<FunctionObject>(
        *call.positional[0].value.function);
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
  Value execNvfuser(const EvaluatedCall& call) {
    std::vector<Argument> positional = call.positional;
    const Argument* function = positional.empty() ? nullptr : &positional[0];
    const Argument* inputs = positional.size() > 1 ? &positional[1] : nullptr;
    for (const Argument& keyword : call.keywords) {
      if (keyword.keyword == "fusion_func") function = &keyword;
      if (keyword.keyword == "inputs") inputs = &keyword;
    }
    if (function == nullptr || !function->value.is(Kind::kFunction)) {
      throw UserError("exec_nvfuser takes the definition function first",
                      call.location);
    }
    const int64_t index = newBuilder(call.location);
    EvaluatedCall build{function->value.function->name, call.location, {}, {}};
    build.positional.push_back(Argument{Value::fd(index), call.location, "", {}});
    callFunction(*function->value.function, build);
    close(index, true);
    if (inputs != nullptr && inputs->value.isSequence()) {
      Builder& b = builders_[static_cast<size_t>(index)];
      b.inputs = inputs->value;
      b.inputsLocation = inputs->location;
      b.inputsFromExecute = true;
    }
    return Value::opaque("the outputs of exec_nvfuser");
  }

  const InputSpec& spec(const Value& tensor) const {
    return specs_.at(static_cast<size_t>(tensor.intValue));
  }

  // ---- Definitions never built ---------------------------------------------

  static bool looksLikeDefinition(const FunctionObject& function) {
    const std::vector<Parameter>& params = *function.params;
    if (params.empty() || params[0].kind != ParameterKind::kNormal) {
      return false;
    }
    const Parameter& first = params[0];
    bool annotated = false;
    if (first.annotation) {
      const std::string text = toString(*first.annotation);
      annotated = text.ends_with("FusionDefinition");
    }
    return annotated || first.name == "fd" || first.name == "fusion_definition";
  }

  // A `def f(fd: FusionDefinition)` that no with-block called is read on
  // its own, with its parameters' defaults (as `--fusion NAME` selects it).
  void readUncalledDefinitions() {
    for (const auto& function : moduleFunctions_) {
      if (calledWithFd_.contains(function.get())) continue;
      auto bound = globals_.find(function->name);
      if (bound == globals_.end() || !bound->second.is(Kind::kFunction) ||
          bound->second.function != function) {
        continue;  // redefined later
      }
      if (!looksLikeDefinition(*function)) continue;
      const std::vector<Parameter>& params = *function->params;
      bool defaults = true;
      for (size_t i = 1; i < params.size(); ++i) {
        defaults &= params[i].kind != ParameterKind::kNormal ||
                    function->defaults[i].has_value();
      }
      if (!defaults) {
        if (!builders_.empty()) continue;  // a helper of a built fusion
        for (size_t i = 1; i < params.size(); ++i) {
          if (params[i].kind == ParameterKind::kNormal &&
              !function->defaults[i]) {
            throw UserError("parameter '" + params[i].name + "' of " +
                                function->name +
                                " has no default value and no 'with "
                                "FusionDefinition() as fd:' block calls " +
                                function->name +
                                "; call it there with its arguments, or "
                                "give the parameter a default",
                            params[i].location);
          }
        }
      }
      const int64_t index = newBuilder(function->location);
      EvaluatedCall call{function->name, function->location, {}, {}};
      call.positional.push_back(
          Argument{Value::fd(index), function->location, "", {}});
      callFunction(*function, call);
      close(index, false);
    }
  }

  // A test function pasted from nvFuser's suite (`def test_x(
  // nvfuser_direct_test, dtype):` with pytest.mark.parametrize marks) runs
  // once, each parameter taking the fixture, its first parametrized value
  // or its default, when the script builds no fusion otherwise.
  void runTestFunctions() {
    for (const auto& function : moduleFunctions_) {
      if (!function->name.starts_with("test") || function->def == nullptr) {
        continue;
      }
      EvaluatedCall call{function->name, function->location, {}, {}};
      bool callable = true;
      const std::vector<Parameter>& params = *function->params;
      for (size_t i = 0; i < params.size() && callable; ++i) {
        const Parameter& param = params[i];
        if (param.kind != ParameterKind::kNormal) continue;
        std::optional<Value> value = parametrizedValue(*this, *function->def, param.name);
        if (!value && std::find(std::begin(kFixtureNames), std::end(kFixtureNames),
                                param.name) != std::end(kFixtureNames)) {
          value = Value::nameSpace(kTestFixture);
        }
        if (!value && function->defaults[i]) value = function->defaults[i];
        if (!value) {
          callable = false;
          break;
        }
        call.keywords.push_back(
            Argument{*value, param.location, param.name, param.location});
      }
      if (callable) callFunction(*function, call);
    }
  }

  // ---- The result ------------------------------------------------------------

  Script collect() {
    Script script;
    script.fileName = fileName_;
    if (builders_.empty()) {
      SourceText text(source_, fileName_);
      throw UserError(
          "no fusion definition found: expected 'def f(fd : "
          "FusionDefinition) -> None:' or a 'with FusionDefinition() as fd:' "
          "block",
          text.locate(1, 1));
    }
    if (pendingInputs_ && executed_) {
      Builder& b = builders_[static_cast<size_t>(*executed_)];
      if (!b.inputs) {
        b.inputs = pendingInputs_;
        b.inputsLocation = pendingInputsLocation_;
      }
    }
    std::vector<size_t> order(builders_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const SourceLocation& x = builders_[a].location;
      const SourceLocation& y = builders_[b].location;
      return std::pair(x.line, x.column) < std::pair(y.line, y.column);
    });
    // Two fusions from one function (built with different arguments) get
    // distinct names.
    std::map<std::string, int> seen;
    const size_t executed = executed_ ? static_cast<size_t>(*executed_)
                                      : order.back();
    for (size_t position = 0; position < order.size(); ++position) {
      Builder& b = builders_[order[position]];
      std::string name = b.name;
      if (int count = ++seen[name]; count > 1) {
        name += "_" + std::to_string(count);
      }
      if (order[position] == executed) script.executed = position;
      if (b.inputs) {
        std::vector<InputSpec> specs =
            inputSpecsOf(*b.inputs, specs_, b.inputsLocation);
        script.inputsByDefinition.emplace_back(position, specs);
        if (order[position] == executed) script.inputs = std::move(specs);
      }
      script.definitions.push_back(
          {std::move(name), b.location, std::move(b.fusion)});
    }
    return script;
  }

  NameTable globals_;
  std::string_view source_;
  std::string fileName_;
  std::shared_ptr<Scope> frame_;
  Value returnValue_;
  int depth_ = 0;
  std::vector<Builder> builders_;
  std::vector<InputSpec> specs_;
  std::vector<std::shared_ptr<FunctionObject>> moduleFunctions_;
  std::set<const FunctionObject*> calledWithFd_;
  std::map<std::string, const ClassDef*, std::less<>> classes_;
  std::map<std::string, SourceLocation, std::less<>> classLocations_;
  std::set<std::string, std::less<>> instantiatedClasses_;
  std::vector<int64_t> closedOrder_;
  std::optional<int64_t> executed_;
  std::optional<Value> pendingInputs_;
  SourceLocation pendingInputsLocation_;
  int inlineBlocks_ = 0;
};

}  // namespace

Script interpretScript(const Module& module, std::string_view source,
                       const std::string& fileName) {
  resetElementWork();
  return Interpreter(source, fileName).run(module);
}

}  // namespace fuserlab::frontend
