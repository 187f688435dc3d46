#include "core/frontend/definition_reader.h"

#include "core/frontend/define_tensor.h"
#include "core/frontend/fd_ops.h"
#include "core/frontend/multidevice_calls.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

class DefinitionReader : public ExpressionEvaluator {
 public:
  DefinitionReader(const NameTable& globals, const std::string& fdName,
                   NameTable locals)
      : ExpressionEvaluator(globals),
        fusion_(std::make_unique<ir::Fusion>()),
        locals_(std::move(locals)) {
    locals_[fdName] = Value::fd();
  }

  std::unique_ptr<ir::Fusion> read(const std::vector<StmtPtr>& body) {
    readBody(body);
    return std::move(fusion_);
  }

  //! The `self.x` values of a FusionDefinition subclass.
  void setAttributes(std::string selfName, NameTable attributes) {
    selfName_ = std::move(selfName);
    attributes_ = std::move(attributes);
  }

  // False once a `return` ends the body.
  bool readBody(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& stmt : body) {
      try {
        if (!readStatement(*stmt)) return false;
      } catch (const UserError& error) {
        if (error.location()) throw;
        throw UserError(error.message(), stmt->location);
      }
    }
    return true;
  }

 protected:
  const Value* lookupLocal(std::string_view name) const override {
    auto it = locals_.find(name);
    return it == locals_.end() ? nullptr : &it->second;
  }

  Value attributeOf(const Value& object, const Attribute& attribute,
                    const Expr& expr) override {
    const std::string& name = attribute.name;
    switch (object.kind) {
      case Kind::kFd:
        if (auto it = attributes_.find(name); it != attributes_.end()) {
          return it->second;
        }
        if (name == "ops") return Value::fdOps();
        if (name == "sched") return Value::sched();
        if (name == "fusion") return Value::fusionHandle();
        return Value::method(object, name);
      case Kind::kFdOps:
      case Kind::kSched:
      case Kind::kFusionHandle:
      case Kind::kIterDomain:
        return Value::method(object, name);
      case Kind::kTensor:
        if (name == "ndim") return Value::integer(object.tensor()->rank());
        if (name == "size" || name == "shape" || name == "set_device_mesh" ||
            name == "outer_split" || name == "inner_split" ||
            name == "split" || name == "axis" ||
            name == "set_allocation_domain" || name == "merge" ||
            name == "reorder") {
          return Value::method(object, name);
        }
        break;
      default:
        break;
    }
    return ExpressionEvaluator::attributeOf(object, attribute, expr);
  }

  Value callValue(const Value& callee, const EvaluatedCall& call) override {
    if (callee.is(Kind::kMethod) && callee.receiver) {
      const Value& receiver = *callee.receiver;
      if (receiver.is(Kind::kFdOps)) {
        return callFdOp(*fusion_, callee.text, call);
      }
      if (receiver.is(Kind::kFd)) return callFdMethod(callee.text, call);
      if (receiver.is(Kind::kSched)) {
        return callSchedMethod(*fusion_, callee.text, call);
      }
      if (receiver.is(Kind::kFusionHandle)) {
        return callFusionMethod(callee.text, call);
      }
      if (receiver.is(Kind::kIterDomain)) {
        return callIterDomainMethod(receiver, callee.text, call);
      }
      if (receiver.is(Kind::kTensor)) {
        return callTensorMethod(receiver.tensor(), callee.text, call);
      }
    }
    if (callee.is(Kind::kNamespace) && callee.text == "builtins.abs") {
      BoundArguments args(call, {{"x", true}}, fusion_.get());
      return Value::fusionVal(
          ops::unaryOp(ir::UnaryOpType::Abs, args.operand("x")));
    }
    if (callee.is(Kind::kDefinition)) {
      throw UserError("calling the fusion definition " + call.name +
                          " from inside a definition is not supported; call "
                          "it from the 'with FusionDefinition() as fd:' block",
                      call.location);
    }
    return ExpressionEvaluator::callValue(callee, call);
  }

  Value binaryOnFusionValues(BinaryOpKind op, const Value& lhs,
                             const Value& rhs,
                             const SourceLocation& location) override {
    return applyOperator(*fusion_, op, lhs, rhs, location);
  }

  Value unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                           const SourceLocation& location) override {
    return applyUnaryOperator(*fusion_, op, operand, location);
  }

 private:
  // False once a `return` ends the body.
  bool readStatement(const Stmt& stmt) {
    if (const auto* assign = stmt.as<Assign>()) {
      Value value = evaluate(*assign->value);
      if (const auto* attribute = assign->target->as<Attribute>()) {
        assignAttribute(*attribute, value);
        return true;
      }
      assignTargets(*assign->target, value,
                    [&](const std::string& name, const Value& v) {
                      bind(name, v);
                    });
      return true;
    }
    if (const auto* statement = stmt.as<ExprStatement>()) {
      if (!statement->value->is<String>()) evaluate(*statement->value);
      return true;
    }
    if (stmt.is<Pass>()) return true;
    if (const auto* loop = stmt.as<For>()) return readFor(*loop);
    if (const auto* ret = stmt.as<Return>()) {
      if (ret->value) evaluate(*ret->value);
      return false;
    }
    if (stmt.is<Import>() || stmt.is<ImportFrom>()) {
      bindImport(stmt, locals_);
      return true;
    }
    throw UserError(std::string(kindName(stmt)) +
                        " statements are not supported inside a fusion "
                        "definition: FuserLab reads the definition without "
                        "running it",
                    stmt.location);
  }

  // `for t in [...]:` over a list or tuple the script can evaluate (tensor
  // lists, fd.fusion.inputs(), range(n)); the body runs once per element.
  bool readFor(const For& loop) {
    Value iterable = evaluate(*loop.iterable);
    if (!iterable.isSequence()) {
      throw UserError("a for loop runs over a list or tuple here, found " +
                          describeKind(iterable),
                      loop.iterable->location);
    }
    for (const Value& element : iterable.items()) {
      assignTargets(*loop.target, element,
                    [&](const std::string& name, const Value& v) {
                      bind(name, v);
                    });
      if (!readBody(loop.body)) return false;
    }
    return true;
  }

  void assignAttribute(const Attribute& attribute, const Value& value) {
    const auto* object = attribute.object->as<Name>();
    if (object == nullptr || object->id != selfName_ || selfName_.empty()) {
      throw UserError("only attributes of self ('self.x = ...') can be "
                          "assigned, in a FusionDefinition subclass",
                      attribute.object->location);
    }
    if (value.isFusionVal() && value.val->scriptName().empty()) {
      value.val->setScriptName(attribute.name);
    }
    attributes_[attribute.name] = value;
  }

  // fd.fusion.inputs() / outputs(): the fusion's tensors so far.
  Value callFusionMethod(const std::string& method, const EvaluatedCall& call) {
    BoundArguments args(call, {}, fusion_.get());
    ValueList tensors;
    if (method == "inputs") {
      for (ir::Val* val : fusion_->inputs()) {
        if (val->isA<ir::TensorView>()) tensors.push_back(Value::fusionVal(val));
      }
    } else if (method == "outputs") {
      for (ir::Val* val : fusion_->outputVals()) {
        if (val->isA<ir::TensorView>()) tensors.push_back(Value::fusionVal(val));
      }
    } else {
      throw UserError("fd.fusion." + method +
                          " is not supported; expected inputs() or outputs()",
                      call.location);
    }
    return Value::list(std::move(tensors));
  }

  void bind(const std::string& name, const Value& value) {
    if (value.isFusionVal() && value.val->scriptName().empty()) {
      value.val->setScriptName(name);
    }
    locals_[name] = value;
  }

  Value callFdMethod(const std::string& method, const EvaluatedCall& call) {
    if (method == "define_tensor") return defineTensor(*fusion_, call);
    if (method == "define_scalar" || method == "define_constant") {
      return defineScalar(*fusion_, call);
    }
    if (method == "define_vector") return defineVector(*fusion_, call);
    if (method == "add_output") {
      addOutput(call);
      return Value::none();
    }
    throw UserError(call.name +
                        " is not supported inside a fusion definition; "
                        "expected define_tensor, define_scalar, "
                        "define_vector, add_output or fd.ops.<op>",
                    call.location);
  }

  Value callTensorMethod(ir::TensorView* tv, const std::string& method,
                         const EvaluatedCall& call) {
    if (method == "size") {
      BoundArguments args(call, {{"dim", true}}, fusion_.get());
      return extentOf(tv, args.integer("dim"));
    }
    if (std::optional<Value> value = callTensorMeshMethod(tv, method, call)) {
      return *value;
    }
    BoundArguments args(call, {}, fusion_.get());
    return shapeOf(tv);
  }

  // fd.add_output(T), fd.add_output(T, alias_input=I) and
  // fd.add_output(T, stride_order=[...]).
  void addOutput(const EvaluatedCall& call) {
    const bool orderSecond = call.positional.size() >= 2 &&
                             call.positional[1].value.isSequence();
    std::vector<ParameterSpec> params = {
        {"output", true}, {"alias_input", false}, {"stride_order", false}};
    if (orderSecond) {
      params = {{"output", true}, {"stride_order", false},
                {"alias_input", false}};
    }
    BoundArguments args(call, params, fusion_.get());
    const Argument& output = *args.find("output");
    if (!output.value.isFusionVal()) {
      args.failType(output, "a tensor or a scalar");
    }
    ir::Val* val = output.value.val;
    ir::Val* alias = nullptr;
    if (args.has("alias_input")) {
      alias = args.tensor("alias_input");
      if (!fusion_->isInput(alias)) {
        args.failAt(*args.find("alias_input"),
                    "alias_input " + alias->name() +
                        " must be a fusion input (a define_tensor)");
      }
    }
    std::vector<int64_t> order;
    if (args.has("stride_order")) order = args.intList("stride_order");
    if (!order.empty()) {
      if (alias != nullptr) {
        args.failCall(call.name +
                      " takes either alias_input or stride_order, not both");
      }
      ir::TensorView* tv = args.tensor("output");
      // Inputs keep their layout and an output keeps the one it was given;
      // a copy carries the new one.
      if (tv->isFusionInput() || tv->isFusionOutput() ||
          tv->logical().size() != static_cast<size_t>(tv->rank())) {
        tv = ops::set(tv);
      }
      try {
        tv->setStrideOrder(order);
      } catch (const UserError& error) {
        if (error.location()) throw;
        args.failAt(*args.find("stride_order"), error.message());
      }
      val = tv;
    }
    fusion_->addOutput(val, alias);
  }

  std::unique_ptr<ir::Fusion> fusion_;
  NameTable locals_;
  std::string selfName_;
  NameTable attributes_;
};

}  // namespace

std::unique_ptr<ir::Fusion> readClassDefinition(
    const std::vector<const std::vector<StmtPtr>*>& bodies,
    const std::string& selfName, const NameTable& globals,
    NameTable attributes) {
  DefinitionReader reader(globals, selfName, {});
  reader.setAttributes(selfName, std::move(attributes));
  for (const std::vector<StmtPtr>* body : bodies) reader.readBody(*body);
  return reader.read({});
}

std::unique_ptr<ir::Fusion> readDefinition(const std::vector<StmtPtr>& body,
                                           const std::string& fdName,
                                           const NameTable& globals,
                                           NameTable locals) {
  DefinitionReader reader(globals, fdName, std::move(locals));
  return reader.read(body);
}

}  // namespace fuserlab::frontend
