// ExpressionEmitter: the C++ statements that compute the values of a
// segment's tensors at one element, op by op, with the CPU reference's
// semantics (core/reference/reference_elementwise.cpp and friends).
//
// Values live in local variables named after the tensors (`T3_v`; `T3_v_1`
// for a second index of the same tensor) in their *value type*: bool,
// int32_t, int64_t, float (Half, BFloat16 and Float; a 16-bit value is kept
// as a float already rounded to its dtype) or double. Each op converts its
// operands to the reference's compute type (float, double or int64_t, from
// the operands' and the output's dtypes), computes, and rounds the result to
// its output dtype, so bf16/half rounding happens at every op whose output is
// bf16/half, exactly as on the CPU.
//
// Two modes:
//   - indexed: every value is asked for at an element index (one C++ index
//     expression per logical axis); meta ops map the index to their input's
//     (broadcast, expand, squeeze, permute, reshape, slice, pad, cat,
//     index_select, gather) and full/iota/random compute from it. The pointwise and
//     transpose emitters use this. Slice, pad and cat index arithmetic is in
//     the kernel's index_t (expression_emitter_regions.cpp).
//   - element (`indexed` false; indices are empty): every op is taken at "the current
//     element"; broadcast, expand, squeeze, set, permute and reshape pass
//     the value through, and the caller's leaf loads decide which element
//     that is. Ops that need an index (slice, pad, cat, iota, index_select,
//     gather) are refused. Reduction-family emitters use this around their
//     reductions, with reduction results provided as leaves.
//
// Tensors the emitter does not compute (segment inputs, reduction results,
// anything hooks.isLeaf says) come from hooks.loadLeaf; symbolic scalars from
// hooks.symbolicScalar. Index expressions are pure C++ expressions of the
// caller's index variables, extents and scalars, except below an
// index_select/gather, whose indices read a local `gathered_idx<N>`.
// Computed values are remembered per (tensor, index)
// within the current scope, so a value used twice is computed once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/codegen/vector_lanes.h"
#include "core/ir/fusion.h"

namespace fuserlab::codegen {

//! The C++ type a value of `dtype` is kept in: bool, int32_t, int64_t, float
//! (Half, BFloat16, Float) or double.
std::string_view valueType(ir::DataType dtype);
//! The element type in memory and in fl::Tensor: bool, int32_t, int64_t,
//! fl::half, fl::bfloat16, float, double.
std::string_view elementType(ir::DataType dtype);
//! The C++ type a kernel parameter of a scalar of `dtype` has (kernel.h):
//! Half and BFloat16 scalars are passed as float.
std::string_view scalarParameterType(ir::DataType dtype);
//! `expression` (of value type `from`) converted to the value of `to` with
//! the reference's castElement semantics (rounding to half/bf16 included).
std::string convertValue(const std::string& expression, ir::DataType from, ir::DataType to);

//! Whether the generated code `text` names the identifier `name` (not as
//! part of a longer identifier).
bool mentionsIdentifier(const std::string& text, const std::string& name);

//! The dtype a scalar's evaluation type corresponds to (evaluator.h): Bool,
//! Double for floating dtypes, else Int.
ir::DataType evaluationDtype(ir::DataType dtype);

//! Half or BFloat16: kept as a float rounded to the dtype.
bool isNarrowFloat(ir::DataType dtype);

//! One C++ index expression per logical axis (reduction axes excluded),
//! outermost first; empty in element mode.
using ElementIndex = std::vector<std::string>;

struct ExpressionHooks {
  //! The value of a leaf tensor at `index`: a C++ expression of
  //! valueType(tv->dtype()). It may emit statements of its own elsewhere
  //! (e.g. hoisted vector loads).
  std::function<std::string(const ir::TensorView* tv, const ElementIndex& index)> loadLeaf;
  //! Whether `tv` is given by the caller rather than computed from its
  //! definition. Default: tensors without a definition.
  std::function<bool(const ir::TensorView* tv)> isLeaf;
  //! A C++ expression for a symbolic scalar the emitter cannot compute (no
  //! definition in the fusion): a kernel parameter, a tensor extent. Its type
  //! is the scalar's evaluation type: int64_t for Int/Int32, double for
  //! floating dtypes, bool for Bool.
  std::function<std::string(const ir::Scalar* scalar)> symbolicScalar;
  //! Optional: the name of a kernel-uniform index_t value computed once at
  //! the kernel's start (a slice start); `hint` prefixes the name. Without
  //! it the expression is written where it is used.
  std::function<std::string(const std::string& expression, const std::string& hint)> uniformIndex;
};

//! Which float transcendentals an op may compute with the hardware's
//! approximate instructions instead of the accurate libdevice functions,
//! decided by the fusion outputs computed from the op's value ("every
//! output" below): a bool or integer output reached makes none allowed.
struct Approximations {
  //! tanh.approx.f32 (max relative error about 2^-11) for tanh: only when
  //! every output is bf16 (8-bit mantissa; the GPU checks allow 1e-2).
  bool tanh = false;
  //! ex2.approx.f32 of x * log2(e) for exp (relative error about 2^-22 plus
  //! |x| * 2^-24 from the product: under 1e-5 for |x| < 100): when every
  //! output is bf16 or half (2^-11), never where a float or double output
  //! could show it. Two instructions instead of expf's eight or so: a
  //! softmax computes one or two exps per element.
  bool exp = false;
  //! div.full.f32 for a float quotient (at most 2 ulp in float, full range;
  //! subnormal quotients flush to zero): under the ulp of bf16 or half, so
  //! when every output is one of them, as for exp. The IEEE quotient
  //! (fl::fdiv) takes a dozen instructions and a range check per division:
  //! a softmax's `exp / sum` divides every element.
  bool div = false;
};

//! The approximations allowed for an op computing `value` of `fusion`: as
//! the outputs computed from `value` allow (see Approximations). An exp
//! whose every path ends in a half output may be approximate beside a
//! float mean that does not depend on it; no output reached, no error shown.
Approximations approximationsFor(const ir::Fusion& fusion, const ir::Val* value);

class ExpressionEmitter {
 public:
  //! `indexed`: track element indices (see the modes above).
  ExpressionEmitter(const ir::Fusion& fusion, ExpressionHooks hooks, bool indexed);
  bool indexed() const { return indexed_; }

  //! How deeply pad, cat, index_select and gather may nest inside one
  //! another in a kernel: each level takes a few call frames (the ops
  //! between them take none), so deeper nesting is refused, not a crash.
  static constexpr int kMaxNestedRegions = 1000;

  //! How deeply scalar ops may nest in one scalar's C++ expression.
  static constexpr int kMaxScalarExprDepth = 200;

  //! The name of a local variable (or a C++ expression) holding `tv`'s value
  //! at `index` (empty in element mode). Emits the statements computing it and
  //! whatever it reads, unless already computed in an enclosing scope.
  std::string value(const ir::TensorView* tv, const ElementIndex& index = {});
  //! The value to store into `tv` through fl::to_element: for a cast from
  //! Float to Half or BFloat16 the cast's operand, since to_element rounds
  //! to nearest even exactly as the cast would (one rounding, not a rounding
  //! followed by a second, exact conversion).
  std::string storedValue(const ir::TensorView* tv, const ElementIndex& index = {});
  //! `tv`'s value at `index`, computed only where `condition` holds (an
  //! output's write predicate where the walk passes its end: what it reads
  //! there may lie past its producers' ends). `uniform`: the condition is
  //! the same for every lane of a vector, so loads may be hoisted under it.
  std::string valueWhere(const ir::TensorView* tv, const ElementIndex& index,
                         const std::string& condition, bool uniform);

  //! A scalar as a C++ expression of its evaluation type (see hooks):
  //! a literal, a hook expression, or the scalar exprs that define it.
  std::string scalar(const ir::Scalar* scalar);
  //! The extent a consumer iterates over along `id`, as an int64_t expression.
  std::string extent(const ir::IterDomain* id);

  //! The statements emitted since the last takeCode().
  std::string takeCode();
  //! Hardware approximations of float transcendentals where the outputs an
  //! op's value reaches are too narrow to show their error
  //! (approximationsFor, per value).
  void allowApproximations() { approximate_ = true; }
  //! Indentation (spaces) of emitted statements.
  void setIndent(int spaces) { indent_ = spaces; }
  int indent() const { return indent_; }
  //! Opens / closes a remembering scope: values computed inside a scope are
  //! forgotten when it closes (the caller closes the matching C++ block).
  void pushScope();
  void popScope();
  //! 1 outside any conditional; more inside pad/cat branches (a leaf loaded
  //! there may be out of bounds unless the branch is taken).
  int scopeDepth() const { return static_cast<int>(scopes_.size()); }
  //! The vectorized pass's lanes (owned by the caller, outliving the
  //! emitter's use), or nullptr: slice, pad and cat then keep lane-affine
  //! indices lane-affine and take their branches once per vector where the
  //! bounds allow (vector_lanes.h).
  void setVectorLanes(VectorLanes* lanes) { lanes_ = lanes; }
  //! With vector lanes: the conjunction of the open pad/cat branches'
  //! conditions ("" outside any) when each is the same for every lane of a
  //! vector and names only the lane's base, so a load inside can be issued
  //! before the lane loop under that condition; nullopt otherwise.
  std::optional<std::string> hoistableCondition() const;
  //! Forgets every computed value (and restarts variable numbering only if
  //! `resetNames`).
  void clear(bool resetNames = false);

 private:
  //! The variable holding a computed value, if any open scope has it.
  const std::string* known(const std::string& key) const;
  //! Computes `tv` at `index` (not a leaf, not yet computed) and what it
  //! reads, without recursing along chains of ops (an explicit stack).
  void computeChain(const ir::TensorView* tv, const ElementIndex& index, std::string key);
  std::string compute(const ir::TensorView* tv, const ElementIndex& index,
                      const std::string& variable);
  std::string variableFor(const ir::TensorView* tv);
  void line(const std::string& text);
  std::string operand(const ir::Val* val, const ElementIndex& index, ir::DataType computeDtype);
  std::string operandBool(const ir::Val* val, const ElementIndex& index);
  //! The index of `producer` (an input of `expr`) at `consumer`'s `index`.
  ElementIndex producerIndex(const ir::Expr& expr, const ir::TensorView* producer,
                             const ElementIndex& index);
  ElementIndex sliceIndex(const ir::Expr& expr, const ir::TensorView* producer,
                          const ElementIndex& index);
  //! `index` + `shift`, lane-affine when `index` is.
  std::string offsetIndex(const std::string& index, const IndexSum& shift);
  //! An integer scalar as an index_t sum (its constant folded).
  IndexSum indexSum(const ir::Scalar* scalar);
  //! A pad/cat branch: `uniform` when the same for every lane of a vector.
  void pushBranch(bool uniform, const std::string& condition);
  ElementIndex reshapeIndex(const ir::TensorView* producer, const ir::TensorView* consumer,
                            const ElementIndex& index);
  std::string emitPad(const ir::Expr& expr, const ir::TensorView* out, const ElementIndex& index,
                      const std::string& variable);
  std::string emitCat(const ir::Expr& expr, const ir::TensorView* out, const ElementIndex& index,
                      const std::string& variable);
  std::string scalarExpr(const ir::Expr& expr, const ir::Scalar* out);
  //! A random op's value at `index`: the fl::rng call of its distribution
  //! and dtype at the element's linear index (core/ir/random_numbers.h).
  std::string randomValue(const ir::Expr& expr, const ir::TensorView* out,
                          const ElementIndex& index);
  std::string temporary(const std::string& prefix);
  //! The half/bf16 dtype `value` (of `dtype`) is exactly representable in,
  //! as far as the emitter knows, or Null: half/bf16 values are, and
  //! float/double variables computed from them without arithmetic.
  ir::DataType exactIn(const std::string& value, ir::DataType dtype) const;

  const ir::Fusion& fusion_;
  ExpressionHooks hooks_;
  bool indexed_;
  std::string code_;
  int indent_ = 2;
  //! (tensor name, index) -> variable, one map per open scope; std::map so
  //! that nothing depends on pointer order.
  std::vector<std::map<std::string, std::string>> scopes_;
  //! Per scope after the first: whether its branch is the same for every
  //! lane of a vector, and its condition at the lanes' base.
  struct Branch {
    bool uniform = false;
    std::string condition;
  };
  std::vector<Branch> branches_;
  VectorLanes* lanes_ = nullptr;
  //! computeChain calls open on the call stack (see kMaxNestedRegions).
  int regionDepth_ = 0;
  //! scalar() calls open on the call stack (see kMaxScalarExprDepth).
  int scalarDepth_ = 0;
  std::map<std::string, int> nameUses_;
  int temporaries_ = 0;
  bool approximate_ = false;
  //! approximationsFor of each value asked about.
  std::map<const ir::Val*, Approximations> approximations_;
  Approximations approximationsOf(const ir::Val* value);
  //! Float/double variables whose value is exact in half or bf16 (a widened
  //! narrow value), so a cast back needs no rounding; names are unique.
  std::map<std::string, ir::DataType> exact_;
};

}  // namespace fuserlab::codegen
