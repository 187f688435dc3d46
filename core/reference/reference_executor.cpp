#include "core/reference/reference_executor.h"

#include <string>
#include <variant>

#include "core/ir/error.h"
#include "core/ir/size_limits.h"
#include "core/reference/reference_internal.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime {
namespace reference {

ReferenceContext::ReferenceContext(const ir::Fusion& fusion, ir::ExpressionEvaluator& evaluator)
    : evaluator_(evaluator), tensors_(fusion.vals().size()) {
  for (const auto& id : fusion.iterDomains()) {
    if (id->isDeviceDim()) checkExtents_ = false;
  }
}

const Tensor& ReferenceContext::tensor(const ir::Val* val) const {
  const Tensor& tensor = tensors_.at(static_cast<size_t>(val->id()));
  FL_ASSERT(tensor.defined(), "the reference has no value for ", val->name(),
            " when an op reads it");
  return tensor;
}

void ReferenceContext::setTensor(const ir::Val* val, Tensor tensor) {
  FL_ASSERT(tensor.dtype() == val->dtype(), "the reference computed ", ir::toString(tensor.dtype()),
            " for ", val->name(), " of dtype ", ir::toString(val->dtype()));
  if (const auto* tv = val->as<ir::TensorView>()) {
    const std::vector<ir::IterDomain*>& axes = tv->logicalNoReductions();
    FL_ASSERT(static_cast<int64_t>(axes.size()) == tensor.dim(), "the reference computed a ",
              tensor.dim(), "-dim tensor for ", tv->toString());
    // Where the IR knows an extent, the data must agree with it; a mismatch
    // means symbolic extents that the user bound inconsistently.
    for (size_t i = 0; i < axes.size() && checkExtents_; ++i) {
      const std::optional<ir::ScalarValue> extent =
          evaluator_.evaluate(axes[i]->extentForIteration());
      if (!extent || !std::holds_alternative<int64_t>(*extent)) continue;
      const std::string producer =
          val->definition() != nullptr ? val->definition()->opName() : "input";
      FL_CHECK(std::get<int64_t>(*extent) == tensor.sizes()[i], producer, ": ", val->name(),
               " has size ", tensor.sizes()[i], " on axis ", i, " but its extent ",
               axes[i]->toString(), " evaluates to ", std::get<int64_t>(*extent));
    }
  } else {
    FL_ASSERT(tensor.dim() == 0, "a scalar's tensor must be 0-dim");
  }
  tensors_.at(static_cast<size_t>(val->id())) = std::move(tensor);
}

ir::ScalarValue ReferenceContext::scalar(const ir::Val* val, std::string_view what) const {
  const auto* scalar = val->as<ir::Scalar>();
  FL_ASSERT(scalar != nullptr, val->name(), " is not a scalar (", what, ")");
  std::optional<ir::ScalarValue> value = evaluator_.evaluate(scalar);
  FL_CHECK(value.has_value() && !std::holds_alternative<std::monostate>(*value), what,
           ": the value of ", val->name(), " is unknown (an unbound scalar input or extent)");
  return *value;
}

int64_t ReferenceContext::intValue(const ir::Val* val, std::string_view what) const {
  const auto* scalar = val->as<ir::Scalar>();
  FL_ASSERT(scalar != nullptr, val->name(), " is not a scalar (", what, ")");
  return evaluator_.evaluateInt(scalar, what);
}

double ReferenceContext::doubleValue(const ir::Val* val, std::string_view what) const {
  const auto* scalar = val->as<ir::Scalar>();
  FL_ASSERT(scalar != nullptr, val->name(), " is not a scalar (", what, ")");
  return evaluator_.evaluateDouble(scalar, what);
}

std::vector<int64_t> ReferenceContext::shapeOf(const ir::TensorView* tv) const {
  std::vector<int64_t> shape;
  for (const ir::IterDomain* id : tv->logicalNoReductions()) {
    shape.push_back(evaluator_.evaluateExtent(id));
  }
  return shape;
}

Tensor scalarTensor(const ir::ScalarValue& value, ir::DataType dtype) {
  Tensor tensor = Tensor::empty(dtype, {});
  dispatchElementType(dtype, [&]<class T>(TypeTag<T>) {
    T* element = tensor.dataAs<T>();
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) {
            FL_ASSERT(false, "scalarTensor of an unknown value");
          } else if constexpr (std::is_same_v<V, bool>) {
            *element = castElement<T>(static_cast<uint8_t>(v));
          } else {
            *element = castElement<T>(v);
          }
        },
        value);
  });
  return tensor;
}

}  // namespace reference

namespace {

using reference::ReferenceContext;

void bindInputs(const ir::Fusion& fusion, const Arguments& inputs, ReferenceContext& context) {
  const std::vector<ir::Val*>& vals = fusion.inputs();
  FL_CHECK(inputs.size() == vals.size(), "the fusion has ", vals.size(), " inputs but ",
           inputs.size(), " arguments were given");
  for (size_t i = 0; i < vals.size(); ++i) {
    const ir::Val* val = vals[i];
    if (const auto* tv = val->as<ir::TensorView>()) {
      const Tensor* tensor = std::get_if<Tensor>(&inputs[i]);
      FL_CHECK(tensor != nullptr && tensor->defined(), "input ", i, " (", tv->name(),
               ") expects a tensor, got a scalar");
      FL_CHECK(tensor->isCpu(), "the CPU reference needs CPU tensors; input ", i, " (", tv->name(),
               ") is on ", tensor->device().toString());
      FL_CHECK(tensor->dtype() == tv->dtype(), "input ", i, " (", tv->name(), ") expects ",
               ir::toString(tv->dtype()), ", got ", ir::toString(tensor->dtype()));
      FL_CHECK(tensor->dim() == tv->rank(), "input ", i, " (", tv->name(), ") expects ", tv->rank(),
               " dims, got ", tensor->dim());
      context.setTensor(val, *tensor);
      continue;
    }
    const auto* scalar = val->as<ir::Scalar>();
    const ir::ScalarValue* value = std::get_if<ir::ScalarValue>(&inputs[i]);
    FL_CHECK(value != nullptr && !std::holds_alternative<std::monostate>(*value), "input ", i, " (",
             val->name(), ") expects a scalar value");
    if (!scalar->isConst() && !context.evaluator().isBound(scalar)) {
      context.evaluator().bind(scalar, *value, "input " + std::to_string(i));
    }
  }
}

void evaluateExpr(const ir::Expr& expr, ReferenceContext& context) {
  using ir::ExprType;
  switch (expr.type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast: return reference::evaluateElementwise(expr, context);
    case ExprType::Reduction:
    case ExprType::Welford: return reference::evaluateReduction(expr, context);
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Reshape:
    case ExprType::Permute:
    case ExprType::Squeeze:
    case ExprType::Slice:
    case ExprType::Pad:
    case ExprType::Cat:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Full:
    case ExprType::Iota: return reference::evaluateMetaOp(expr, context);
    case ExprType::IndexSelect:
    case ExprType::Gather:
    case ExprType::Embedding: return reference::evaluateIndexing(expr, context);
    case ExprType::Scatter:
    case ExprType::IndexPutAccumulate: return reference::evaluateScatter(expr, context);
    case ExprType::Argsort:
    case ExprType::TopK: return reference::evaluateSorting(expr, context);
    case ExprType::Scan: return reference::evaluateScan(expr, context);
    case ExprType::Matmul:
    case ExprType::Linear: return reference::evaluateMatmul(expr, context);
    case ExprType::Sdpa: return reference::evaluateSdpa(expr, context);
    case ExprType::SdpaBwd: return reference::evaluateSdpaBwd(expr, context);
    case ExprType::Random: return reference::evaluateRandom(expr, context);
  }
  FL_ASSERT(false, "unknown ExprType in ", expr.toString());
}

bool producesTensor(const ir::Expr& expr) {
  for (const ir::Val* out : expr.outputs()) {
    if (out->isA<ir::TensorView>()) return true;
  }
  return false;
}

}  // namespace

std::vector<Tensor> evaluateReference(const ir::Fusion& fusion, const Arguments& inputs,
                                      ir::ExpressionEvaluator& evaluator) {
  ReferenceContext context(fusion, evaluator);
  bindInputs(fusion, inputs, context);
  ir::checkTensorSizes(fusion, evaluator);

  // Scalar Exprs are left to the evaluator, which computes them on demand.
  for (const ir::Expr* expr : fusion.exprsForOutputs()) {
    if (!producesTensor(*expr)) continue;
    try {
      evaluateExpr(*expr, context);
    } catch (const UserError& error) {
      // An op's error on the values (an integer division by zero) at the
      // script call that made the op, where the reader recorded one.
      const SourceLocation* where =
          error.location() ? nullptr : fusion.scriptLocationOf(expr->output(0));
      if (where == nullptr) throw;
      throw UserError(error.message(), *where);
    }
  }

  std::vector<Tensor> outputs;
  for (const ir::Val* val : fusion.outputVals()) {
    if (!val->isA<ir::TensorView>()) {
      outputs.push_back(
          reference::scalarTensor(context.scalar(val, "fusion output"), val->dtype()));
      continue;
    }
    const Tensor& tensor = context.tensor(val);
    // Outputs own their storage: never a view of an input or of another
    // output (the caller may write into them).
    bool shared = !tensor.isContiguous();
    for (const Argument& input : inputs) {
      const Tensor* in = std::get_if<Tensor>(&input);
      shared = shared || (in != nullptr && in->sharesStorageWith(tensor));
    }
    for (const Tensor& previous : outputs) {
      shared = shared || previous.sharesStorageWith(tensor);
    }
    outputs.push_back(shared ? tensor.clone() : tensor);
  }
  return outputs;
}

}  // namespace fuserlab::runtime
