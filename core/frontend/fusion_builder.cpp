#include "core/frontend/fusion_builder.h"

#include <map>

#include "core/frontend/call_arguments.h"
#include "core/frontend/fd_methods.h"
#include "core/frontend/fd_ops.h"
#include "core/frontend/script_ast.h"
#include "core/frontend/script_value.h"
#include "core/ir/error.h"

namespace fuserlab::frontend {
namespace {

SourceLocation locationOf(const std::string& where) {
  SourceLocation location;
  const size_t colon = where.rfind(':');
  location.file = colon == std::string::npos ? where : where.substr(0, colon);
  if (colon != std::string::npos) location.line = std::atoi(where.c_str() + colon + 1);
  return location;
}

}  // namespace

FusionBuilder::FusionBuilder() : fusion_(std::make_unique<ir::Fusion>()) {}
FusionBuilder::~FusionBuilder() = default;

const ir::Val* FusionBuilder::val(int64_t handle) const {
  FL_CHECK(handle >= 0 && static_cast<size_t>(handle) < vals_.size(), "value ", handle,
           " does not belong to this FusionDefinition");
  return vals_[static_cast<size_t>(handle)];
}

namespace {

struct Converter {
  std::vector<ir::Val*>& vals;

  Value in(const BuilderValue& value) const {
    using K = BuilderValue::Kind;
    switch (value.kind) {
      case K::None: return Value::none();
      case K::Bool: return Value::boolean(value.boolValue);
      case K::Int: return Value::integer(value.intValue);
      case K::Float: return Value::floating(value.floatValue);
      case K::String: return Value::string(value.text);
      case K::DataType: return Value::dataType(value.dtype);
      case K::Val:
        FL_CHECK(value.intValue >= 0 && static_cast<size_t>(value.intValue) < vals.size(),
                 "a value of another FusionDefinition was passed in");
        return Value::fusionVal(vals[static_cast<size_t>(value.intValue)]);
      case K::List:
      case K::Tuple: {
        ValueList items;
        for (const BuilderValue& item : value.items) items.push_back(in(item));
        return value.kind == K::List ? Value::list(std::move(items))
                                     : Value::tuple(std::move(items));
      }
    }
    return Value::none();
  }

  BuilderValue out(const Value& value) const {
    using Kind = Value::Kind;
    switch (value.kind) {
      case Kind::kNone: return BuilderValue::none();
      case Kind::kBool: return BuilderValue::boolean(value.boolValue);
      case Kind::kInt: return BuilderValue::integer(value.intValue);
      case Kind::kFloat: return BuilderValue::floating(value.floatValue);
      case Kind::kString: return BuilderValue::string(value.text);
      case Kind::kDataType:
      case Kind::kTorchDtype: return BuilderValue::dataType(value.dtype);
      case Kind::kTensor:
      case Kind::kScalar: {
        for (size_t i = 0; i < vals.size(); ++i) {
          if (vals[i] == value.val) return BuilderValue::val(static_cast<int64_t>(i));
        }
        vals.push_back(value.val);
        return BuilderValue::val(static_cast<int64_t>(vals.size() - 1));
      }
      case Kind::kList:
      case Kind::kTuple: {
        std::vector<BuilderValue> items;
        for (const Value& item : value.items()) items.push_back(out(item));
        return BuilderValue::sequence(std::move(items), value.kind == Kind::kTuple);
      }
      default: return BuilderValue::string(describeKind(value));
    }
  }

  EvaluatedCall call(const std::string& name, const std::vector<BuilderValue>& positional,
                     const BuilderKeywords& keywords, const std::string& where) const {
    EvaluatedCall call;
    call.name = name;
    call.location = locationOf(where);
    for (const BuilderValue& value : positional) {
      call.positional.push_back({in(value), call.location, {}, {}});
    }
    for (const auto& [keyword, value] : keywords) {
      call.keywords.push_back({in(value), call.location, keyword, call.location});
    }
    return call;
  }
};

}  // namespace

BuilderValue FusionBuilder::callFd(const std::string& name,
                                   const std::vector<BuilderValue>& positional,
                                   const BuilderKeywords& keywords, const std::string& where) {
  Converter c{vals_};
  const EvaluatedCall call = c.call("fd." + name, positional, keywords, where);
  std::optional<Value> result = callFdMethod(*fusion_, name, call, {});
  if (!result) {
    throw UserError("fd." + name +
                        " is not a FusionDefinition method; expected "
                        "define_tensor, define_scalar, define_vector, add_output or fd.ops.<op>",
                    call.location);
  }
  return c.out(*result);
}

BuilderValue FusionBuilder::callOp(const std::string& name,
                                   const std::vector<BuilderValue>& positional,
                                   const BuilderKeywords& keywords, const std::string& where) {
  Converter c{vals_};
  return c.out(callFdOp(*fusion_, name, c.call("fd.ops." + name, positional, keywords, where)));
}

BuilderValue FusionBuilder::callTensorMethod(int64_t handle, const std::string& name,
                                             const std::vector<BuilderValue>& positional,
                                             const std::string& where) {
  Converter c{vals_};
  auto* tv = const_cast<ir::Val*>(val(handle))->as<ir::TensorView>();
  FL_CHECK(tv != nullptr, "T.", name, "() needs a tensor; ", val(handle)->name(), " is a scalar");
  if (auto attribute = tensorAttribute(tv, name); attribute && positional.empty()) {
    return c.out(*attribute);
  }
  return c.out(frontend::callTensorMethod(tv, name, c.call(name, positional, {}, where)));
}

BuilderValue FusionBuilder::binaryOperator(const std::string& op, const BuilderValue& lhs,
                                           const BuilderValue& rhs, const std::string& where) {
  static const std::map<std::string, BinaryOpKind> kOps = {
      {"+", BinaryOpKind::kAdd},        {"-", BinaryOpKind::kSub},
      {"*", BinaryOpKind::kMul},        {"/", BinaryOpKind::kDiv},
      {"//", BinaryOpKind::kFloorDiv},  {"%", BinaryOpKind::kMod},
      {"**", BinaryOpKind::kPow},       {"<", BinaryOpKind::kLess},
      {"<=", BinaryOpKind::kLessEq},    {">", BinaryOpKind::kGreater},
      {">=", BinaryOpKind::kGreaterEq}, {"&", BinaryOpKind::kBitAnd},
      {"|", BinaryOpKind::kBitOr},      {"^", BinaryOpKind::kBitXor}};
  const auto found = kOps.find(op);
  FL_CHECK(found != kOps.end(), "'", op, "' is not an operator of fusion values");
  Converter c{vals_};
  return c.out(applyOperator(*fusion_, found->second, c.in(lhs), c.in(rhs), locationOf(where)));
}

BuilderValue FusionBuilder::unaryOperator(const std::string& op, const BuilderValue& operand,
                                          const std::string& where) {
  FL_CHECK(op == "-" || op == "~", "'", op, "' is not a unary operator of fusion values");
  Converter c{vals_};
  return c.out(applyUnaryOperator(*fusion_, op == "-" ? UnaryOpKind::kNegate : UnaryOpKind::kInvert,
                                  c.in(operand), locationOf(where)));
}

}  // namespace fuserlab::frontend
