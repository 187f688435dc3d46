// The fusions a script builds: one per FusionDefinition, closed by its
// with-block or by a subclass's instantiation, given its inputs by
// fd.execute or the module's `inputs = [...]`; subclasses; pasted test
// functions; definitions no block calls; and the Script they make.
#include <algorithm>

#include "core/frontend/inputs_block.h"
#include "core/frontend/interpreter_internal.h"
#include "core/frontend/lexer.h"
#include "core/frontend/test_functions.h"

namespace fuserlab::frontend::interpreter_detail {

using Kind = Value::Kind;

Builder& Interpreter::builder(const Value& fd) {
  return builders_.at(static_cast<size_t>(fd.intValue));
}

int64_t Interpreter::newBuilder(const SourceLocation& location) {
  Builder b;
  b.location = location;
  builders_.push_back(std::move(b));
  return static_cast<int64_t>(builders_.size() - 1);
}

// The fusion is finished: a with-block ended, or a subclass was read.
void Interpreter::close(int64_t index, bool built, const SourceLocation& location) {
  Builder& b = builders_[static_cast<size_t>(index)];
  b.closed = true;
  if (!b.named) {
    ++inlineBlocks_;
    b.name = inlineBlocks_ > 1 ? "fusion_" + std::to_string(inlineBlocks_) : "fusion";
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
void Interpreter::noteInputs(const Value& value, const SourceLocation& location) {
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

// `Model(args)`: __init__ with the arguments, then definition() and
// multidevice_schedule() build one fusion.
int64_t Interpreter::instantiate(const ClassDef& def, const EvaluatedCall& call) {
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
    throw UserError(def.name + "() takes no arguments (it has no __init__)", call.location);
  }
  EvaluatedCall none{def.name, call.location, {}, {}};
  callClassMethod(*method(def, "definition"), self, none);
  if (const FunctionDef* schedule = method(def, "multidevice_schedule")) {
    callClassMethod(*schedule, self, none);
  }
  close(index, true);
  return index;
}

bool Interpreter::looksLikeDefinition(const FunctionObject& function) {
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
void Interpreter::readUncalledDefinitions() {
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
      defaults &= params[i].kind != ParameterKind::kNormal || function->defaults[i].has_value();
    }
    if (!defaults) {
      if (!builders_.empty()) continue;  // a helper of a built fusion
      for (size_t i = 1; i < params.size(); ++i) {
        if (params[i].kind == ParameterKind::kNormal && !function->defaults[i]) {
          throw UserError("parameter '" + params[i].name + "' of " + function->name +
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
    call.positional.push_back(Argument{Value::fd(index), function->location, "", {}});
    callFunction(*function, call);
    close(index, false);
  }
}

// A test function pasted from nvFuser's suite (`def test_x(
// nvfuser_direct_test, dtype):` with pytest.mark.parametrize marks) runs
// once, each parameter taking the fixture, its first parametrized value
// or its default, when the script builds no fusion otherwise.
void Interpreter::runTestFunctions() {
  for (const auto& function : moduleFunctions_) {
    if (function->name.starts_with("test") && function->def != nullptr) {
      runTestFunction(*function);
    }
  }
  // Test methods of a TestCase class (nvFuser's older suite: `self` is the
  // fixture, `self.exec_nvfuser(fusion_func, inputs)`).
  for (const ClassDef* testClass : testClasses_) {
    for (const StmtPtr& member : testClass->body) {
      const auto* def = member->as<FunctionDef>();
      if (def == nullptr || !def->name.starts_with("test")) continue;
      FunctionObject function;
      function.name = def->name;
      function.params = &def->params;
      function.body = &def->body;
      function.def = def;
      function.location = member->location;
      for (const Parameter& param : def->params) {
        function.defaults.push_back(param.defaultValue
                                        ? std::optional<Value>(evaluate(*param.defaultValue))
                                        : std::nullopt);
      }
      runTestFunction(function);
    }
  }
}

// Runs one test function when every parameter has a value: the fixture, its
// first parametrized value, or its default.
void Interpreter::runTestFunction(const FunctionObject& function) {
  EvaluatedCall call{function.name, function.location, {}, {}};
  const std::vector<Parameter>& params = *function.params;
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& param = params[i];
    if (param.kind != ParameterKind::kNormal) continue;
    std::optional<Value> value = parametrizedValue(*this, *function.def, param.name);
    if (!value && std::find(std::begin(kFixtureNames), std::end(kFixtureNames), param.name) !=
                      std::end(kFixtureNames)) {
      value = Value::nameSpace(kTestFixture);
    }
    if (!value && function.defaults[i]) value = function.defaults[i];
    if (!value) return;
    call.keywords.push_back(Argument{*value, param.location, param.name, param.location});
  }
  callFunction(function, call);
}

Script Interpreter::collect() {
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
  const size_t executed = executed_ ? static_cast<size_t>(*executed_) : order.back();
  for (size_t position = 0; position < order.size(); ++position) {
    Builder& b = builders_[order[position]];
    std::string name = b.name;
    if (int count = ++seen[name]; count > 1) {
      name += "_" + std::to_string(count);
    }
    if (order[position] == executed) script.executed = position;
    if (b.inputs) {
      std::vector<InputSpec> specs = inputSpecsOf(*b.inputs, specs_, b.inputsLocation);
      script.inputsByDefinition.push_back({position, specs, b.inputsLocation});
      if (order[position] == executed) {
        script.inputs = std::move(specs);
        script.inputsLocation = b.inputsLocation;
      }
    }
    script.definitions.push_back({std::move(name), b.location, std::move(b.fusion)});
  }
  return script;
}

}  // namespace fuserlab::frontend::interpreter_detail
