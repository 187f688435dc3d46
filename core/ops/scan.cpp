#include "core/ops/scan.h"

#include <string>

#include "core/ir/error.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::Fusion;
using ir::IterDomain;
using ir::TensorView;
using ir::Val;

std::string scanName(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::Add: return "cumsum";
    case BinaryOpType::Mul: return "cumprod";
    case BinaryOpType::Minimum: return "cummin";
    case BinaryOpType::Maximum: return "cummax";
    default: return "scan";
  }
}

}  // namespace

TensorView* scan(TensorView* x, int64_t dim, BinaryOpType op, Val* init) {
  const std::string name = scanName(op);
  FL_ASSERT(name != "scan", "scan: unsupported op ", ir::toString(op));
  checkPresent(name, x, "the input");
  int64_t axis = 0;
  if (x->rank() == 0) {
    FL_CHECK(dim == 0 || dim == -1, name, ": dim ", dim, " is out of range for ", describeVal(x),
             ", which is 0-dim (expected 0 or -1)");
  } else {
    axis = normalizeAxis(name, x, dim);
  }
  if (init != nullptr) {
    FL_CHECK(init->isA<ir::Scalar>(), name, ": init ", describeVal(init),
             " is a tensor; expected a scalar (or None)");
    FL_CHECK(ir::isIntegral(init->dtype()) || ir::isFloatingPoint(init->dtype()) ||
                 init->dtype() == DataType::Bool,
             name, ": init ", describeVal(init), " is ", ir::toString(init->dtype()),
             "; expected a number");
  }
  Fusion* fusion = x->fusion();
  std::vector<IterDomain*> axes;
  const auto& inAxes = x->logicalNoReductions();
  for (size_t k = 0; k < inAxes.size(); ++k) {
    const IterDomain* id = inAxes[k];
    // Along an expanded axis the values are equal but their prefixes are
    // not: the scanned axis is materialized (an Iteration axis).
    if (static_cast<int64_t>(k) == axis && id->hasExpandedExtent()) {
      axes.push_back(fusion->newIterDomain(id->extentForIteration(), ir::IterType::Iteration));
    } else {
      axes.push_back(fusion->cloneIterDomain(id));
    }
  }
  TensorView* out = fusion->newTensorView(axes, x->dtype());
  ir::ExprAttrs attrs;
  attrs.dim = axis;
  attrs.binaryOp = op;
  std::vector<Val*> inputs = {x};
  if (init != nullptr) inputs.push_back(init);
  fusion->newExpr(ir::ExprType::Scan, inputs, {out}, attrs);
  return out;
}

}  // namespace fuserlab::ops
