#include "core/ir/size_relations.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::ir {
namespace {

using Size = std::optional<int64_t>;

//! "T3" or "T3 ('T10' in the script)", as the frontend names values.
std::string named(const Val* val) { return describeVal(val); }

//! "T19 = mul(T15, T18)": the op on one line, by IR names.
std::string exprText(const Expr& expr) {
  std::string text;
  for (const Val* out : expr.outputs()) {
    text += (text.empty() ? "" : ", ") + out->name();
  }
  text += " = " + expr.opName() + "(";
  bool first = true;
  for (const Val* in : expr.inputs()) {
    if (in == nullptr) continue;
    text += (first ? "" : ", ") + in->name();
    first = false;
  }
  return text + ")";
}

std::string sizesText(const std::vector<Size>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) text += ", ";
    text += sizes[i] ? std::to_string(*sizes[i]) : "?";
  }
  return text + "]";
}

class RelationChecker {
 public:
  RelationChecker(const Fusion& fusion, const ExpressionEvaluator& evaluator)
      : evaluator_(evaluator) {
    // As the reference: a sharded fusion's tensors hold their shard, whose
    // sizes are not the IR's global extents, so results are not compared
    // with their extents (the operands' relations still hold).
    for (const auto& id : fusion.iterDomains()) {
      if (id->isDeviceDim()) checkResultExtents_ = false;
    }
  }

  void check(const Expr& expr) {
    switch (expr.type()) {
      case ExprType::Unary:
      case ExprType::Binary:
      case ExprType::Ternary:
      case ExprType::Cast: return elementwise(expr);
      case ExprType::Reduction: return reduction(expr);
      case ExprType::Expand: return expand(expr);
      case ExprType::Reshape: return reshape(expr);
      case ExprType::Squeeze: return squeeze(expr);
      case ExprType::Slice: return slice(expr);
      case ExprType::Pad: return pad(expr);
      case ExprType::Cat: return cat(expr);
      case ExprType::Full: return full(expr);
      case ExprType::Iota: return iota(expr);
      case ExprType::IndexSelect: return indexSelect(expr);
      case ExprType::Gather: return gather(expr);
      case ExprType::Scatter: return scatter(expr);
      case ExprType::IndexPutAccumulate: return indexPutAccumulate(expr);
      case ExprType::Embedding: return embedding(expr);
      case ExprType::Matmul: return matmul(expr);
      case ExprType::Linear: return linear(expr);
      case ExprType::Sdpa: return sdpa(expr);
      case ExprType::SdpaBwd: return sdpaBackward(expr);
      case ExprType::TopK: return topk(expr);
      default: return;  // broadcast, permute, set, welford, argsort, random
    }
  }

 private:
  //! An integer scalar's value, if the evaluator knows it.
  Size value(const Val* val) const {
    const auto* scalar = val != nullptr ? val->as<Scalar>() : nullptr;
    if (scalar == nullptr) return std::nullopt;
    const std::optional<ScalarValue> v = evaluator_.evaluate(scalar);
    if (!v) return std::nullopt;
    if (const auto* i = std::get_if<int64_t>(&*v)) return *i;
    if (const auto* b = std::get_if<bool>(&*v)) return int64_t{*b};
    return std::nullopt;
  }

  //! The sizes a consumer reads: the expanded extent of an expanded axis.
  std::vector<Size> sizes(const Val* val) const {
    std::vector<Size> out;
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) return out;
    for (const IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(value(id->extentForIteration()));
    }
    return out;
  }

  //! The element count, if every size is known and the count fits.
  static Size numel(const std::vector<Size>& shape) {
    int64_t count = 1;
    for (const Size& size : shape) {
      if (!size) return std::nullopt;
      if (*size == 0) return 0;
    }
    for (const Size& size : shape) {
      if (__builtin_mul_overflow(count, *size, &count)) return std::nullopt;
    }
    return count;
  }

  static int64_t normalizeDim(int64_t dim, size_t rank) {
    return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
  }

  //! True when on every axis each operand has the output's very extent
  //! scalar or is a plain broadcast (extent 1): the sizes agree whatever the
  //! inputs are, so a pointwise chain costs no evaluation.
  static bool extentsAreShared(const Expr& expr) {
    const auto& outAxes = expr.output(0)->as<TensorView>()->logicalNoReductions();
    for (const Val* in : expr.inputs()) {
      const auto* tv = in != nullptr ? in->as<TensorView>() : nullptr;
      if (tv == nullptr || tv->rank() == 0) continue;
      const auto& axes = tv->logicalNoReductions();
      if (axes.size() != outAxes.size()) return false;
      for (size_t d = 0; d < axes.size(); ++d) {
        const IterDomain* id = axes[d];
        if (id->isBroadcast() && !id->hasExpandedExtent()) continue;
        if (id->extentForIteration() != outAxes[d]->extentForIteration()) return false;
      }
    }
    return true;
  }

  // Elementwise: every tensor operand of rank > 0 has the output's rank; on
  // each axis the sizes other than 1 agree, and the output has that size
  // (1 when every operand has 1). A 0-dim tensor combines as a scalar.
  void elementwise(const Expr& expr) {
    const Val* out = expr.output(0);
    if (!out->isA<TensorView>()) return;  // a scalar expr
    if (extentsAreShared(expr)) return;
    std::vector<std::pair<const Val*, std::vector<Size>>> operands;
    for (const Val* in : expr.inputs()) {
      const auto* tv = in != nullptr ? in->as<TensorView>() : nullptr;
      if (tv == nullptr || tv->rank() == 0) continue;
      operands.emplace_back(tv, sizes(tv));
    }
    const std::vector<Size> outSizes = sizes(out);
    for (size_t d = 0; d < outSizes.size(); ++d) {
      const Val* first = nullptr;  // the first operand of a size other than 1
      int64_t size = 1;
      bool allKnown = true;
      for (const auto& [tv, shape] : operands) {
        if (d >= shape.size()) continue;  // ranks are the builder's to check
        if (!shape[d]) {
          allKnown = false;
          continue;
        }
        if (*shape[d] == 1 || *shape[d] == size) continue;
        FL_CHECK(first == nullptr, expr.opName(), ": operand sizes ", size, " and ", *shape[d],
                 " do not match on axis ", d, " (", named(first), " has ", size, ", ", named(tv),
                 " has ", *shape[d], "; sizes must match unless one is 1) in ", exprText(expr));
        first = tv;
        size = *shape[d];
      }
      FL_CHECK(!checkResultExtents_ || !allKnown || !outSizes[d] || *outSizes[d] == size,
               expr.opName(), ": ", named(out), " has size ", outSizes[d].value_or(0), " on axis ",
               d, " but its operands give ", size,
               " (an axis of size 1 declared with shape -1 is not a broadcast "
               "axis: declare it with shape 1 or broadcast it) in ",
               exprText(expr));
    }
  }

  // max/min of an empty axis has no value; sum and prod have 0 and 1.
  void reduction(const Expr& expr) {
    const ReductionOpType op = expr.attrs().reductionOp;
    if (op != ReductionOpType::Max && op != ReductionOpType::Min) return;
    const std::vector<Size> shape = sizes(expr.input(0));
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t axis : expr.attrs().axes) {
      const int64_t a = normalizeDim(axis, shape.size());
      if (a >= 0 && a < static_cast<int64_t>(shape.size())) reduced[a] = true;
    }
    bool emptyReduced = false;  // a reduced axis of size 0
    bool emptyKept = false;     // no rows to reduce
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!shape[d]) return;
      if (*shape[d] == 0) (reduced[d] ? emptyReduced : emptyKept) = true;
    }
    FL_CHECK(!emptyReduced || emptyKept, expr.opName(),
             ": cannot reduce an empty axis (the reduced extent is 0) in ", exprText(expr));
  }

  // Only an axis of size 1 expands; the result has the expanded size, which
  // the fusion must give it too (an axis declared with shape -1 that has
  // size 1 keeps its own extent in the fusion: it is not a broadcast axis).
  void expand(const Expr& expr) {
    const Val* x = expr.input(0);
    const Val* out = expr.output(0);
    const std::vector<Size> shape = sizes(x);
    const std::vector<Size> outSizes = sizes(out);
    for (size_t d = 0; d < shape.size() && d + 1 < expr.inputs().size(); ++d) {
      const Size extent = value(expr.input(d + 1));
      if (!extent || !shape[d] || *extent == -1 || *extent == *shape[d]) continue;
      FL_CHECK(*shape[d] == 1 && *extent >= 0, "expand: axis ", d, " of size ", *shape[d],
               " cannot be expanded to ", *extent, " (", named(x),
               "; only an axis of size 1 expands) in ", exprText(expr));
      FL_CHECK(
          !checkResultExtents_ || d >= outSizes.size() || !outSizes[d] || *outSizes[d] == *extent,
          "expand: axis ", d, " of ", named(x), " has size 1 and is expanded to ", *extent,
          ", but the fusion sizes the result ", named(out), " ", outSizes[d].value_or(0),
          " there (an axis of size 1 declared with "
          "shape -1 is not a broadcast axis: declare it with shape 1 or "
          "broadcast it) in ",
          exprText(expr));
    }
  }

  void reshape(const Expr& expr) {
    const Val* x = expr.input(0);
    const std::vector<Size> from = sizes(x);
    const std::vector<Size> to = sizes(expr.output(0));
    const Size before = numel(from);
    const Size after = numel(to);
    FL_CHECK(!before || !after || *before == *after, "reshape: cannot reshape ", *before,
             " elements (", named(x), " ", sizesText(from), ") into ", *after, " (", sizesText(to),
             ") in ", exprText(expr));
  }

  void squeeze(const Expr& expr) {
    const auto* x = expr.input(0)->as<TensorView>();
    if (x == nullptr) return;
    const auto& axes = x->logicalNoReductions();
    for (int64_t axis : expr.attrs().axes) {
      const int64_t a = normalizeDim(axis, axes.size());
      if (a < 0 || a >= static_cast<int64_t>(axes.size())) continue;
      const IterDomain* id = axes[static_cast<size_t>(a)];
      if (id->hasExpandedExtent()) continue;  // squeeze_expanded=True
      const Size size = value(id->extentForIteration());
      FL_CHECK(!size || *size == 1, "squeeze: axis ", a, " of ", named(x), " has size ",
               size.value_or(0), ", expected 1 in ", exprText(expr));
    }
  }

  // The output's extents are the bounds' difference; the reference clamps
  // the bounds to the axis as Python does, so a bound past the end leaves
  // the two apart.
  void slice(const Expr& expr) {
    const Val* x = expr.input(0);
    const std::vector<Size> shape = sizes(x);
    const std::vector<Size> outSizes = sizes(expr.output(0));
    for (size_t d = 0; d < shape.size() && 3 * d + 3 < expr.inputs().size(); ++d) {
      const Size start = value(expr.input(3 * d + 1));
      const Size stop = value(expr.input(3 * d + 2));
      const Size step = value(expr.input(3 * d + 3));
      if (step) {
        FL_CHECK(*step > 0, "slice: the step of axis ", d, " must be positive, got ", *step, " in ",
                 exprText(expr));
      }
      if (!checkResultExtents_ || !start || !stop || !step || !shape[d] || d >= outSizes.size() ||
          !outSizes[d]) {
        continue;
      }
      const int64_t size = *shape[d];
      const auto normalize = [size](int64_t bound) {
        if (bound < 0) bound += size;
        return std::clamp<int64_t>(bound, 0, size);
      };
      const int64_t from = normalize(*start);
      const int64_t to = normalize(*stop);
      const int64_t length = to > from ? (to - from + *step - 1) / *step : 0;
      FL_CHECK(length == *outSizes[d], "slice: [", *start, ":", *stop, ":", *step, "] of axis ", d,
               " of ", named(x), " (size ", size, ") has ", length,
               " elements, but the fusion sizes the result ", *outSizes[d],
               " (a bound past the end of the axis, or a stop "
               "before the start) in ",
               exprText(expr));
    }
  }

  void pad(const Expr& expr) {
    const Val* x = expr.input(0);
    const std::vector<Size> shape = sizes(x);
    for (size_t d = 0; d < shape.size() && 2 * d + 3 < expr.inputs().size(); ++d) {
      const Size left = value(expr.input(2 * d + 2));
      const Size right = value(expr.input(2 * d + 3));
      if (!left || !right || !shape[d]) continue;
      const int64_t padded = *left + *shape[d] + *right;
      FL_CHECK(padded >= 0, "pad: axis ", d, " of size ", *shape[d], " padded by (", *left, ", ",
               *right, ") would have size ", padded, " (", named(x), ") in ", exprText(expr));
    }
  }

  // Every input has input 0's size on the axes other than the cat axis;
  // size 1 does not broadcast here.
  void cat(const Expr& expr) {
    std::vector<std::vector<Size>> shapes;
    for (const Val* in : expr.inputs()) shapes.push_back(sizes(in));
    if (shapes.empty()) return;
    const size_t rank = shapes.front().size();
    const int64_t dim = normalizeDim(expr.attrs().dim, rank);
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) == dim) continue;
      size_t known = shapes.size();  // the first input that knows the size
      for (size_t i = 0; i < shapes.size(); ++i) {
        if (d >= shapes[i].size() || !shapes[i][d]) continue;
        if (known == shapes.size()) {
          known = i;
          continue;
        }
        FL_CHECK(*shapes[i][d] == *shapes[known][d], "cat: input ", i, " (", named(expr.input(i)),
                 ") has size ", *shapes[i][d], " on axis ", d, " but input ", known, " (",
                 named(expr.input(known)), ") has ", *shapes[known][d],
                 "; inputs must match on every axis but the cat axis ", dim, " in ",
                 exprText(expr));
      }
    }
  }

  void full(const Expr& expr) {
    for (size_t d = 0; d + 1 < expr.inputs().size(); ++d) {
      const Size size = value(expr.input(d));
      FL_CHECK(!size || *size >= 0, "full: size ", size.value_or(0), " of axis ", d,
               " is negative in ", exprText(expr));
    }
  }

  void iota(const Expr& expr) {
    const Size length = value(expr.input(0));
    FL_CHECK(!length || *length >= 0, "iota: the length must be non-negative, got ",
             length.value_or(0), " in ", exprText(expr));
  }

  // --- index values known before the run -----------------------------------

  //! The smallest and largest value of an integer index tensor whose values
  //! are known: a full or an iota, or a view of one that keeps every element
  //! (broadcast, expand, permute, squeeze, reshape, set). Nullopt otherwise
  //! or when the tensor is empty (or its size unknown).
  std::optional<std::pair<int64_t, int64_t>> knownIndexRange(const Val* index) const {
    const Size count = numel(sizes(index));
    if (!count || *count <= 0) return std::nullopt;
    const Val* val = index;
    while (val != nullptr && val->definition() != nullptr) {
      const Expr& def = *val->definition();
      switch (def.type()) {
        case ExprType::Broadcast:
        case ExprType::Expand:
        case ExprType::Permute:
        case ExprType::Squeeze:
        case ExprType::Reshape:
        case ExprType::Set:
        case ExprType::SegmentSet: val = def.input(0); continue;
        case ExprType::Cast:
          // Int32 to Int keeps the values; other casts may change them.
          if (val->dtype() != DataType::Int || (def.input(0)->dtype() != DataType::Int &&
                                                def.input(0)->dtype() != DataType::Int32)) {
            return std::nullopt;
          }
          val = def.input(0);
          continue;
        case ExprType::Full: {
          if (!isIntegral(val->dtype())) return std::nullopt;
          const Val* fill = def.inputs().back();
          if (fill == nullptr || !isIntegral(fill->dtype())) return std::nullopt;
          const Size v = value(fill);
          if (!v) return std::nullopt;
          return std::make_pair(*v, *v);
        }
        case ExprType::Iota: {
          if (!isIntegral(val->dtype())) return std::nullopt;
          const Size length = value(def.input(0));
          const auto given = [&](size_t i) {
            return def.inputs().size() > i && def.input(i) != nullptr;
          };
          const Size start = given(1) ? value(def.input(1)) : Size{0};
          const Size step = given(2) ? value(def.input(2)) : Size{1};
          if (!length || *length <= 0 || !start || !step) return std::nullopt;
          int64_t last = 0;
          if (__builtin_mul_overflow(*length - 1, *step, &last) ||
              __builtin_add_overflow(last, *start, &last)) {
            return std::nullopt;
          }
          return std::make_pair(std::min(*start, last), std::max(*start, last));
        }
        default: return std::nullopt;
      }
    }
    return std::nullopt;
  }

  //! Every known index value in [low, high).
  void checkKnownIndices(const Expr& expr, const Val* index, int64_t low, int64_t high,
                         int64_t axis, const Val* indexed) const {
    const auto range = knownIndexRange(index);
    if (!range) return;
    const int64_t bad = range->first < low ? range->first : range->second;
    const std::string values =
        range->first == range->second
            ? "is " + std::to_string(range->first)
            : "runs from " + std::to_string(range->first) + " to " + std::to_string(range->second);
    FL_CHECK(range->first >= low && range->second < high, expr.opName(), ": index ", bad,
             " is out of range for axis ", axis, " of size ", high, " of ", named(indexed),
             " (the index ", named(index), " ", values, ", known before the run) in ",
             exprText(expr));
  }

  void indexSelect(const Expr& expr) {
    const Val* x = expr.input(0);
    const std::vector<Size> shape = sizes(x);
    const int64_t dim = normalizeDim(expr.attrs().dim, shape.size());
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()) || !shape[dim]) return;
    checkKnownIndices(expr, expr.input(1), 0, *shape[dim], dim, x);
  }

  // The index is no longer than the input on the other axes (but where the
  // input has size 1, which it broadcasts).
  void gather(const Expr& expr) {
    const Val* x = expr.input(0);
    const Val* index = expr.input(1);
    const std::vector<Size> shape = sizes(x);
    const std::vector<Size> indexShape = sizes(index);
    const int64_t dim = normalizeDim(expr.attrs().dim, shape.size());
    for (size_t d = 0; d < shape.size() && d < indexShape.size(); ++d) {
      if (static_cast<int64_t>(d) == dim || !shape[d] || !indexShape[d]) continue;
      FL_CHECK(*shape[d] >= *indexShape[d] || *shape[d] == 1, expr.opName(),
               ": the index has size ", *indexShape[d], " on axis ", d, " but the input only ",
               *shape[d], " (", named(index), " and ", named(x), ") in ", exprText(expr));
    }
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()) || !shape[dim]) return;
    checkKnownIndices(expr, index, 0, *shape[dim], dim, x);
  }

  void scatter(const Expr& expr) {
    const Val* x = expr.input(0);
    const Val* index = expr.input(1);
    const Val* src = expr.input(2);
    const std::vector<Size> shape = sizes(x);
    const std::vector<Size> indexShape = sizes(index);
    const int64_t dim = normalizeDim(expr.attrs().dim, shape.size());
    const auto longer = [&](const Val* of, const std::vector<Size>& ofShape, size_t d) {
      return d < ofShape.size() && d < indexShape.size() && ofShape[d] && indexShape[d] &&
             *indexShape[d] > *ofShape[d];
    };
    const std::vector<Size> srcShape = sizes(src);  // empty for a scalar
    for (size_t d = 0; d < indexShape.size(); ++d) {
      FL_CHECK(static_cast<int64_t>(d) == dim || !longer(x, shape, d), "scatter: the index ",
               named(index), " ", sizesText(indexShape), " is longer than the input ", named(x),
               " ", sizesText(shape), " on axis ", d, " in ", exprText(expr));
      FL_CHECK(!src->isA<TensorView>() || !longer(src, srcShape, d), "scatter: the index ",
               named(index), " ", sizesText(indexShape), " is longer than src ", named(src), " ",
               sizesText(srcShape), " on axis ", d, " in ", exprText(expr));
    }
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()) || !shape[dim]) return;
    checkKnownIndices(expr, index, 0, *shape[dim], dim, x);
  }

  // The values are [len(index), the accumulator's axes 1..], size 1 broadcast.
  void indexPutAccumulate(const Expr& expr) {
    const Val* acc = expr.input(0);
    const Val* index = expr.input(1);
    const Val* values = expr.input(2);
    std::vector<Size> expected = sizes(acc);
    const std::vector<Size> indexShape = sizes(index);
    const std::vector<Size> valueShape = sizes(values);
    if (expected.empty() || indexShape.size() != 1) return;
    const Size rows = expected[0];
    expected[0] = indexShape[0];
    for (size_t d = 0; d < expected.size() && d < valueShape.size(); ++d) {
      if (!expected[d] || !valueShape[d]) continue;
      FL_CHECK(*valueShape[d] == *expected[d] || *valueShape[d] == 1,
               "index_put_accumulate: the values ", named(values), " ", sizesText(valueShape),
               " do not match [len(index), accumulator axes 1..] = ", sizesText(expected),
               " on axis ", d, " in ", exprText(expr));
    }
    if (rows) checkKnownIndices(expr, index, -*rows, *rows, 0, acc);
  }

  void embedding(const Expr& expr) {
    const Val* weight = expr.input(1);
    const std::vector<Size> weightShape = sizes(weight);
    if (weightShape.empty() || !weightShape[0]) return;
    const int64_t rows = *weightShape[0];
    if (!expr.attrs().flags.empty() && expr.attrs().flags[0] && expr.inputs().size() > 5) {
      const Size padding = value(expr.input(5));
      FL_CHECK(!padding || (*padding >= -rows && *padding < rows), "embedding_fwd: padding_idx ",
               padding.value_or(0), " is out of range for ", rows, " embeddings (", named(weight),
               ") in ", exprText(expr));
    }
    checkKnownIndices(expr, expr.input(0), 0, rows, 0, weight);
  }

  //! Right-aligned batch sizes broadcast: equal, or one of them 1.
  void batchesBroadcast(const Expr& expr, const std::vector<Size>& a,
                        const std::vector<Size>& b) const {
    const size_t rank = std::max(a.size(), b.size());
    for (size_t i = 0; i < rank; ++i) {
      const Size sa = i < rank - a.size() ? Size{1} : a[i - (rank - a.size())];
      const Size sb = i < rank - b.size() ? Size{1} : b[i - (rank - b.size())];
      if (!sa || !sb) continue;
      FL_CHECK(*sa == *sb || *sa == 1 || *sb == 1, expr.opName(), ": batch sizes ", *sa, " and ",
               *sb, " do not broadcast (", named(expr.input(0)), " and ", named(expr.input(1)),
               ") in ", exprText(expr));
    }
  }

  // torch.matmul: a 1-D a is a row [1, K], a 1-D b a column [K, 1].
  void matmul(const Expr& expr) {
    std::vector<Size> a = sizes(expr.input(0));
    std::vector<Size> b = sizes(expr.input(1));
    if (a.empty() || b.empty()) return;
    if (a.size() == 1) a.insert(a.begin(), Size{1});
    if (b.size() == 1) b.push_back(Size{1});
    const Size k = a.back();
    const Size kB = b[b.size() - 2];
    FL_CHECK(!k || !kB || *k == *kB, "matmul: the operands' inner sizes ", k.value_or(0), " and ",
             kB.value_or(0), " differ (", named(expr.input(0)), " ",
             sizesText(sizes(expr.input(0))), " and ", named(expr.input(1)), " ",
             sizesText(sizes(expr.input(1))), ") in ", exprText(expr));
    batchesBroadcast(expr, std::vector<Size>(a.begin(), a.end() - 2),
                     std::vector<Size>(b.begin(), b.end() - 2));
  }

  void linear(const Expr& expr) {
    const Val* a = expr.input(0);
    const Val* weight = expr.input(1);
    const std::vector<Size> aShape = sizes(a);
    const std::vector<Size> weightShape = sizes(weight);
    if (aShape.empty() || weightShape.empty()) return;
    const Size k = aShape.back();
    FL_CHECK(!k || !weightShape.back() || *k == *weightShape.back(),
             "linear: the input's last size ", k.value_or(0), " differs from the weight's ",
             weightShape.back().value_or(0), " (", named(a), " ", sizesText(aShape), ", ",
             named(weight), " ", sizesText(weightShape), ") in ", exprText(expr));
    if (expr.inputs().size() <= 2 || expr.input(2) == nullptr) return;
    const Val* bias = expr.input(2);
    const std::vector<Size> biasShape = sizes(bias);
    const Size n = weightShape.size() == 2 ? weightShape[0] : Size{1};
    const Size biasCount = numel(biasShape);
    if (!n || !biasCount) return;
    FL_CHECK(*biasCount == 1 || (biasShape.size() == 1 && *biasCount == *n),
             "linear: the bias has ", *biasCount, " elements, expected ", *n, " (", named(bias),
             " ", sizesText(biasShape), ", ", named(weight), " ", sizesText(weightShape), ") in ",
             exprText(expr));
  }

  //! Each listed (tensor, axis, expected size) agrees where both are known.
  struct Expected {
    size_t input;
    size_t axis;
    Size size;
  };
  void checkAgree(const Expr& expr, const std::vector<Expected>& expected,
                  const std::vector<std::vector<Size>>& shapes) const {
    for (const Expected& e : expected) {
      const std::vector<Size>& shape = shapes[e.input];
      if (e.axis >= shape.size() || !shape[e.axis] || !e.size) continue;
      if (*shape[e.axis] == *e.size) continue;
      std::string all;
      for (size_t i = 0; i < shapes.size(); ++i) {
        all += (i ? ", " : "") + named(expr.input(i)) + " " + sizesText(shapes[i]);
      }
      FL_USER_ERROR(expr.opName(), ": ", named(expr.input(e.input)), " has size ", *shape[e.axis],
                    " on axis ", e.axis, " where ", *e.size, " is expected; the operands ", all,
                    " do not agree in ", exprText(expr));
    }
  }

  // q [b, h, queries, depth], k [b, h, keys, depth], v [b, h, keys, vdepth].
  void sdpa(const Expr& expr) {
    std::vector<std::vector<Size>> s;
    for (size_t i = 0; i < 3; ++i) s.push_back(sizes(expr.input(i)));
    if (s[0].size() != 4 || s[1].size() != 4 || s[2].size() != 4) return;
    checkAgree(expr,
               {{1, 0, s[0][0]},
                {1, 1, s[0][1]},
                {1, 3, s[0][3]},
                {2, 0, s[0][0]},
                {2, 1, s[0][1]},
                {2, 2, s[1][2]}},
               s);
  }

  // grad_out and out [b, h, queries, vdepth], q, k, v as in sdpfa_fwd,
  // log_sumexp [b, h, queries].
  void sdpaBackward(const Expr& expr) {
    std::vector<std::vector<Size>> s;
    for (size_t i = 0; i < 6; ++i) s.push_back(sizes(expr.input(i)));
    for (size_t i = 0; i < 5; ++i) {
      if (s[i].size() != 4) return;
    }
    if (s[5].size() != 3) return;
    const Size batch = s[1][0], heads = s[1][1], queries = s[1][2], depth = s[1][3], keys = s[2][2],
               valueDepth = s[3][3];
    checkAgree(expr,
               {{2, 0, batch},
                {2, 1, heads},
                {2, 3, depth},
                {3, 0, batch},
                {3, 1, heads},
                {3, 2, keys},
                {4, 0, batch},
                {4, 1, heads},
                {4, 2, queries},
                {4, 3, valueDepth},
                {0, 0, batch},
                {0, 1, heads},
                {0, 2, queries},
                {0, 3, valueDepth},
                {5, 0, batch},
                {5, 1, heads},
                {5, 2, queries}},
               s);
  }

  void topk(const Expr& expr) {
    const Val* x = expr.input(0);
    const std::vector<Size> shape = sizes(x);
    const Size k = value(expr.input(1));
    if (!k) return;
    if (shape.empty()) {
      FL_CHECK(*k == 1, "topk: k is ", *k, " for a 0-dim input (", named(x),
               "), whose top k is its one element (k=1) in ", exprText(expr));
      return;
    }
    const int64_t axis = normalizeDim(expr.attrs().dim, shape.size());
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) || !shape[axis]) return;
    FL_CHECK(*k >= 0 && *k <= *shape[axis], "topk: k is ", *k, " but axis ", axis, " of ", named(x),
             " has ", *shape[axis], " elements in ", exprText(expr));
  }

  const ExpressionEvaluator& evaluator_;
  bool checkResultExtents_ = true;
};

}  // namespace

void checkSizeRelations(const Fusion& fusion, const ExpressionEvaluator& evaluator) {
  RelationChecker checker(fusion, evaluator);
  for (const Expr* expr : fusion.exprsForOutputs()) {
    try {
      checker.check(*expr);
    } catch (const UserError& error) {
      // Point at the script call that made the op's result.
      const SourceLocation* where =
          error.location() ? nullptr : fusion.scriptLocationOf(expr->output(0));
      if (where == nullptr) throw;
      throw UserError(error.message(), *where);
    }
  }
}

}  // namespace fuserlab::ir
