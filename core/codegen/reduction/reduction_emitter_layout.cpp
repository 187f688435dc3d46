#include "core/codegen/reduction/reduction_emitter_layout.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::codegen {
namespace {

using ir::TensorView;
using scheduler::AxisPiece;
using scheduler::PieceKind;

struct ReferenceAxis {
  int64_t extent = 1;
  bool reduced = false;
  int64_t inner = 1;  // product of the extents inner to it, of its kind
};

std::string axesOf(const TensorView* tv) { return tv->toString(); }

// Strides per logical axis (reduction axes excluded) of an input or output,
// in elements; 0 for broadcast axes.
std::vector<int64_t> logicalStrides(const ir::Fusion& segment, const TensorView* tv,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    int64_t* alignmentBytes) {
  const scheduler::MemoryLayout layout = scheduler::memoryLayout(segment, tv, info);
  FL_CHECK(scheduler::allocationIsPermutation(tv), "code generation: ", tv->name(),
           " has an allocation domain that splits or merges axes (", axesOf(tv),
           "); the reduction kernels address tensors whose allocation is a "
           "permutation of their logical axes");
  std::vector<int64_t> strides;
  for (const ir::IterDomain* id : tv->logicalNoReductions()) {
    const int64_t position = layout.position(id);
    FL_ASSERT(position >= 0, tv->name(), ": logical axis ", id->toString(),
              " is not in its allocation domain");
    strides.push_back(layout.strides[static_cast<size_t>(position)]);
  }
  *alignmentBytes = layout.alignmentBytes;
  return strides;
}

// The extent of `id` at these sizes, or -1 when the evaluator cannot say.
int64_t runtimeExtent(const ir::ExpressionEvaluator& evaluator, const ir::IterDomain* id) {
  try {
    return evaluator.evaluateExtent(id);
  } catch (const UserError&) {
    return -1;
  }
}

// Merges terms that walk memory contiguously (the outer one's divisor and
// coefficient continue the inner one's) and drops moduli the index never
// reaches.
std::vector<IndexTerm> simplify(std::vector<IndexTerm> terms, int64_t indexExtent) {
  std::sort(terms.begin(), terms.end(),
            [](const IndexTerm& a, const IndexTerm& b) { return a.divisor < b.divisor; });
  std::vector<IndexTerm> merged;
  for (const IndexTerm& term : terms) {
    if (!merged.empty()) {
      IndexTerm& last = merged.back();
      if (last.modulus > 0 && term.divisor == last.divisor * last.modulus &&
          term.coefficient == last.coefficient * last.modulus) {
        last.modulus = term.modulus == 0 ? 0 : last.modulus * term.modulus;
        continue;
      }
    }
    merged.push_back(term);
  }
  for (IndexTerm& term : merged) {
    if (term.modulus > 0 && term.divisor * term.modulus >= indexExtent) {
      term.modulus = 0;
    }
  }
  return merged;
}

// Shifted rows (RowLayout::shiftedRows): chunks start at head(r) + c * V,
// so a chunk is one vector only for a tensor laid out as rows of the row
// length (offset r * stride + j, stride = rowLength mod V), and one element
// only for a tensor that does not move along the row. Guards are an
// output's (`written`): an input is read wherever its address says.
ChunkAccess shiftedChunkAccess(const TensorAccess& access, int64_t vectorize, int64_t rowLength,
                               int64_t elementBytes, bool written) {
  if (written && !access.elementGuards.empty()) return ChunkAccess::Elements;
  if (access.elementTerms.empty()) return ChunkAccess::Invariant;
  auto unit = [](const IndexTerm& t) { return t.divisor == 1 && t.modulus == 0; };
  const bool rowsOfRowLength = access.elementTerms.size() == 1 && unit(access.elementTerms[0]) &&
                               access.elementTerms[0].coefficient == 1 &&
                               access.rowTerms.size() == 1 && unit(access.rowTerms[0]) &&
                               access.rowTerms[0].coefficient % vectorize == rowLength % vectorize;
  if (!rowsOfRowLength || access.alignmentBytes < vectorize * elementBytes) {
    return ChunkAccess::Elements;
  }
  return ChunkAccess::Vector;
}

ChunkAccess chunkAccess(const TensorAccess& access, bool inner, int64_t vectorize,
                        int64_t elementBytes, bool written) {
  if (vectorize == 1) return ChunkAccess::Elements;
  const std::vector<IndexTerm>& along = inner ? access.elementTerms : access.rowTerms;
  const std::vector<IndexTerm>& across = inner ? access.rowTerms : access.elementTerms;
  const std::vector<IndexTerm>& guards = inner ? access.elementGuards : access.rowGuards;
  // A write guard along the vectorized index must hold for whole chunks; an
  // input's guards (its broadcast axes) guard nothing.
  for (const IndexTerm& g : guards) {
    if (written && g.divisor % vectorize != 0) return ChunkAccess::Elements;
  }
  const bool invariant = std::all_of(
      along.begin(), along.end(), [&](const IndexTerm& t) { return t.divisor % vectorize == 0; });
  if (invariant) return ChunkAccess::Invariant;
  bool unitFound = false;
  for (const IndexTerm& t : along) {
    if (t.divisor == 1) {
      if (t.coefficient != 1 || (t.modulus != 0 && t.modulus % vectorize != 0)) {
        return ChunkAccess::Elements;
      }
      unitFound = true;
    } else if (t.divisor % vectorize != 0 || t.coefficient % vectorize != 0) {
      return ChunkAccess::Elements;
    }
  }
  for (const IndexTerm& t : across) {
    if (t.coefficient % vectorize != 0) return ChunkAccess::Elements;
  }
  if (!unitFound || access.alignmentBytes < vectorize * elementBytes) {
    return ChunkAccess::Elements;
  }
  return ChunkAccess::Vector;
}

struct Traced {
  TensorCoordinates coordinates;
  std::vector<IndexTerm> rowGuards;
  std::vector<IndexTerm> elementGuards;
};

// The coordinates of `tv` along the reference's axes, and the digits of the
// reference axes it does not move along. With `check`, every axis of `tv`
// must follow some reference axis, and slices and gathers are refused.
Traced traceTensor(const TensorView* tv, const scheduler::TensorTrace& traced,
                   const std::vector<ReferenceAxis>& axes, const RowLayout& layout,
                   const ir::ExpressionEvaluator& evaluator, bool check) {
  Traced t;
  t.coordinates.tv = tv;
  const std::vector<ir::IterDomain*>& tvAxes = tv->logicalNoReductions();
  t.coordinates.rowTerms.resize(tvAxes.size());
  t.coordinates.elementTerms.resize(tvAxes.size());
  std::vector<bool> covered(tvAxes.size(), false);
  for (size_t a = 0; a < axes.size(); ++a) {
    const ReferenceAxis& axis = axes[a];
    if (axis.extent <= 1) continue;
    std::vector<IndexTerm>& guards = axis.reduced ? t.elementGuards : t.rowGuards;
    const std::vector<AxisPiece>& pieces = traced.axes[a];
    if (pieces.empty() || traced.lost(a)) {
      guards.push_back({axis.inner, axis.extent, 1});
      continue;
    }
    int64_t below = 1;
    for (const AxisPiece& piece : pieces) {
      FL_CHECK(!check || piece.kind != PieceKind::Indexed, "code generation: ", tv->name(),
               " is read through an index, which the reduction kernels do "
               "not support");
      const int64_t extent = std::max<int64_t>(piece.extent, 1);
      const IndexTerm digit{axis.inner * below, extent, 1};
      below *= extent;
      if (extent == 1) continue;
      const auto it = piece.kind == PieceKind::Axis
                          ? std::find(tvAxes.begin(), tvAxes.end(), piece.id)
                          : tvAxes.end();
      if (it == tvAxes.end()) {
        // Broadcast, or the reduced axis of a reduction's output.
        guards.push_back(digit);
        continue;
      }
      FL_CHECK(!check || (piece.offset == 0 && !piece.resized), "code generation: ", tv->name(),
               " is sliced, padded or concatenated along a reduction "
               "kernel's axis, which the reduction kernels do not support");
      const size_t position = static_cast<size_t>(it - tvAxes.begin());
      covered[position] = true;
      auto& terms =
          axis.reduced ? t.coordinates.elementTerms[position] : t.coordinates.rowTerms[position];
      terms.push_back({digit.divisor, digit.modulus, piece.step});
    }
  }
  for (size_t k = 0; k < tvAxes.size(); ++k) {
    t.coordinates.rowTerms[k] = simplify(t.coordinates.rowTerms[k], layout.rows);
    t.coordinates.elementTerms[k] = simplify(t.coordinates.elementTerms[k], layout.rowLength);
    if (!check || covered[k] || tvAxes[k]->isBroadcast()) continue;
    const int64_t extent = evaluator.evaluateExtent(tvAxes[k]);
    FL_CHECK(extent <= 1, "code generation: axis ", k, " of ", tv->name(), " (extent ", extent,
             ") does not follow any axis of the reduced tensor",
             (traced.lostReason.empty() ? std::string() : ": " + traced.lostReason));
  }
  return t;
}

std::string termText(const IndexTerm& term, const std::string& index) {
  std::string digit = index;
  if (term.divisor != 1) {
    digit = "(" + digit + " / " + std::to_string(term.divisor) + ")";
  }
  if (term.modulus != 0) {
    digit = "(" + digit + " % " + std::to_string(term.modulus) + ")";
  }
  return digit;
}

}  // namespace

std::string indexExpression(const std::vector<IndexTerm>& terms, const std::string& index) {
  std::string text;
  for (const IndexTerm& term : terms) {
    std::string part = termText(term, index);
    if (term.coefficient != 1) {
      part += " * " + std::to_string(term.coefficient);
    }
    text += text.empty() ? part : " + " + part;
  }
  return text.empty() ? "0" : "(" + text + ")";
}

std::string guardExpression(const std::vector<IndexTerm>& guards, const std::string& index) {
  std::string text;
  for (const IndexTerm& guard : guards) {
    const std::string test = termText(guard, index) + " == 0";
    text += text.empty() ? test : " && " + test;
  }
  return text;
}

const TensorCoordinates* RowLayout::coordinatesOf(const ir::TensorView* tv) const {
  for (const TensorCoordinates& c : coordinates) {
    if (c.tv == tv) return &c;
  }
  return nullptr;
}

bool readByKernel(const ir::Fusion& segment, const ir::TensorView* tv) {
  return !tv->uses().empty() || segment.isOutput(tv);
}

const TensorAccess& RowLayout::access(const ir::TensorView* tv) const {
  for (const TensorAccess& a : tensors) {
    if (a.tv == tv) return a;
  }
  FL_ASSERT(false, tv->name(), " is not an input or output of the segment");
}

const TensorAccess& RowLayout::outputAccess(const ir::TensorView* tv) const {
  for (const TensorAccess& a : passThroughOutputs) {
    if (a.tv == tv) return a;
  }
  return access(tv);
}

namespace {

// Strides of a new dense buffer for `tv` in its allocation order, broadcast
// axes 0, as the executor allocates an output.
std::vector<int64_t> denseOutputStrides(const TensorView* tv,
                                        const ir::ExpressionEvaluator& evaluator) {
  const std::vector<ir::IterDomain*>& logical = tv->logicalNoReductions();
  const std::vector<ir::IterDomain*> allocation = ir::noReductions(tv->maybeAllocation());
  std::vector<int64_t> strides(logical.size(), 0);
  int64_t running = 1;
  for (size_t k = allocation.size(); k-- > 0;) {
    const auto at = std::find(logical.begin(), logical.end(), allocation[k]);
    FL_CHECK(at != logical.end(), "code generation: ", tv->name(),
             " has an allocation domain that is not a permutation of its axes");
    if (allocation[k]->isBroadcast()) continue;
    strides[static_cast<size_t>(at - logical.begin())] = running;
    running *= std::max<int64_t>(runtimeExtent(evaluator, allocation[k]), 1);
  }
  return strides;
}

}  // namespace

RowLayout buildRowLayout(const ir::Fusion& segment, const scheduler::ReductionPattern& pattern,
                         const scheduler::SegmentRuntimeInfo& info, int64_t vectorize,
                         bool allowShiftedRows) {
  FL_ASSERT(info.evaluator != nullptr, "the reduction kernels need sizes");
  const TensorView* reference = pattern.reference();
  const scheduler::AxisTrace trace(segment, reference, info.evaluator);
  const std::vector<ir::IterDomain*>& logical = reference->logicalNoReductions();

  RowLayout layout;
  layout.inner = pattern.innermost;
  layout.vectorize = vectorize;
  std::vector<ReferenceAxis> axes;
  for (size_t a = 0; a < trace.referenceAxes().size(); ++a) {
    const ir::IterDomain* id = trace.referenceAxes()[a];
    const auto it = std::find(logical.begin(), logical.end(), id);
    FL_ASSERT(it != logical.end(), "reference axis ", id->toString(), " is not logical");
    ReferenceAxis axis;
    axis.extent = trace.referenceExtents()[a];
    FL_ASSERT(axis.extent >= 0, "unknown extent of ", id->toString());
    axis.reduced = std::find(pattern.axes.begin(), pattern.axes.end(), it - logical.begin()) !=
                   pattern.axes.end();
    axes.push_back(axis);
  }
  int64_t keptInner = 1;
  int64_t reducedInner = 1;
  for (size_t a = axes.size(); a-- > 0;) {
    int64_t& inner = axes[a].reduced ? reducedInner : keptInner;
    axes[a].inner = inner;
    inner *= std::max<int64_t>(axes[a].extent, 1);
    if (axes[a].extent == 0) inner = 0;
  }
  layout.rows = keptInner;
  layout.rowLength = reducedInner;
  layout.shiftedRows =
      allowShiftedRows && layout.inner && vectorize > 1 && layout.rowLength % vectorize != 0;
  FL_CHECK(layout.shiftedRows || layout.vectorizedIndexExtent() % vectorize == 0,
           "code generation: vectorization_factor ", vectorize, " does not divide the ",
           layout.inner ? "reduced" : "kept", " extent ", layout.vectorizedIndexExtent(), " of ",
           reference->name());

  // tv, alias input (-2: a pass-through output, an input written as an
  // output into a new buffer)
  std::vector<std::pair<const TensorView*, int>> tensors;
  constexpr int kPassThrough = -2;
  for (const ir::Val* val : segment.inputs()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || tv->isCpuScalar() || !readByKernel(segment, tv)) continue;
    tensors.emplace_back(tv, -1);
  }
  for (const ir::FusionOutput& out : segment.outputs()) {
    const auto* tv = out.val->as<TensorView>();
    // A CPU scalar input that is also an output (a 0-dim is_cpu=True tensor
    // passed to add_output) is a pass-through output too: the kernel takes
    // it by value and writes it into its new 0-dim buffer, as the pointwise
    // kernel does (it has no access among `tensors`, so access() failed).
    if (tv != nullptr && segment.isInput(tv) && out.aliasOf == nullptr) {
      tensors.emplace_back(tv, kPassThrough);
      continue;
    }
    if (tv == nullptr || segment.isInput(tv)) continue;
    const auto known = std::find_if(tensors.begin(), tensors.end(),
                                    [&](const auto& entry) { return entry.first == tv; });
    if (known != tensors.end()) continue;
    int alias = -1;
    if (out.aliasOf != nullptr) {
      const auto& inputs = segment.inputs();
      alias =
          static_cast<int>(std::find(inputs.begin(), inputs.end(), out.aliasOf) - inputs.begin());
    }
    tensors.emplace_back(tv, alias);
  }

  for (const auto& val : segment.vals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    const scheduler::TensorTrace* traced = trace.find(tv);
    if (traced == nullptr) continue;
    layout.coordinates.push_back(
        traceTensor(tv, *traced, axes, layout, *info.evaluator, false).coordinates);
  }

  for (const auto& [tv, alias] : tensors) {
    const scheduler::TensorTrace* traced = trace.find(tv);
    FL_CHECK(traced != nullptr, "code generation: ", tv->name(),
             " is not connected to the reduced tensor ", reference->name());
    TensorAccess access;
    access.tv = tv;
    std::vector<int64_t> strides = alias == kPassThrough
                                       ? denseOutputStrides(tv, *info.evaluator)
                                       : logicalStrides(segment, tv, info, &access.alignmentBytes);
    if (alias >= 0 && alias < static_cast<int>(segment.inputs().size())) {
      // Written into the aliased input's storage: its strides.
      const auto* input = segment.inputs()[alias]->as<TensorView>();
      if (input != nullptr && input->rank() == tv->rank()) {
        strides = logicalStrides(segment, input, info, &access.alignmentBytes);
      }
    }
    Traced t = traceTensor(tv, *traced, axes, layout, *info.evaluator, true);
    std::vector<IndexTerm> rowTerms, elementTerms;
    access.rowGuards = t.rowGuards;
    access.elementGuards = t.elementGuards;
    const std::vector<ir::IterDomain*>& ids = tv->logicalNoReductions();
    for (size_t k = 0; k < strides.size(); ++k) {
      const int64_t stride = strides[k];
      // An axis of runtime size 1 that the fusion maps onto a longer one (a
      // symbolic input extent that is 1 at these sizes, broadcast as
      // PyTorch and nvFuser's concretization do): its coordinate is always
      // 0, whatever the reference index.
      if (k < ids.size() && runtimeExtent(*info.evaluator, ids[k]) == 1) continue;
      for (int part = 0; part < 2; ++part) {
        const auto& terms = part == 0 ? t.coordinates.rowTerms[k] : t.coordinates.elementTerms[k];
        if (terms.empty()) continue;
        FL_CHECK(stride >= 0, "code generation: the stride of axis ", k, " of ", tv->name(),
                 " is unknown");
        auto& out = part == 0 ? rowTerms : elementTerms;
        auto& guards = part == 0 ? access.rowGuards : access.elementGuards;
        for (const IndexTerm& term : terms) {
          if (stride == 0) {
            guards.push_back({term.divisor, term.modulus, 1});
          } else {
            out.push_back({term.divisor, term.modulus, term.coefficient * stride});
          }
        }
      }
    }
    access.rowTerms = simplify(rowTerms, layout.rows);
    access.elementTerms = simplify(elementTerms, layout.rowLength);
    access.rowGuards = simplify(access.rowGuards, layout.rows);
    access.elementGuards = simplify(access.elementGuards, layout.rowLength);
    for (auto* guards : {&access.rowGuards, &access.elementGuards}) {
      for (IndexTerm& g : *guards) g.coefficient = 1;
    }
    const bool written = !segment.isInput(tv);
    access.access = layout.shiftedRows ? shiftedChunkAccess(access, vectorize, layout.rowLength,
                                                            ir::sizeInBytes(tv->dtype()), written)
                                       : chunkAccess(access, layout.inner, vectorize,
                                                     ir::sizeInBytes(tv->dtype()), written);
    (alias == kPassThrough ? layout.passThroughOutputs : layout.tensors)
        .push_back(std::move(access));
  }
  return layout;
}

}  // namespace fuserlab::codegen
