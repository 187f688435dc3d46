// Val: a value in a Fusion, either a TensorView or a Scalar. A Val is defined
// by at most one Expr (none for fusion inputs and constants) and used by any
// number of Exprs. Vals are owned by their Fusion and never outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/node_pool.h"

namespace fuserlab::ir {

class Expr;
class Fusion;

enum class ValKind : uint8_t { Scalar, TensorView };

class Val {
 public:
  FL_POOLED_NODE
  Val(const Val&) = delete;
  Val& operator=(const Val&) = delete;
  virtual ~Val() = default;

  ValKind kind() const { return kind_; }
  //! Position in the Fusion's creation order; stable for a given script.
  int64_t id() const { return id_; }
  DataType dtype() const { return dtype_; }
  Fusion* fusion() const { return fusion_; }
  //! The Expr that produces this Val; nullptr for inputs and constants.
  Expr* definition() const { return definition_; }
  //! Exprs that read this Val, in the order they were created.
  const std::vector<Expr*>& uses() const { return uses_; }

  bool isFusionInput() const;
  bool isFusionOutput() const;

  //! The IR name: T3 for tensors, i2/d4/b5 for symbolic scalars, the value
  //! for constants.
  virtual std::string name() const = 0;

  //! The name the user's script gave this value (e.g. "T10"), if any.
  const std::string& scriptName() const { return scriptName_; }
  void setScriptName(std::string name) { scriptName_ = std::move(name); }
  //! Index of the script call that made this value in its Fusion's
  //! scriptLocations (-1: none); see Fusion::scriptLocationOf.
  int32_t scriptLocationIndex() const { return scriptLocation_; }
  void setScriptLocationIndex(int32_t index) { scriptLocation_ = index; }

  template <typename T>
  bool isA() const {
    return kind_ == T::kKind;
  }
  template <typename T>
  T* as() {
    return isA<T>() ? static_cast<T*>(this) : nullptr;
  }
  template <typename T>
  const T* as() const {
    return isA<T>() ? static_cast<const T*>(this) : nullptr;
  }

 protected:
  Val(Fusion* fusion, ValKind kind, DataType dtype, int64_t id, int64_t nameIndex)
      : fusion_(fusion), kind_(kind), dtype_(dtype), id_(id), nameIndex_(nameIndex) {}

 public:
  //! The number in the value's name (3 for T3 or i3); -1 for a constant.
  int64_t nameIndex() const { return nameIndex_; }

 private:
  friend class Fusion;

  Fusion* fusion_;
  ValKind kind_;
  DataType dtype_;
  int64_t id_;
  int64_t nameIndex_;  // per-kind counter: T<n>, i<n>
  Expr* definition_ = nullptr;
  std::vector<Expr*> uses_;
  std::string scriptName_;
  int32_t scriptLocation_ = -1;
};

//! A compile-time constant's value; monostate for a symbolic scalar.
using ScalarValue = std::variant<std::monostate, bool, int64_t, double>;

//! A scalar: a constant, a symbolic value bound at run time (a fusion input
//! or a tensor extent), or the result of scalar Exprs on other scalars.
class Scalar : public Val {
 public:
  static constexpr ValKind kKind = ValKind::Scalar;

  bool isConst() const { return !std::holds_alternative<std::monostate>(value_); }
  const ScalarValue& value() const { return value_; }
  //! The constant as an integer, if it is an integer or bool constant.
  std::optional<int64_t> constInt() const;
  //! The constant as a double, if it is any constant.
  std::optional<double> constDouble() const;
  bool isConstInt(int64_t v) const { return constInt() == v; }

  std::string name() const override;

 private:
  friend class Fusion;
  Scalar(Fusion* fusion, DataType dtype, ScalarValue value, int64_t id, int64_t nameIndex)
      : Val(fusion, ValKind::Scalar, dtype, id, nameIndex), value_(std::move(value)) {}

  ScalarValue value_;
};

//! Formats a double the way the printer and writer do: shortest form that
//! reads back to the same value, always with a '.' or exponent ("1.0", "1e-05").
std::string formatDouble(double value);

//! A value as errors name it: "T3", or "T3 ('T10' in the script)" where
//! the script gave it another name.
std::string describeVal(const Val* val);

}  // namespace fuserlab::ir
