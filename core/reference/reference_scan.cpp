// Scan (cumsum, cumprod, cummin, cummax) of the reference executor. Each line
// along the scanned axis is walked in order in the input's compute dtype
// (Float for Half, BFloat16 and Float; Double; Int for Bool, Int32 and Int),
// and every prefix is rounded to the output dtype once, as torch's cumsum
// accumulates a Half line in Float. Integers wrap (two's complement), so an
// Int32 result is the 32-bit wrap of the Int one. cummin and cummax keep a
// NaN once they meet it, as torch.cummin/cummax do.
#include <limits>

#include "core/ir/error.h"
#include "core/reference/reference_internal.h"
#include "core/reference/reference_loops.h"
#include "core/reference/reference_math.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::BinaryOpType;

// The value a scan starts from when no init is given: the op's identity.
template <class T>
T identityOf(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::Mul: return T(1);
    case BinaryOpType::Minimum:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    case BinaryOpType::Maximum:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    default: return T(0);
  }
}

template <class T>
T combine(BinaryOpType op, T acc, T x) {
  switch (op) {
    case BinaryOpType::Add: return wrappingAdd(acc, x);
    case BinaryOpType::Mul: return wrappingMul(acc, x);
    case BinaryOpType::Minimum: return minimumOf(acc, x);
    case BinaryOpType::Maximum: return maximumOf(acc, x);
    default: break;
  }
  FL_ASSERT(false, "scan of ", ir::toString(op), " is not supported");
  return acc;
}

}  // namespace

void evaluateScan(const ir::Expr& expr, ReferenceContext& context) {
  FL_ASSERT(expr.type() == ir::ExprType::Scan, "not a scan: ", expr.toString());
  const Tensor& x = context.tensor(expr.input(0));
  const ir::DataType compute = computeDtype(x.dtype());
  const BinaryOpType op = expr.attrs().binaryOp;
  const Tensor values = asContiguous(x, compute);
  Tensor scanned = Tensor::empty(compute, x.sizes());
  // The lines along the axis of a contiguous tensor: outer * inner lines of
  // `length` elements spaced by `inner` (a 0-dim tensor is one line of one).
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
  if (x.dim() != 0) {
    const auto axis = static_cast<size_t>(expr.attrs().dim);
    for (size_t d = 0; d < axis; ++d) outer *= x.sizes()[d];
    length = x.sizes()[axis];
    for (size_t d = axis + 1; d < x.sizes().size(); ++d) inner *= x.sizes()[d];
  }
  const bool hasInit = expr.inputs().size() > 1;
  const Tensor init =
      hasInit ? scalarTensor(context.scalar(expr.input(1), "the scan's init"), compute) : Tensor();
  dispatchComputeType(compute, [&]<class T>(TypeTag<T>) {
    const T start = hasInit ? init.dataAs<T>()[0] : identityOf<T>(op);
    const T* in = values.dataAs<T>();
    T* out = scanned.dataAs<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t first = o * length * inner + i;
        T acc = start;
        for (int64_t j = 0; j < length; ++j) {
          acc = combine(op, acc, in[first + j * inner]);
          out[first + j * inner] = acc;
        }
      }
    }
  });
  context.setTensor(expr.output(0), convertContiguous(scanned, expr.output(0)->dtype()));
}

}  // namespace fuserlab::runtime::reference
