#include "core/ir/random_op.h"

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

// Inputs are [size_0..size_{r-1}, a, b, seed, offset]: `fromEnd` 4 is a.
const Scalar* trailingScalar(const Expr& expr, size_t fromEnd) {
  FL_ASSERT(expr.type() == ExprType::Random, "not a random op: ", expr.toString());
  const size_t n = expr.inputs().size();
  FL_ASSERT(n >= 4, expr.toString(), ": a random op has at least 4 inputs");
  const auto* scalar = expr.input(n - fromEnd)->as<Scalar>();
  FL_ASSERT(scalar != nullptr, expr.toString(), ": input ", n - fromEnd, " is not a scalar");
  return scalar;
}

}  // namespace

const Scalar* randomParameterA(const Expr& expr) { return trailingScalar(expr, 4); }
const Scalar* randomParameterB(const Expr& expr) { return trailingScalar(expr, 3); }
const Scalar* randomSeed(const Expr& expr) { return trailingScalar(expr, 2); }
const Scalar* randomOffset(const Expr& expr) { return trailingScalar(expr, 1); }

bool isStandardRandom(const Expr& expr) {
  const Scalar* a = randomParameterA(expr);
  const Scalar* b = randomParameterB(expr);
  return a->isConst() && b->isConst() && a->constDouble() == 0.0 && b->constDouble() == 1.0;
}

}  // namespace fuserlab::ir
