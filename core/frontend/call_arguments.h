// Call arguments as a script passes them: evaluated left to right (as Python
// does, so the fusion's values are created in the script's order), then bound
// to a parameter list by position or keyword and converted to what an op
// builder takes. Every mistake is a UserError at the argument it is about:
// "expected a tensor for argument 'arg' of fd.ops.exp, found a list".
// Internal to the frontend.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/script_value.h"
#include "core/ir/error.h"

namespace fuserlab::frontend {

//! One evaluated argument; `keyword` is empty for a positional one.
struct Argument {
  Value value;
  SourceLocation location;  //!< where the value's expression starts
  std::string keyword;
  SourceLocation keywordLocation;  //!< where the keyword's name is
};

//! A call whose arguments have been evaluated.
struct EvaluatedCall {
  std::string name;  //!< as messages spell it: "fd.ops.sum", "torch.randn"
  SourceLocation location;
  std::vector<Argument> positional;
  std::vector<Argument> keywords;
};

//! One parameter of a signature.
struct ParameterSpec {
  std::string_view name;
  bool required = false;
};

//! A copy of `call` with its keyword `alias` renamed `name`: the spellings
//! older nvFuser versions print (`symbolic_sizes=` for `shape=`,
//! `output_shape=`, `axes=` for `dims=`).
EvaluatedCall renameKeyword(const EvaluatedCall& call, std::string_view alias,
                            std::string_view name);

//! The literal `value` (int, float or bool) as a new constant of `fusion`:
//! int -> Int, float -> Double, bool -> Bool; null for anything else.
ir::Scalar* literalConstant(ir::Fusion& fusion, const Value& value);

//! The arguments of one call bound to a signature. The call must outlive it.
class BoundArguments {
 public:
  //! Binds positional arguments in order and keywords by name. Throws on an
  //! unknown keyword, too many positional arguments, an argument given twice
  //! or a required one missing. `fusion` is where literals become constants
  //! (null where no fusion is being built).
  BoundArguments(const EvaluatedCall& call, std::vector<ParameterSpec> params,
                 ir::Fusion* fusion = nullptr);

  const std::string& callName() const { return call_.name; }
  const SourceLocation& location() const { return call_.location; }

  //! The argument bound to `name`; null when it was not given.
  const Argument* find(std::string_view name) const;
  //! Given and not None.
  bool has(std::string_view name) const;

  //! A tensor; absent or None is an error (or null for the optional form).
  ir::TensorView* tensor(std::string_view name) const;
  ir::TensorView* optionalTensor(std::string_view name) const;
  //! A tensor, a scalar, or a Python number made a constant.
  ir::Val* operand(std::string_view name) const;
  //! A scalar or a Python number made a constant; the optional form gives
  //! null when absent or None.
  ir::Scalar* scalar(std::string_view name) const;
  ir::Scalar* optionalScalar(std::string_view name) const;

  int64_t integer(std::string_view name) const;
  int64_t integer(std::string_view name, int64_t fallback) const;
  //! An int or a float (a bool is refused).
  double number(std::string_view name, double fallback) const;
  bool boolean(std::string_view name, bool fallback) const;
  ir::DataType dtype(std::string_view name) const;
  ir::DataType dtype(std::string_view name, ir::DataType fallback) const;

  //! A list or tuple of ints; with `acceptSingle` a lone int is a list of one.
  std::vector<int64_t> intList(std::string_view name, bool acceptSingle = false) const;
  std::vector<bool> boolList(std::string_view name) const;
  //! Sizes: a list or tuple (a define_vector result, `T.shape()`) of ints and
  //! integer scalars (`T.size(1)`); ints become constants.
  std::vector<ir::Scalar*> sizeList(std::string_view name) const;
  std::vector<ir::TensorView*> tensorList(std::string_view name) const;

  //! "expected <expected> for argument '<name>' of <call>, found <kind>",
  //! at the argument.
  [[noreturn]] void failType(const Argument& argument, std::string_view expected) const;
  //! A UserError at the argument.
  [[noreturn]] void failAt(const Argument& argument, const std::string& message) const;
  //! A UserError at the call.
  [[noreturn]] void failCall(const std::string& message) const;

 private:
  const Argument& require(std::string_view name) const;
  std::string parameterNames() const;
  std::string_view nameOf(const Argument& argument) const;
  ir::Fusion& fusion(const Argument& argument) const;

  const EvaluatedCall& call_;
  std::vector<ParameterSpec> params_;
  std::vector<const Argument*> bound_;
  ir::Fusion* fusion_;
};

}  // namespace fuserlab::frontend
