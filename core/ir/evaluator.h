// ExpressionEvaluator: the values of a fusion's scalars at run time. Symbolic
// scalars (scalar inputs, tensor extents) are bound to values; every other
// Scalar is a constant or is computed, recursively and memoized, from the
// scalar Exprs (Unary, Binary, Ternary, Cast) that define it.
//
// Invariant: a scalar has at most one value. Binding a constant to another
// value, or a scalar twice to different values, is a UserError, and values
// always have the alternative of the scalar's dtype: int64_t for Int/Int32,
// double for Half/BFloat16/Float/Double, bool for Bool.
//
// Independent of tensors: binding tensor shapes to extents is runtime's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/ir/val.h"

namespace fuserlab::ir {

class IterDomain;

class ExpressionEvaluator {
 public:
  //! Binds `scalar` to `value` (converted to its dtype; a fractional value for
  //! an integer scalar is an error). `source` says where the value comes from
  //! ("input T0 dimension 1") and is quoted if a later binding conflicts.
  void bind(const Scalar* scalar, ScalarValue value, std::string source = {});
  //! True if `scalar` was bound (constants are known but not bound).
  bool isBound(const Scalar* scalar) const;

  //! The scalar's value, or nullopt if it depends on an unbound scalar.
  //! Errors of the computation itself (an integer division by zero, an
  //! overflow) are UserErrors.
  std::optional<ScalarValue> evaluate(const Scalar* scalar) const;
  //! The value as an integer; a UserError naming `what` if it is unknown or
  //! not integral.
  int64_t evaluateInt(const Scalar* scalar, std::string_view what) const;
  double evaluateDouble(const Scalar* scalar, std::string_view what) const;
  bool evaluateBool(const Scalar* scalar, std::string_view what) const;
  //! The extent an axis iterates over (the expanded extent if any); >= 0.
  int64_t evaluateExtent(const IterDomain* id) const;

 private:
  struct Binding {
    ScalarValue value;
    std::string source;
  };

  std::optional<ScalarValue> evaluateDefinition(const Scalar* scalar) const;
  //! Whether evaluate(scalar) would compute it from its definition.
  bool needsEvaluation(const Scalar* scalar) const;
  //! Evaluates what `root`'s definition reads, without recursing.
  void evaluateOperandsFirst(const Scalar* root) const;
  ScalarValue evaluateOrThrow(const Scalar* scalar, std::string_view what) const;

  std::unordered_map<const Scalar*, Binding> bound_;
  // Values of defined scalars computed so far; consistent with bound_
  // because a binding never changes once made.
  mutable std::unordered_map<const Scalar*, ScalarValue> memo_;
  // Defined scalars found unknown (an unbound scalar below them) since the
  // last binding; bind() forgets them.
  mutable std::unordered_set<const Scalar*> unknown_;
};

}  // namespace fuserlab::ir
