#include "core/runtime/device_views.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ir/iter_domain.h"
#include "core/scheduler/expr_eval/view_strides.h"
#include "core/tensor/slice_view.h"

namespace fuserlab::runtime {
namespace {

using ir::ExprType;

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

std::vector<int64_t> extentsOf(const ir::TensorView& tv, const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> sizes;
  for (const ir::IterDomain* id : tv.logicalNoReductions()) {
    sizes.push_back(evaluator.evaluateExtent(id));
  }
  return sizes;
}

// Logical axis positions (without reductions) in allocation order, outermost
// first, for a tensor without allocation or with a permutation; empty
// otherwise. `contiguityIndex`, when given, receives each one's position in
// the allocation domain (where its contiguity flag is).
std::vector<size_t> allocationOrder(const ir::TensorView& tv,
                                    std::vector<size_t>* contiguityIndex = nullptr) {
  const auto& logical = tv.logicalNoReductions();
  const auto& allocation = tv.maybeAllocation();
  std::vector<size_t> order;
  for (size_t k = 0; k < allocation.size(); ++k) {
    if (allocation[k]->isReduction()) continue;
    auto it = std::find(logical.begin(), logical.end(), allocation[k]);
    if (it == logical.end()) return {};
    order.push_back(static_cast<size_t>(it - logical.begin()));
    if (contiguityIndex) contiguityIndex->push_back(k);
  }
  if (order.size() != logical.size()) return {};
  return order;
}

Tensor slice(const ir::Expr& expr, const Tensor& x, const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> sizes = x.sizes();
  std::vector<int64_t> strides = x.strides();
  int64_t offset = x.storageOffset();
  for (int64_t d = 0; d < x.dim(); ++d) {
    auto value = [&](size_t k, const char* what) {
      const auto* s = expr.input(1 + 3 * d + k)->as<ir::Scalar>();
      FL_ASSERT(s != nullptr, expr.toString(), ": slice ", what, " ", d, " is not a scalar");
      return evaluator.evaluateInt(s, std::string("slice axis ") + std::to_string(d) + " " + what);
    };
    const int64_t start = value(0, "start");
    const int64_t stop = value(1, "stop");
    const int64_t step = value(2, "step");
    sliceViewAxis(sizes, strides, offset, d, start, stop, step, expr.toString());
  }
  return x.asStrided(sizes, strides, offset);
}

}  // namespace

bool isViewOp(ExprType type) {
  switch (type) {
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Reshape:
    case ExprType::Permute:
    case ExprType::Squeeze:
    case ExprType::Slice:
    case ExprType::Set:
    case ExprType::SegmentSet: return true;
    default: return false;
  }
}

Tensor viewOf(const ir::Expr& expr, const Tensor& x, const ir::ExpressionEvaluator& evaluator) {
  const auto* out = expr.output(0)->as<ir::TensorView>();
  FL_ASSERT(out != nullptr, expr.toString(), ": a view op without a tensor output");
  const ir::ExprAttrs& attrs = expr.attrs();
  const std::vector<int64_t> outSizes = extentsOf(*out, evaluator);
  const size_t rank = outSizes.size();
  std::vector<int64_t> strides;
  switch (expr.type()) {
    case ExprType::Broadcast: {
      size_t next = 0;
      for (size_t i = 0; i < rank; ++i) {
        const bool added = i < attrs.broadcastFlags.size() && attrs.broadcastFlags[i];
        if (added) {
          strides.push_back(0);
        } else {
          FL_ASSERT(next < x.strides().size(), expr.toString(), ": too few input axes");
          strides.push_back(x.strides()[next++]);
        }
      }
      break;
    }
    case ExprType::Expand:
      FL_ASSERT(static_cast<int64_t>(rank) == x.dim(), expr.toString(),
                ": expand changes the rank");
      for (size_t i = 0; i < rank; ++i) {
        if (x.sizes()[i] == outSizes[i]) {
          strides.push_back(x.strides()[i]);
          continue;
        }
        FL_CHECK(x.sizes()[i] == 1, "expand: axis ", i, " of size ", x.sizes()[i],
                 " cannot be expanded to ", outSizes[i], " (", expr.toString(), ")");
        strides.push_back(0);
      }
      break;
    case ExprType::Permute:
      for (size_t i = 0; i < rank; ++i) {
        int64_t axis = attrs.axes.at(i);
        if (axis < 0) axis += x.dim();
        strides.push_back(x.strides().at(static_cast<size_t>(axis)));
      }
      break;
    case ExprType::Squeeze: {
      std::vector<bool> removed(static_cast<size_t>(x.dim()), false);
      for (int64_t axis : attrs.axes) {
        const int64_t a = axis < 0 ? axis + x.dim() : axis;
        FL_ASSERT(a >= 0 && a < x.dim(), expr.toString(), ": bad axis ", axis);
        const bool expanded = expr.input(0)
                                  ->as<ir::TensorView>()
                                  ->logicalNoReductions()
                                  .at(static_cast<size_t>(a))
                                  ->hasExpandedExtent();
        FL_CHECK(expanded || x.sizes()[a] == 1, "squeeze: axis ", a, " of ", expr.input(0)->name(),
                 " has size ", x.sizes()[a], ", expected 1 (", expr.toString(), ")");
        removed[a] = true;
      }
      for (int64_t d = 0; d < x.dim(); ++d) {
        if (!removed[d]) strides.push_back(x.strides()[d]);
      }
      break;
    }
    case ExprType::Slice: return slice(expr, x, evaluator);
    case ExprType::Set:
    case ExprType::SegmentSet: return x;
    case ExprType::Reshape: {
      auto viewStrides = scheduler::reshapeViewStrides(x.sizes(), x.strides(), outSizes);
      FL_CHECK(viewStrides.has_value(), expr.toString(), ": copy needed: the input has sizes ",
               listString(x.sizes()), " and strides ", listString(x.strides()),
               ", whose axes the reshape regroups are not contiguous with each "
               "other, so the result cannot view its memory; a copy needs a "
               "kernel, which this kernel-free segment does not have");
      strides = std::move(*viewStrides);
      break;
    }
    default: FL_ASSERT(false, expr.toString(), " is not a view op");
  }
  FL_ASSERT(strides.size() == rank, expr.toString(), ": ", strides.size(), " strides for rank ",
            rank);
  return x.asStrided(outSizes, strides, x.storageOffset());
}

std::vector<int64_t> allocationStrides(const ir::TensorView& tv,
                                       const std::vector<int64_t>& sizes) {
  const std::vector<size_t> order = allocationOrder(tv);
  FL_CHECK(order.size() == sizes.size(), tv.name(),
           " has an allocation domain that splits or merges axes; the cuda "
           "backend lays tensors out by strides of their logical axes, which "
           "cannot express it (copy needed); run it with --backend cpu");
  // Broadcast axes, expanded or not, take no memory: stride 0, as nvFuser
  // allocates them (kernels write one element per broadcast row).
  const auto& logical = tv.logicalNoReductions();
  std::vector<int64_t> strides(sizes.size(), 0);
  int64_t running = 1;
  for (size_t k = order.size(); k-- > 0;) {
    if (logical[order[k]]->isBroadcast()) continue;
    strides[order[k]] = running;
    running *= std::max<int64_t>(sizes[order[k]], 1);
  }
  return strides;
}

std::optional<std::string> layoutMismatch(const ir::TensorView& tv, const Tensor& tensor) {
  if (!tv.domain().hasAllocation()) return std::nullopt;
  std::vector<size_t> flagIndex;
  const std::vector<size_t> order = allocationOrder(tv, &flagIndex);
  if (order.size() != static_cast<size_t>(tensor.dim())) {
    return tv.name() +
           " has an allocation domain that splits or merges axes, "
           "which a view cannot have";
  }
  const auto& contiguity = tv.contiguity();
  int64_t lastStride = 0;
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > 0;) {  // innermost first
    const size_t axis = order[k];
    const int64_t size = tensor.sizes()[axis];
    const int64_t stride = tensor.strides()[axis];
    if (size == 1 || stride == 0) continue;
    const bool contiguous =
        flagIndex[k] < contiguity.size() && contiguity[flagIndex[k]].value_or(false);
    if (stride < lastStride || (contiguous && stride != expected)) {
      return tv.name() + " is declared with an allocation order" +
             (contiguous ? " (contiguous)" : "") + " that a view with sizes " +
             listString(tensor.sizes()) + " and strides " + listString(tensor.strides()) +
             " does not have";
    }
    lastStride = stride;
    expected = stride * size;
  }
  return std::nullopt;
}

std::optional<std::string> strideZeroOnContiguousAxis(const ir::TensorView& tv,
                                                      const Tensor& tensor) {
  std::vector<size_t> flagIndex;
  const std::vector<size_t> order = allocationOrder(tv, &flagIndex);
  if (order.size() != static_cast<size_t>(tensor.dim())) return std::nullopt;
  const auto& contiguity = tv.contiguity();
  const auto& logical = tv.logicalNoReductions();
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t axis = order[k];
    if (tensor.sizes()[axis] <= 1 || tensor.strides()[axis] != 0) continue;
    if (logical[axis]->isBroadcast()) continue;
    if (flagIndex[k] < contiguity.size() && contiguity[flagIndex[k]].value_or(false)) {
      return tv.name() + " is declared contiguous along axis " + std::to_string(axis) +
             ", but as a view it has sizes " + listString(tensor.sizes()) + " and strides " +
             listString(tensor.strides()) + " (stride 0 there)";
    }
  }
  return std::nullopt;
}

bool isDenseInAllocationOrder(const ir::TensorView& tv, const Tensor& tensor) {
  const std::vector<size_t> order = allocationOrder(tv);
  if (order.size() != static_cast<size_t>(tensor.dim())) return false;
  const auto& logical = tv.logicalNoReductions();
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > 0;) {
    const size_t axis = order[k];
    const int64_t size = tensor.sizes()[axis];
    if (size == 1) continue;
    if (logical[axis]->isBroadcast() && tensor.strides()[axis] == 0) continue;
    if (size == 0) return true;
    if (tensor.strides()[axis] != expected) return false;
    expected *= size;
  }
  return true;
}

}  // namespace fuserlab::runtime
