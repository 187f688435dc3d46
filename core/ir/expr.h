// Expr: an operation of the fusion, with input and output Vals. One class with
// an ExprType and typed attributes rather than a class per op: every consumer
// (printer, cloner, reference executor, code generator) switches over
// ExprType, and the operand layout of each type is fixed and documented below.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/node_pool.h"

namespace fuserlab::ir {

class Fusion;
class Val;
class TensorView;

// Operand layout per ExprType (inputs -> outputs):
//   Unary        [x] -> [y]                    (tensor or scalar)
//   Binary       [a, b] -> [y]                 (either may be a scalar)
//   Ternary      [a, b, c] -> [y]; Addcmul [a, b, c, value]: a + value*b*c
//   Cast         [x] -> [y]                    y's dtype is the target
//   Reduction    [x] -> [y]                    attrs.axes: reduced axes of x
//   Welford      [x] -> [avg, varSum, count]   attrs.axes; count is Int
//   Broadcast    [x] -> [y]                    attrs.broadcastFlags per y axis
//   Expand       [x, extent_0..extent_{r-1}] -> [y]  (-1 keeps x's extent)
//   Reshape      [x, size_0..size_{r-1}] -> [y]      (at most one -1)
//   Permute      [x] -> [y]                    attrs.axes: y axis i = x axis axes[i]
//   Squeeze      [x] -> [y]                    attrs.axes: removed axes of x
//   Slice        [x, start_0, stop_0, step_0, start_1, ...] -> [y]
//   Pad          [x, value, left_0, right_0, left_1, right_1, ...] -> [y]
//                (one pair per axis of x, in axis order)
//   Cat          [x_0, x_1, ...] -> [y]        attrs.dim
//   Set          [x] -> [y]                    a copy (may change allocation)
//   SegmentSet   [x] -> [y]                    a copy that forces a segment cut
//   Full         [size_0..size_{r-1}, fillValue] -> [y]
//   Iota         [length, start, step] -> [y]  1-D
//   IndexSelect  [x, index] -> [y]             attrs.dim; index is 1-D integer
//   Gather       [x, index] -> [y]             attrs.dim; take_along_axis
//   Matmul       [a, b] -> [y]                 torch.matmul semantics
//   Linear       [a, weight] or [a, weight, bias] -> [y]   a @ weight^T + bias
//   Sdpa         [q, k, v, dropoutP, isCausal, scale] -> [out, logSumExp,
//                philoxSeed, philoxOffset]; scale may be a Double scalar or
//                a constant NaN scalar meaning 1/sqrt(head_dim)
//   Random       [size_0..size_{r-1}, a, b, seed, offset] -> [y]
//                attrs.randomOp; a, b: low and high (Uniform) or mean and
//                std (Normal); seed and offset: Int scalars of Philox
//                (core/ir/random_numbers.h); attrs.dtype is y's dtype
//   SdpaBwd      [gradOut, q, k, v, out, logSumExp, dropoutP, isCausal,
//                philoxSeed, philoxOffset, scale] -> [gradQ, gradK, gradV];
//                scale as in Sdpa
//   Scatter      [x, index, src] -> [y]        attrs.dim; torch.scatter: y is x
//                with y[..index[i]..] = src[i] along dim; src is a tensor
//                of x's dtype or a scalar
//   IndexPutAccumulate [acc, index, value] -> [y]   y = acc, then
//                y[index[i]] += value[i] along axis 0; index is 1-D
//   Embedding    [input, weight, normType, scaleGradByFreq, sparse] plus
//                paddingIdx when attrs.flags[0], then maxNorm when
//                attrs.flags[1] -> [y]; y = weight[input] (rows renormalized
//                to maxNorm); the shape is input's plus weight's last axis
//   Argsort      [x] -> [indices]              attrs.dim; attrs.flags =
//                {descending, stable}; indices are Int
//   TopK         [x, k] -> [values, indices]   attrs.dim; attrs.flags =
//                {largest, sorted}; axis dim of both outputs has extent k
//   Scan         [x] or [x, init] -> [y]       attrs.dim; attrs.binaryOp Add
//                (cumsum), Mul (cumprod), Minimum (cummin) or Maximum
//                (cummax); y[i] = op(y[i-1], x[i]) along dim, y[-1] = init
//                (the op's identity when absent); y has x's dtype
enum class ExprType : uint8_t {
  Unary,
  Binary,
  Ternary,
  Cast,
  Reduction,
  Welford,
  Broadcast,
  Expand,
  Reshape,
  Permute,
  Squeeze,
  Slice,
  Pad,
  Cat,
  Set,
  SegmentSet,
  Full,
  Iota,
  IndexSelect,
  Gather,
  Matmul,
  Linear,
  Sdpa,
  Random,
  SdpaBwd,
  Scatter,
  IndexPutAccumulate,
  Embedding,
  Argsort,
  TopK,
  Scan,
};

enum class UnaryOpType : uint8_t {
  Abs,
  Neg,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log1p,
  Log2,
  Log10,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,
  Silu,
  Relu,
  Erf,
  Erfc,
  Erfinv,
  Lgamma,
  Floor,
  Ceil,
  Round,
  Trunc,
  Frac,
  Sign,
  Signbit,
  IsNan,
  IsInf,
  IsFinite,
  IsPosInf,
  IsNegInf,
  LogicalNot,
  BitwiseNot,
};

enum class BinaryOpType : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Fmod,
  Remainder,
  Minimum,
  Maximum,
  Atan2,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  LeftShift,
  RightShift,
  CeilDiv,
  Gcd,        //!< integers: the greatest common divisor of the magnitudes
  Nextafter,  //!< Float or Double: the next representable value toward b
};

enum class TernaryOpType : uint8_t { Where, Lerp, Clamp, Addcmul };

//! LogSumExp: max(x) + log(sum(exp(x - max(x)))) over the axes, computed in
//! one pass (a running max and a sum rescaled when the max grows). No fd.ops
//! name: the online_softmax_statistics pass makes it from the max, exp and
//! sum a log-softmax is written with, and its result is exactly what those
//! ops give at the edges (NaN for a row of -inf, a +inf or a NaN).
enum class ReductionOpType : uint8_t { Sum, Prod, Max, Min, LogSumExp };

//! The distribution of a Random expr.
enum class RandomOpType : uint8_t { Uniform, Normal };

std::string_view toString(ExprType type);
std::string_view toString(UnaryOpType op);   //!< the fd.ops name: "rsqrt"
std::string_view toString(BinaryOpType op);  //!< "add", "ceilDiv"
std::string_view toString(TernaryOpType op);
std::string_view toString(ReductionOpType op);  //!< "sum", "max", "logsumexp"
std::string_view toString(RandomOpType op);     //!< "uniform", "normal"
//! True for comparisons and logical ops: the result is Bool.
bool isPredicate(BinaryOpType op);
bool isPredicate(UnaryOpType op);

//! The attributes an Expr may carry; which fields mean something depends on
//! the ExprType (see the table above); the others keep their defaults.
struct ExprAttrs {
  UnaryOpType unaryOp = UnaryOpType::Abs;
  BinaryOpType binaryOp = BinaryOpType::Add;
  TernaryOpType ternaryOp = TernaryOpType::Where;
  ReductionOpType reductionOp = ReductionOpType::Sum;
  RandomOpType randomOp = RandomOpType::Uniform;
  std::vector<int64_t> axes;
  std::vector<bool> broadcastFlags;
  int64_t dim = 0;
  DataType dtype = DataType::Null;  //!< Full / Iota / Random: the dtype to produce
  //! Boolean options of Argsort, TopK and Embedding (see the table above).
  std::vector<bool> flags;

  bool operator==(const ExprAttrs&) const = default;
};

class Expr {
 public:
  FL_POOLED_NODE
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  int64_t id() const { return id_; }
  Fusion* fusion() const { return fusion_; }
  ExprType type() const { return type_; }
  const ExprAttrs& attrs() const { return attrs_; }
  const std::vector<Val*>& inputs() const { return inputs_; }
  const std::vector<Val*>& outputs() const { return outputs_; }
  Val* input(size_t i) const { return inputs_.at(i); }
  Val* output(size_t i) const { return outputs_.at(i); }

  //! The op's name as the frontend spells it: "add", "sum", "broadcast_in_dim".
  std::string opName() const;
  //! One line as in nvFuser's fusion_ir dump: "T2 = add(T0, T1)".
  std::string toString() const;

 private:
  friend class Fusion;
  Expr(Fusion* fusion, int64_t id, ExprType type, std::vector<Val*> inputs,
       std::vector<Val*> outputs, ExprAttrs attrs)
      : fusion_(fusion),
        id_(id),
        type_(type),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        attrs_(std::move(attrs)) {}

  Fusion* fusion_;
  int64_t id_;
  ExprType type_;
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
  ExprAttrs attrs_;
};

}  // namespace fuserlab::ir
