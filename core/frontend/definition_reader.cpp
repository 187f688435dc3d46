#include "core/frontend/definition_reader.h"

#include "core/frontend/define_tensor.h"
#include "core/frontend/fd_ops.h"
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
    for (const StmtPtr& stmt : body) {
      try {
        if (!readStatement(*stmt)) break;
      } catch (const UserError& error) {
        if (error.location()) throw;
        throw UserError(error.message(), stmt->location);
      }
    }
    return std::move(fusion_);
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
        return name == "ops" ? Value::fdOps() : Value::method(object, name);
      case Kind::kFdOps:
        return Value::method(object, name);
      case Kind::kTensor:
        if (name == "ndim") return Value::integer(object.tensor()->rank());
        if (name == "size" || name == "shape") {
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
};

}  // namespace

std::unique_ptr<ir::Fusion> readDefinition(const std::vector<StmtPtr>& body,
                                           const std::string& fdName,
                                           const NameTable& globals,
                                           NameTable locals) {
  DefinitionReader reader(globals, fdName, std::move(locals));
  return reader.read(body);
}

}  // namespace fuserlab::frontend
