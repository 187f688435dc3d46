// Pointwise ops of the reference executor: Unary, Binary, Ternary and Cast.
//
// An op is evaluated in blocks of the output's row-major elements. Per block,
// each operand is read into its compute type (a pointer into the operand when
// it is contiguous and already of that type; a strided, converting gather
// otherwise, with stride 0 on broadcast axes), one tight loop applies the op,
// and the result is converted to the output dtype. The op and the types are
// chosen once per Expr as function pointers; the per-element code is a
// captureless lambda inlined into its loop.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/integer_math.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/reference/reference_math.h"
#include "core/reference/reference_parallel.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::TernaryOpType;
using ir::UnaryOpType;

constexpr int64_t kBlockElements = 2048;
constexpr int64_t kMinBlocksPerThread = kMinElementsPerThread / kBlockElements;
constexpr size_t kMaxOperands = 4;

//! Runs the op over `count` elements: operands[i] holds operand i's block in
//! its load type; `result` receives the block in the kernel's result type.
using BlockKernel = void (*)(const void* const* operands, void* result, int64_t count);

struct Kernel {
  BlockKernel run = nullptr;
  DataType resultDtype = DataType::Null;  //!< Float, Double, Int or Bool
};

template <class R>
constexpr DataType storageDtype() {
  if constexpr (std::is_same_v<R, float>) return DataType::Float;
  if constexpr (std::is_same_v<R, double>) return DataType::Double;
  if constexpr (std::is_same_v<R, int64_t>) return DataType::Int;
  if constexpr (std::is_same_v<R, uint8_t>) return DataType::Bool;
}

//! The value as a floating-point number, for math functions on integers.
template <class T>
auto toFloating(T x) {
  if constexpr (kIsFloating<T>) {
    return x;
  } else {
    return static_cast<double>(x);
  }
}

template <class C, class Fn>
Kernel unaryKernel(Fn) {
  using R = std::invoke_result_t<Fn, C>;
  BlockKernel run = [](const void* const* in, void* out, int64_t count) {
    const C* x = static_cast<const C*>(in[0]);
    R* y = static_cast<R*>(out);
    Fn fn;
    for (int64_t i = 0; i < count; ++i) y[i] = fn(x[i]);
  };
  return {run, storageDtype<R>()};
}

template <class C, class Fn>
Kernel binaryKernel(Fn) {
  using R = std::invoke_result_t<Fn, C, C>;
  BlockKernel run = [](const void* const* in, void* out, int64_t count) {
    const C* a = static_cast<const C*>(in[0]);
    const C* b = static_cast<const C*>(in[1]);
    R* y = static_cast<R*>(out);
    Fn fn;
    for (int64_t i = 0; i < count; ++i) y[i] = fn(a[i], b[i]);
  };
  return {run, storageDtype<R>()};
}

template <class C>
Kernel unaryKernelFor(UnaryOpType op) {
  using U = UnaryOpType;
  using B = uint8_t;  // predicate results
  switch (op) {
    case U::Abs:
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return std::abs(x);
        else return x < 0 ? wrappingNeg(x) : x;
      });
    case U::Neg: return unaryKernel<C>([](C x) { return wrappingNeg(x); });
    case U::Exp: return unaryKernel<C>([](C x) { return std::exp(toFloating(x)); });
    case U::Exp2: return unaryKernel<C>([](C x) { return std::exp2(toFloating(x)); });
    case U::Expm1: return unaryKernel<C>([](C x) { return std::expm1(toFloating(x)); });
    case U::Log: return unaryKernel<C>([](C x) { return std::log(toFloating(x)); });
    case U::Log1p: return unaryKernel<C>([](C x) { return std::log1p(toFloating(x)); });
    case U::Log2: return unaryKernel<C>([](C x) { return std::log2(toFloating(x)); });
    case U::Log10: return unaryKernel<C>([](C x) { return std::log10(toFloating(x)); });
    case U::Sqrt: return unaryKernel<C>([](C x) { return std::sqrt(toFloating(x)); });
    case U::Rsqrt:
      return unaryKernel<C>([](C x) {
        const auto f = toFloating(x);
        return decltype(f)(1) / std::sqrt(f);
      });
    case U::Reciprocal:
      return unaryKernel<C>([](C x) {
        const auto f = toFloating(x);
        return decltype(f)(1) / f;
      });
    case U::Sin: return unaryKernel<C>([](C x) { return std::sin(toFloating(x)); });
    case U::Cos: return unaryKernel<C>([](C x) { return std::cos(toFloating(x)); });
    case U::Tan: return unaryKernel<C>([](C x) { return std::tan(toFloating(x)); });
    case U::Asin: return unaryKernel<C>([](C x) { return std::asin(toFloating(x)); });
    case U::Acos: return unaryKernel<C>([](C x) { return std::acos(toFloating(x)); });
    case U::Atan: return unaryKernel<C>([](C x) { return std::atan(toFloating(x)); });
    case U::Sinh: return unaryKernel<C>([](C x) { return std::sinh(toFloating(x)); });
    case U::Cosh: return unaryKernel<C>([](C x) { return std::cosh(toFloating(x)); });
    case U::Tanh: return unaryKernel<C>([](C x) { return std::tanh(toFloating(x)); });
    case U::Asinh: return unaryKernel<C>([](C x) { return std::asinh(toFloating(x)); });
    case U::Acosh: return unaryKernel<C>([](C x) { return std::acosh(toFloating(x)); });
    case U::Atanh: return unaryKernel<C>([](C x) { return std::atanh(toFloating(x)); });
    case U::Sigmoid: return unaryKernel<C>([](C x) { return sigmoidOf(toFloating(x)); });
    case U::Silu:
      return unaryKernel<C>([](C x) {
        const auto f = toFloating(x);
        return f / (decltype(f)(1) + std::exp(-f));
      });
    case U::Relu: return unaryKernel<C>([](C x) { return reluOf(x); });
    case U::Erf: return unaryKernel<C>([](C x) { return std::erf(toFloating(x)); });
    case U::Erfc: return unaryKernel<C>([](C x) { return std::erfc(toFloating(x)); });
    case U::Erfinv:
      return unaryKernel<C>([](C x) {
        using F = decltype(toFloating(x));
        return static_cast<F>(erfinvOf(static_cast<double>(x)));
      });
    case U::Lgamma: return unaryKernel<C>([](C x) { return std::lgamma(toFloating(x)); });
    case U::Floor:
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return std::floor(x);
        else return x;
      });
    case U::Ceil:
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return std::ceil(x);
        else return x;
      });
    case U::Round:  // half to even, as torch.round
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return std::nearbyint(x);
        else return x;
      });
    case U::Trunc:
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return std::trunc(x);
        else return x;
      });
    case U::Frac:
      return unaryKernel<C>([](C x) -> C {
        if constexpr (kIsFloating<C>) return x - std::trunc(x);
        else return 0;
      });
    case U::Sign: return unaryKernel<C>([](C x) { return signOf(x); });
    case U::Signbit:  // the sign bit itself: true for -0.0 and -nan
      return unaryKernel<C>([](C x) -> B {
        if constexpr (kIsFloating<C>) return std::signbit(x);
        else return x < 0;
      });
    case U::IsNan: return unaryKernel<C>([](C x) -> B { return isNanValue(x); });
    case U::IsInf:
      return unaryKernel<C>([](C x) -> B {
        if constexpr (kIsFloating<C>) return std::isinf(x);
        else return 0;
      });
    case U::IsFinite:
      return unaryKernel<C>([](C x) -> B {
        if constexpr (kIsFloating<C>) return std::isfinite(x);
        else return 1;
      });
    case U::IsPosInf:
      return unaryKernel<C>([](C x) -> B {
        if constexpr (kIsFloating<C>) return std::isinf(x) && x > 0;
        else return 0;
      });
    case U::IsNegInf:
      return unaryKernel<C>([](C x) -> B {
        if constexpr (kIsFloating<C>) return std::isinf(x) && x < 0;
        else return 0;
      });
    case U::LogicalNot: return unaryKernel<C>([](C x) -> B { return x == 0; });
    case U::BitwiseNot:
      if constexpr (kIsFloating<C>) {
        return {};
      } else {
        return unaryKernel<C>([](C x) -> C { return ~x; });
      }
  }
  return {};
}

//! Bitwise ops and shifts, on integers.
template <class C>
Kernel integerBinaryKernelFor(BinaryOpType op) {
  using Op = BinaryOpType;
  switch (op) {
    case Op::BitwiseAnd: return binaryKernel<C>([](C a, C b) { return a & b; });
    case Op::BitwiseOr: return binaryKernel<C>([](C a, C b) { return a | b; });
    case Op::BitwiseXor: return binaryKernel<C>([](C a, C b) { return a ^ b; });
    case Op::LeftShift: return binaryKernel<C>([](C a, C b) { return leftShift(a, b); });
    case Op::RightShift: return binaryKernel<C>([](C a, C b) { return rightShift(a, b); });
    default: return {};
  }
}

template <class C>
Kernel binaryKernelFor(BinaryOpType op) {
  using Op = BinaryOpType;
  using B = uint8_t;
  switch (op) {
    case Op::Add: return binaryKernel<C>([](C a, C b) { return wrappingAdd(a, b); });
    case Op::Sub: return binaryKernel<C>([](C a, C b) { return wrappingSub(a, b); });
    case Op::Mul: return binaryKernel<C>([](C a, C b) { return wrappingMul(a, b); });
    case Op::Div: return binaryKernel<C>([](C a, C b) { return divide(a, b); });
    case Op::Pow: return binaryKernel<C>([](C a, C b) { return power(a, b); });
    case Op::Fmod: return binaryKernel<C>([](C a, C b) { return fmodOf(a, b); });
    case Op::Remainder: return binaryKernel<C>([](C a, C b) { return remainderOf(a, b); });
    case Op::Minimum: return binaryKernel<C>([](C a, C b) { return minimumOf(a, b); });
    case Op::Maximum: return binaryKernel<C>([](C a, C b) { return maximumOf(a, b); });
    case Op::Atan2:
      return binaryKernel<C>([](C a, C b) { return std::atan2(toFloating(a), toFloating(b)); });
    case Op::Eq: return binaryKernel<C>([](C a, C b) -> B { return a == b; });
    case Op::Ne: return binaryKernel<C>([](C a, C b) -> B { return a != b; });
    case Op::Lt: return binaryKernel<C>([](C a, C b) -> B { return a < b; });
    case Op::Le: return binaryKernel<C>([](C a, C b) -> B { return a <= b; });
    case Op::Gt: return binaryKernel<C>([](C a, C b) -> B { return a > b; });
    case Op::Ge: return binaryKernel<C>([](C a, C b) -> B { return a >= b; });
    case Op::LogicalAnd: return binaryKernel<C>([](C a, C b) -> B { return a != 0 && b != 0; });
    case Op::LogicalOr: return binaryKernel<C>([](C a, C b) -> B { return a != 0 || b != 0; });
    case Op::BitwiseAnd:
    case Op::BitwiseOr:
    case Op::BitwiseXor:
    case Op::LeftShift:
    case Op::RightShift:
      if constexpr (kIsFloating<C>) {
        return {};  // integers only; the builders refuse floats
      } else {
        return integerBinaryKernelFor<C>(op);
      }
    case Op::CeilDiv: return binaryKernel<C>([](C a, C b) { return ceilDivide(a, b); });
    case Op::Gcd:
      if constexpr (kIsFloating<C>) {
        return {};  // integers only; the builder refuses floats
      } else {
        return binaryKernel<C>([](C a, C b) {
          return static_cast<C>(
              ir::gcdOfMagnitudes(static_cast<int64_t>(a), static_cast<int64_t>(b)));
        });
      }
    case Op::Nextafter:
      if constexpr (kIsFloating<C>) {
        return binaryKernel<C>([](C a, C b) { return std::nextafter(a, b); });
      } else {
        return {};  // Float or Double only; the builder refuses the others
      }
  }
  return {};
}

template <class C>
Kernel ternaryKernelFor(TernaryOpType op) {
  switch (op) {
    case TernaryOpType::Where: {
      BlockKernel run = [](const void* const* in, void* out, int64_t count) {
        const uint8_t* condition = static_cast<const uint8_t*>(in[0]);
        const C* a = static_cast<const C*>(in[1]);
        const C* b = static_cast<const C*>(in[2]);
        C* y = static_cast<C*>(out);
        for (int64_t i = 0; i < count; ++i) y[i] = condition[i] ? a[i] : b[i];
      };
      return {run, storageDtype<C>()};
    }
    case TernaryOpType::Lerp:
    case TernaryOpType::Clamp: {
      BlockKernel run;
      if (op == TernaryOpType::Lerp) {
        run = [](const void* const* in, void* out, int64_t count) {
          const C* start = static_cast<const C*>(in[0]);
          const C* end = static_cast<const C*>(in[1]);
          const C* weight = static_cast<const C*>(in[2]);
          C* y = static_cast<C*>(out);
          for (int64_t i = 0; i < count; ++i) {
            y[i] = lerpOf(start[i], end[i], weight[i]);
          }
        };
      } else {
        run = [](const void* const* in, void* out, int64_t count) {
          const C* x = static_cast<const C*>(in[0]);
          const C* low = static_cast<const C*>(in[1]);
          const C* high = static_cast<const C*>(in[2]);
          C* y = static_cast<C*>(out);
          for (int64_t i = 0; i < count; ++i) y[i] = clampOf(x[i], low[i], high[i]);
        };
      }
      return {run, storageDtype<C>()};
    }
    case TernaryOpType::Addcmul: {
      BlockKernel run = [](const void* const* in, void* out, int64_t count) {
        const C* a = static_cast<const C*>(in[0]);
        const C* b = static_cast<const C*>(in[1]);
        const C* c = static_cast<const C*>(in[2]);
        const C* value = static_cast<const C*>(in[3]);
        C* y = static_cast<C*>(out);
        for (int64_t i = 0; i < count; ++i) {
          y[i] = wrappingAdd(a[i], wrappingMul(wrappingMul(value[i], b[i]), c[i]));
        }
      };
      return {run, storageDtype<C>()};
    }
  }
  return {};
}

bool dividesIntegers(const ir::Expr& expr) {
  if (expr.type() != ir::ExprType::Binary) return false;
  switch (expr.attrs().binaryOp) {
    case BinaryOpType::Div:
    case BinaryOpType::Fmod:
    case BinaryOpType::Remainder:
    case BinaryOpType::CeilDiv: return true;
    default: return false;
  }
}

//! The dtype the op computes in, from its operands and output with
//! PyTorch's wrapped-number rule for scalar operands, and for 0-dim tensor
//! operands beside a ranked one (as ops::promoteElementwise).
DataType computeDtypeOf(const ir::Expr& expr) {
  std::vector<DataType> tensors;
  std::vector<DataType> scalars;
  const bool predicate =
      (expr.type() == ir::ExprType::Binary && ir::isPredicate(expr.attrs().binaryOp)) ||
      (expr.type() == ir::ExprType::Unary && ir::isPredicate(expr.attrs().unaryOp));
  const bool where =
      expr.type() == ir::ExprType::Ternary && expr.attrs().ternaryOp == TernaryOpType::Where;
  const bool ranked =
      std::any_of(expr.inputs().begin(), expr.inputs().end(), [](const ir::Val* in) {
        const auto* tv = in->as<ir::TensorView>();
        return tv != nullptr && tv->rank() > 0;
      });
  for (size_t i = where ? 1 : 0; i < expr.inputs().size(); ++i) {
    const ir::Val* in = expr.input(i);
    const auto* tv = in->as<ir::TensorView>();
    const bool asTensor = tv != nullptr && (!ranked || tv->rank() > 0);
    (asTensor ? tensors : scalars).push_back(in->dtype());
  }
  if (!predicate) tensors.push_back(expr.output(0)->dtype());
  return computeDtype(ir::promoteOperands(tensors, scalars));
}

Kernel kernelFor(const ir::Expr& expr, DataType compute) {
  return dispatchComputeType(compute, [&]<class C>(TypeTag<C>) -> Kernel {
    switch (expr.type()) {
      case ir::ExprType::Unary: {
        UnaryOpType op = expr.attrs().unaryOp;
        // bitwise_not of Bool is logical negation, as in PyTorch.
        if (op == UnaryOpType::BitwiseNot && expr.input(0)->dtype() == DataType::Bool) {
          op = UnaryOpType::LogicalNot;
        }
        return unaryKernelFor<C>(op);
      }
      case ir::ExprType::Binary: return binaryKernelFor<C>(expr.attrs().binaryOp);
      case ir::ExprType::Ternary: return ternaryKernelFor<C>(expr.attrs().ternaryOp);
      default: return {};
    }
  });
}

//! One operand of the block loop: where its elements are and how to read a
//! block of them in the load type.
struct Operand {
  Tensor tensor;        // keeps the data alive
  StridedLoop loop;     // over the output's shape
  bool direct = false;  // contiguous and already in the load type
  int64_t loadBytes = 0;
  void (*gather)(const void* base, const StridedLoop& loop, int64_t begin, int64_t count,
                 void* dst) = nullptr;
};

//! `tensor` read over `shape`: stride 0 on the axes it broadcasts along (all
//! of them for a 0-dim scalar).
Tensor broadcastView(const Tensor& tensor, const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 0);
  for (size_t d = 0; d < shape.size() && tensor.dim() > 0; ++d) {
    strides[d] = tensor.sizes()[d] == shape[d] ? tensor.strides()[d] : 0;
  }
  return tensor.asStrided(shape, std::move(strides), tensor.storageOffset());
}

Operand makeOperand(const Tensor& tensor, const std::vector<int64_t>& shape, DataType load) {
  Operand operand;
  operand.tensor = broadcastView(tensor, shape);
  operand.loop = collapseLoop(operand.tensor);
  operand.direct = tensor.dtype() == load && operand.loop.isContiguous();
  operand.loadBytes = ir::sizeInBytes(load);
  dispatchElementType(load, [&]<class L>(TypeTag<L>) {
    dispatchElementType(tensor.dtype(), [&]<class S>(TypeTag<S>) {
      operand.gather = [](const void* base, const StridedLoop& loop, int64_t begin, int64_t count,
                          void* dst) {
        gatherRange(static_cast<const S*>(base), loop, begin, count, static_cast<L*>(dst));
      };
    });
  });
  return operand;
}

//! The output shape: every tensor operand has the output's rank, but a 0-dim
//! one, which combines with any rank as a scalar does (broadcastView reads it
//! with stride 0 everywhere); an axis of size 1 broadcasts against the
//! others, which must agree.
std::vector<int64_t> broadcastShape(const ir::Expr& expr, const std::vector<Tensor>& operands,
                                    int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < operands.size(); ++i) {
    const Tensor& t = operands[i];
    if (!expr.input(i)->isA<ir::TensorView>() || t.dim() == 0) continue;
    FL_ASSERT(t.dim() == rank, expr.toString(), ": operand ", i, " has ", t.dim(),
              " dims, the output ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t size = t.sizes()[d];
      if (size == 1 || size == shape[d]) continue;
      FL_CHECK(shape[d] == 1, expr.opName(), ": operand sizes ", shape[d], " and ", size,
               " do not match on axis ", d, " (", expr.toString(), ")");
      shape[d] = size;
    }
  }
  return shape;
}

}  // namespace

void evaluateElementwise(const ir::Expr& expr, ReferenceContext& context) {
  const ir::Val* out = expr.output(0);
  const auto* outTv = out->as<ir::TensorView>();
  FL_ASSERT(outTv != nullptr, "a scalar ", expr.toString(), " reached the tensor path");

  std::vector<Tensor> operands;
  for (const ir::Val* in : expr.inputs()) {
    if (in->isA<ir::TensorView>()) {
      operands.push_back(context.tensor(in));
    } else {
      operands.push_back(scalarTensor(context.scalar(in, expr.opName()), in->dtype()));
    }
  }
  const std::vector<int64_t> shape = broadcastShape(expr, operands, outTv->rank());
  Tensor result = Tensor::empty(out->dtype(), shape);

  if (expr.type() == ir::ExprType::Cast) {
    convertInto(broadcastView(operands[0], shape), result);
    context.setTensor(out, std::move(result));
    return;
  }

  const DataType compute = computeDtypeOf(expr);
  const Kernel kernel = kernelFor(expr, compute);
  FL_ASSERT(kernel.run != nullptr, "the reference has no ", ir::toString(compute), " kernel for ",
            expr.toString());
  FL_ASSERT(operands.size() <= kMaxOperands, expr.toString());

  const bool where =
      expr.type() == ir::ExprType::Ternary && expr.attrs().ternaryOp == TernaryOpType::Where;
  std::vector<Operand> loaded;
  for (size_t i = 0; i < operands.size(); ++i) {
    const DataType load = where && i == 0 ? DataType::Bool : compute;
    loaded.push_back(makeOperand(operands[i], shape, load));
  }
  const bool checkDivisor = compute == DataType::Int && dividesIntegers(expr);

  // The kernel writes straight into the output when the types agree.
  const bool directStore = kernel.resultDtype == out->dtype();
  void (*store)(const void*, void*, int64_t) = nullptr;
  dispatchElementType(out->dtype(), [&]<class D>(TypeTag<D>) {
    dispatchElementType(kernel.resultDtype, [&]<class R>(TypeTag<R>) {
      store = [](const void* src, void* dst, int64_t count) {
        convertRun(static_cast<const R*>(src), 1, static_cast<D*>(dst), 1, count);
      };
    });
  });

  auto* outBytes = static_cast<std::byte*>(result.data());
  const int64_t outElementBytes = ir::sizeInBytes(out->dtype());
  const int64_t numel = result.numel();
  // Blocks are independent (each output element from its operands alone),
  // so ranges of them run on threads (reference_parallel.h): the same bits,
  // and the first division by zero is the one one thread would report.
  auto runBlocks = [&](int64_t firstBlock, int64_t lastBlock) {
    std::array<std::vector<int64_t>, kMaxOperands + 1> scratch;  // 8-byte aligned
    for (auto& buffer : scratch) buffer.resize(kBlockElements);
    std::array<const void*, kMaxOperands> blocks{};
    for (int64_t block = firstBlock; block < lastBlock; ++block) {
      const int64_t begin = block * kBlockElements;
      const int64_t count = std::min(kBlockElements, numel - begin);
      for (size_t i = 0; i < loaded.size(); ++i) {
        const Operand& operand = loaded[i];
        const auto* base = static_cast<const std::byte*>(operand.tensor.data());
        if (operand.direct) {
          blocks[i] = base + begin * operand.loadBytes;
        } else {
          operand.gather(base, operand.loop, begin, count, scratch[i].data());
          blocks[i] = scratch[i].data();
        }
      }
      if (checkDivisor) {
        const auto* divisor = static_cast<const int64_t*>(blocks[1]);
        for (int64_t i = 0; i < count; ++i) {
          FL_CHECK(divisor[i] != 0, expr.opName(), ": integer division by zero at output element ",
                   begin + i, " (", expr.toString(), ")");
        }
      }
      std::byte* destination = outBytes + begin * outElementBytes;
      if (directStore) {
        kernel.run(blocks.data(), destination, count);
      } else {
        kernel.run(blocks.data(), scratch[kMaxOperands].data(), count);
        store(scratch[kMaxOperands].data(), destination, count);
      }
    }
  };
  parallelRanges((numel + kBlockElements - 1) / kBlockElements, kMinBlocksPerThread, runBlocks);
  context.setTensor(out, std::move(result));
}

}  // namespace fuserlab::runtime::reference
