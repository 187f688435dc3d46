#include "core/scheduler/expr_eval/expr_eval_scheduler.h"

#include <algorithm>
#include <unordered_map>
#include <variant>

#include "core/ir/error.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/expr_eval/view_strides.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/sort_segment.h"

namespace fuserlab::scheduler {
namespace {

using ir::ExprType;
using ir::TensorView;

constexpr const char* kWhatExprEvalTakes =
    "expr_eval only takes views (broadcast, expand, reshape, permute, "
    "squeeze, slice, and set or segment_set that keep the layout)";

bool producesTensor(const ir::Expr* expr) {
  for (const ir::Val* out : expr->outputs()) {
    if (out->isA<TensorView>()) return true;
  }
  return false;
}

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

bool isLibraryCall(ExprType type) {
  return type == ExprType::Matmul || type == ExprType::Linear || type == ExprType::Sdpa;
}

// The exprs producing tensors, in topological order; scalar arithmetic is
// evaluated on the host and needs no kernel.
std::vector<const ir::Expr*> tensorExprs(const ir::Fusion& segment) {
  std::vector<const ir::Expr*> out;
  for (const ir::Expr* expr : liveExprs(segment)) {
    if (producesTensor(expr)) out.push_back(expr);
  }
  return out;
}

// The segment's one op without a GPU kernel (cpu_reference_ops.h), when it
// is the segment's only tensor expr.
const ir::Expr* soleCpuReferenceOp(const std::vector<const ir::Expr*>& exprs) {
  if (exprs.size() != 1 || !isCpuReferenceOnly(exprs[0]->type())) return nullptr;
  return exprs[0];
}

// The segment's argsort or topk, when it is the segment's only tensor expr:
// expr_eval takes it (for the CPU reference) where a line is too long for
// the sort kernel (sort_segment.h).
const ir::Expr* soleSort(const std::vector<const ir::Expr*>& exprs) {
  if (exprs.size() != 1 || !isSortOp(exprs[0]->type())) return nullptr;
  return exprs[0];
}

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

// Sizes and strides (in elements) of a tensor as a view.
struct Layout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

std::vector<int64_t> evaluatedSizes(const TensorView* tv,
                                    const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> sizes;
  for (const ir::IterDomain* id : tv->logicalNoReductions()) {
    sizes.push_back(evaluator.evaluateExtent(id));
  }
  return sizes;
}

// Strides of a dense tensor laid out as its allocation domain says (the
// stride order if any, else row-major): for an input the caller did not
// describe.
std::vector<int64_t> denseStrides(const TensorView* tv, const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> order = tv->strideOrder();
  if (order.size() != sizes.size()) return contiguousStrides(sizes);
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t rank = 0; rank < order.size(); ++rank) {  // innermost first
    for (size_t axis = 0; axis < order.size(); ++axis) {
      if (order[axis] != static_cast<int64_t>(rank)) continue;
      strides[axis] = running;
      running *= std::max<int64_t>(sizes[axis], 1);
    }
  }
  return strides;
}

// Why `layout` is not the layout `tv`'s (permuted) allocation domain
// declares: the stride order, and the stride of each axis marked
// contiguous. Size-1 and stride-0 (expanded) axes take any stride.
std::optional<std::string> allocationMismatch(const TensorView* tv, const Layout& layout) {
  const std::vector<int64_t> order = tv->strideOrder();
  if (order.empty() || order.size() != layout.sizes.size()) return std::nullopt;
  const auto& contiguity = tv->contiguity();
  const size_t rank = order.size();
  int64_t lastStride = 0;
  int64_t expected = 1;
  for (size_t position = 0; position < rank; ++position) {  // innermost first
    size_t axis = 0;
    while (order[axis] != static_cast<int64_t>(position)) ++axis;
    const int64_t size = layout.sizes[axis];
    const int64_t stride = layout.strides[axis];
    if (size == 1 || stride == 0) continue;
    // contiguity is in allocation order: outermost first.
    const size_t allocationIndex = rank - 1 - position;
    const bool contiguous =
        contiguity.size() == rank && contiguity[allocationIndex].value_or(false);
    if (stride < lastStride || (contiguous && stride != expected)) {
      return tv->name() + " is declared with stride order " + listString(order) +
             (contiguous ? " (contiguous)" : "") + ", but as a view it would have sizes " +
             listString(layout.sizes) + " and strides " + listString(layout.strides) +
             ": producing that layout is a copy, which needs a kernel";
    }
    lastStride = stride;
    expected = stride * size;
  }
  return std::nullopt;
}

// The layout of the output of view op `expr` given its input's, or why it
// is not a view.
std::variant<Layout, std::string> viewLayout(const ir::Expr* expr, const Layout& in,
                                             const TensorView* out,
                                             const ir::ExpressionEvaluator& evaluator) {
  Layout y;
  y.sizes = evaluatedSizes(out, evaluator);
  const size_t rank = y.sizes.size();
  const ir::ExprAttrs& attrs = expr->attrs();
  switch (expr->type()) {
    case ExprType::Broadcast: {
      size_t k = 0;
      for (size_t i = 0; i < rank; ++i) {
        const bool added = i < attrs.broadcastFlags.size() && attrs.broadcastFlags[i];
        y.strides.push_back(added ? 0 : in.strides.at(k++));
      }
      break;
    }
    case ExprType::Expand:
      for (size_t i = 0; i < rank; ++i) {
        y.strides.push_back(in.sizes.at(i) == y.sizes[i] ? in.strides.at(i) : 0);
      }
      break;
    case ExprType::Permute:
      for (size_t i = 0; i < rank; ++i) {
        y.strides.push_back(in.strides.at(static_cast<size_t>(attrs.axes.at(i))));
      }
      break;
    case ExprType::Squeeze:
      for (size_t i = 0; i < in.strides.size(); ++i) {
        bool removed = false;
        for (int64_t axis : attrs.axes) removed = removed || axis == int64_t(i);
        if (!removed) y.strides.push_back(in.strides[i]);
      }
      break;
    case ExprType::Slice:
      for (size_t i = 0; i < rank; ++i) {
        const auto* step = expr->input(1 + 3 * i + 2)->as<ir::Scalar>();
        FL_ASSERT(step != nullptr, "slice step ", i, " is not a scalar");
        y.strides.push_back(in.strides.at(i) * evaluator.evaluateInt(step, "a slice step"));
      }
      break;
    case ExprType::Set:
    case ExprType::SegmentSet: y.strides = in.strides; break;
    case ExprType::Reshape: {
      auto strides = reshapeViewStrides(in.sizes, in.strides, y.sizes);
      if (!strides) {
        return exprSummary(*expr) + " cannot be a view: its input " + expr->input(0)->name() +
               " has sizes " + listString(in.sizes) + " and strides " + listString(in.strides) +
               ", whose axes the reshape regroups are not contiguous with each "
               "other; the reshape is a copy, which needs a kernel";
      }
      y.strides = std::move(*strides);
      break;
    }
    default: FL_ASSERT(false, exprSummary(*expr), " is not a view op");
  }
  FL_ASSERT(y.strides.size() == rank, exprSummary(*expr), ": ", y.strides.size(),
            " strides for rank ", rank);
  return y;
}

}  // namespace

std::optional<std::string> ExprEvalScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  if (liveExprs(segment).empty()) {
    return "the segment has no exprs and computes nothing, which is no_op's "
           "case";
  }
  for (const ir::FusionOutput& output : segment.outputs()) {
    if (output.aliasOf != nullptr) {
      return "output " + output.val->name() + " is written in place into input " +
             output.aliasOf->name() + " (alias_input), which needs a kernel";
    }
  }
  const std::vector<const ir::Expr*> exprs = tensorExprs(segment);
  if (soleCpuReferenceOp(exprs) != nullptr || soleSort(exprs) != nullptr) return std::nullopt;
  for (const ir::Expr* expr : exprs) {
    if (isCpuReferenceOnly(expr->type())) {
      return exprSummary(*expr) +
             " has no GPU kernel and runs on the CPU "
             "reference alone: expr_eval takes it only in a segment of its own";
    }
    if (isLibraryCall(expr->type())) {
      return exprSummary(*expr) +
             " is a library call, which the matmul "
             "scheduler runs (cuBLASLt, or the attention kernel)";
    }
  }
  for (const ir::Expr* expr : exprs) {
    if (!isViewOp(expr->type())) {
      return exprSummary(*expr) +
             " computes new values, which needs a "
             "kernel; " +
             kWhatExprEvalTakes;
    }
    for (const ir::Val* val : expr->outputs()) {
      const auto* tv = val->as<TensorView>();
      if (tv != nullptr && tv->domain().hasAllocation() && tv->strideOrder().empty()) {
        return exprSummary(*expr) + " gives " + tv->name() +
               " an allocation domain that splits or merges axes; a view "
               "cannot have that layout, a copy (a kernel) is needed";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> ExprEvalScheduler::rejectRunTime(const ir::Fusion& segment,
                                                            const SegmentRuntimeInfo& info) const {
  const std::vector<const ir::Expr*> exprs = tensorExprs(segment);
  if (soleCpuReferenceOp(exprs) != nullptr) return std::nullopt;  // no views
  if (const ir::Expr* sort = soleSort(exprs)) {
    FL_ASSERT(info.evaluator != nullptr, "expr_eval's run-time check needs bound sizes");
    if (sortRowTooLong(*sort, info)) return std::nullopt;  // the CPU reference runs it
    return exprSummary(*sort) + " sorts lines of " + std::to_string(sortRowLength(*sort, info)) +
           " elements, which the pointwise scheduler's sort kernel runs (expr_eval takes it "
           "only for lines longer than " +
           std::to_string(kMaxSortRow) + ")";
  }
  FL_ASSERT(info.evaluator != nullptr, "expr_eval's run-time check needs bound sizes");
  const ir::ExpressionEvaluator& evaluator = *info.evaluator;

  // Looked up by tensor, never iterated: the walk follows the exprs' order.
  std::unordered_map<const TensorView*, Layout> layouts;
  for (size_t i = 0; i < segment.inputs().size(); ++i) {
    const auto* tv = segment.inputs()[i]->as<TensorView>();
    if (tv == nullptr) continue;
    Layout layout;
    layout.sizes = evaluatedSizes(tv, evaluator);
    if (i < info.inputs.size() && info.inputs[i].strides.size() == layout.sizes.size()) {
      layout.strides = info.inputs[i].strides;
    } else {
      layout.strides = denseStrides(tv, layout.sizes);
    }
    layouts.emplace(tv, std::move(layout));
  }
  for (const ir::Expr* expr : exprs) {
    const auto* in = expr->input(0)->as<TensorView>();
    const auto* out = expr->output(0)->as<TensorView>();
    FL_ASSERT(in != nullptr && out != nullptr && layouts.count(in) != 0, exprSummary(*expr),
              ": a view op of an unknown tensor");
    auto layout = viewLayout(expr, layouts.at(in), out, evaluator);
    if (auto* reason = std::get_if<std::string>(&layout)) return *reason;
    Layout& y = std::get<Layout>(layout);
    if (auto mismatch = allocationMismatch(out, y)) {
      return exprSummary(*expr) + ": " + *mismatch;
    }
    layouts.emplace(out, std::move(y));
  }
  return std::nullopt;
}

HeuristicParams ExprEvalScheduler::computeHeuristics(const ir::Fusion& segment,
                                                     const SegmentRuntimeInfo& info) const {
  return std::monostate{};
}

std::optional<std::string> ExprEvalScheduler::rejectParams(const ir::Fusion& segment,
                                                           const SegmentRuntimeInfo& info,
                                                           const HeuristicParams& params) const {
  if (std::holds_alternative<std::monostate>(params)) return std::nullopt;
  return "expr_eval takes no params, but " + std::string(paramsKind(params)) + " params were given";
}

report::Json ExprEvalScheduler::properties(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info) const {
  report::Json json = report::Json::object();
  const std::vector<const ir::Expr*> exprs = tensorExprs(segment);
  const bool cpuOnly = soleCpuReferenceOp(exprs) != nullptr || soleSort(exprs) != nullptr;
  json.set("evaluation", cpuOnly ? "cpu_reference_only" : "views");
  return json;
}

}  // namespace fuserlab::scheduler
