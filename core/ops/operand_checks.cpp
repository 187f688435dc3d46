#include "core/ops/operand_checks.h"

#include "core/ir/error.h"

namespace fuserlab::ops {

std::string shapeToString(const ir::TensorView* tv) {
  std::string out = "[";
  const auto& axes = tv->logicalNoReductions();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out += ", ";
    out += axes[i]->extentForIteration()->name();
  }
  return out + "]";
}

std::string shapeToString(const std::vector<ir::Scalar*>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] ? shape[i]->name() : "None";
  }
  return out + "]";
}

std::optional<int64_t> constExtent(const ir::IterDomain* id) {
  return id->extentForIteration()->constInt();
}

void checkPresent(std::string_view op, const ir::Val* val, std::string_view what) {
  FL_CHECK(val != nullptr, op, ": ", what, " is missing (None was given); expected a value");
}

void checkIntegralScalar(std::string_view op, const ir::Scalar* scalar, std::string_view what) {
  FL_CHECK(scalar != nullptr, op, ": ", what,
           " is missing (None was given); expected an integer scalar");
  FL_CHECK(ir::isIntegral(scalar->dtype()), op, ": ", what, " must be an integer scalar, but ",
           describeVal(scalar), " is ", ir::toString(scalar->dtype()));
}

int64_t normalizeAxis(std::string_view op, const ir::TensorView* tv, int64_t axis) {
  const int64_t rank = tv->rank();
  FL_CHECK(axis >= -rank && axis < rank, op, ": axis ", axis, " is out of range for ",
           describeVal(tv), " of rank ", rank, " (expected ", -rank, " <= axis < ", rank, ")");
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalizeAxes(std::string_view op, const ir::TensorView* tv,
                                   const std::vector<int64_t>& axes) {
  std::vector<int64_t> normalized;
  normalized.reserve(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = normalizeAxis(op, tv, axes[i]);
    for (size_t j = 0; j < normalized.size(); ++j) {
      FL_CHECK(normalized[j] != axis, op, ": axis ", axis, " of ", describeVal(tv), " (rank ",
               tv->rank(), ") is given twice (as ", axes[j], " and ", axes[i],
               "); each axis may appear once");
    }
    normalized.push_back(axis);
  }
  return normalized;
}

}  // namespace fuserlab::ops
