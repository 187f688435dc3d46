#include "core/ops/logical_shift.h"

#include "core/ir/error.h"
#include "core/ops/arith.h"
#include "core/ops/operand_checks.h"

namespace fuserlab::ops {

using ir::BinaryOpType;
using ir::DataType;
using ir::Fusion;
using ir::Val;

Val* logicalRightShift(Val* x, Val* shift) {
  constexpr std::string_view kOp = "logical_right_shift";
  checkPresent(kOp, x, "the first operand");
  checkPresent(kOp, shift, "the second operand");
  FL_CHECK(ir::isIntegral(x->dtype()), kOp, ": ", describeVal(x), " is ", ir::toString(x->dtype()),
           "; logical_right_shift needs integer operands");
  FL_CHECK(ir::isIntegral(shift->dtype()), kOp, ": ", describeVal(shift), " is ",
           ir::toString(shift->dtype()), "; logical_right_shift needs integer operands");
  Fusion& fusion = *x->fusion();
  const int64_t bits = x->dtype() == DataType::Int32 ? 32 : 64;
  // Every shift below is in [0, bits), where right_shift and left_shift are
  // the same on every backend: the amount is clamped, and a where gives 0
  // for the amounts outside [0, bits).
  Val* amount =
      binaryOp(BinaryOpType::Minimum, binaryOp(BinaryOpType::Maximum, shift, fusion.constInt(0)),
               fusion.constInt(bits - 1));
  // The arithmetic shift copies the sign into the top `amount` bits; a mask
  // clears them. The mask is made in Int whatever the operands' dtypes:
  // high = (-1 << (bits - 1 - amount)) << 1 holds the top `amount` of `bits`
  // bits (never a shift by `bits`), the mask its complement, or -1 for
  // amount 0, so that for 32 bits it is an Int32 value too.
  Val* arithmetic = binaryOp(BinaryOpType::RightShift, x, amount);
  Val* amount64 = cast(amount, DataType::Int);
  Val* high = binaryOp(BinaryOpType::LeftShift,
                       binaryOp(BinaryOpType::LeftShift, fusion.constInt(-1),
                                binaryOp(BinaryOpType::Sub, fusion.constInt(bits - 1), amount64)),
                       fusion.constInt(1));
  Val* mask = where(binaryOp(BinaryOpType::Eq, amount64, fusion.constInt(0)), fusion.constInt(-1),
                    unaryOp(ir::UnaryOpType::BitwiseNot, high));
  Val* shifted = binaryOp(BinaryOpType::BitwiseAnd, arithmetic, cast(mask, arithmetic->dtype()));
  Val* inRange =
      binaryOp(BinaryOpType::LogicalAnd, binaryOp(BinaryOpType::Ge, shift, fusion.constInt(0)),
               binaryOp(BinaryOpType::Lt, shift, fusion.constInt(bits)));
  return where(inRange, shifted, fusion.constInt(0));
}

}  // namespace fuserlab::ops
