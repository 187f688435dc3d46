#include "core/scheduler/analysis/vectorization.h"

#include <algorithm>
#include <cstdlib>

#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::scheduler {
namespace {

using ir::IterDomain;
using ir::TensorView;

constexpr int64_t kMaxAccessBytes = 16;
// 16-byte accesses a vector of a dtype wider than the narrowest may take.
constexpr int64_t kMaxSplitAccesses = 2;
// Larger than any factor: "this constraint does not limit".
constexpr int64_t kUnlimited = int64_t{1} << 40;

// The largest power of two dividing `value` (kUnlimited for 0).
int64_t powerOfTwoDividing(int64_t value) {
  value = std::llabs(value);
  if (value == 0) return kUnlimited;
  return value & -value;
}

// The largest power of two <= value (value >= 1).
int64_t powerOfTwoAtMost(int64_t value) {
  int64_t p = 1;
  while (p * 2 <= value) p *= 2;
  return p;
}

// "axis 1" in the user's (logical) numbering where there is one.
std::string axisLabel(const MemoryLayout& layout, int64_t position) {
  const IterDomain* id = layout.axes[position];
  const auto& logical = layout.tv->logicalNoReductions();
  auto it = std::find(logical.begin(), logical.end(), id);
  if (it != logical.end()) return "axis " + std::to_string(it - logical.begin());
  return "allocation axis " + std::to_string(position);
}

std::string logicalAxisLabel(const TensorView* tv, const IterDomain* id) {
  const auto& logical = tv->logicalNoReductions();
  auto it = std::find(logical.begin(), logical.end(), id);
  return it == logical.end() ? id->toString() : "axis " + std::to_string(it - logical.begin());
}

// The next axis outward from `position` that the tensor moves along.
int64_t nextMovingAxis(const MemoryLayout& layout, int64_t position) {
  for (int64_t k = position - 1; k >= 0; --k) {
    if (layout.extents[k] != 1 && layout.strides[k] != 0 && !layout.axes[k]->isBroadcast()) {
      return k;
    }
  }
  return -1;
}

// One constraint on a tensor's factor and the sentence that explains it.
struct Constraint {
  int64_t limit = kUnlimited;
  std::string reason;
};

class TensorAnalyzer {
 public:
  //! `narrowestBytes`: 0 for one 16-byte access a vector; else the narrowest
  //! analysed dtype's size, whose 16 bytes a vector may hold (at most two
  //! accesses of this tensor's dtype).
  TensorAnalyzer(const MemoryLayout& layout, const TensorTrace* trace, const AxisTrace& axisTrace,
                 int64_t breakPoint, int64_t maxFactor, int64_t narrowestBytes)
      : layout_(layout),
        trace_(trace),
        axisTrace_(axisTrace),
        breakPoint_(breakPoint),
        maxFactor_(maxFactor),
        narrowestBytes_(narrowestBytes) {}

  TensorVectorization run() {
    const TensorView* tv = layout_.tv;
    result_.tensor = tv->name();
    result_.isInput = layout_.isInput;
    result_.dtype = tv->dtype();
    result_.constantAlongRun = constantAlongRun();
    const int64_t bytes = ir::sizeInBytes(tv->dtype());

    // Candidates in the order their reasons are preferred when tied.
    std::vector<Constraint> constraints;
    if (!walkInnerRun(constraints)) return result_;
    constraints.push_back(pointerConstraint(bytes));
    const int64_t perAccess = std::max<int64_t>(1, kMaxAccessBytes / bytes);
    const int64_t perVector =
        narrowestBytes_ > 0 && narrowestBytes_ < bytes
            ? std::min(kMaxAccessBytes / narrowestBytes_, kMaxSplitAccesses * perAccess)
            : perAccess;
    const std::string dtype(ir::toString(tv->dtype()));
    if (perVector <= maxFactor_ && perVector > perAccess) {
      constraints.push_back({perVector, name() + ": a vector holds " + std::to_string(perVector) +
                                            " " + dtype + " elements, " +
                                            std::to_string(perVector / perAccess) +
                                            " 16-byte accesses (16 bytes of the narrowest dtype)"});
    } else if (perAccess <= maxFactor_) {
      constraints.push_back({perAccess, name() + ": 16-byte accesses hold " +
                                            std::to_string(perAccess) + " " + dtype + " elements"});
    } else {
      constraints.push_back({powerOfTwoAtMost(maxFactor_),
                             name() + ": the schedule allows at most " +
                                 std::to_string(powerOfTwoAtMost(maxFactor_)) + " elements"});
    }
    const Constraint* binding = &constraints.front();
    for (const Constraint& c : constraints) {
      if (c.limit < binding->limit) binding = &c;
    }
    result_.limit = binding->limit;
    result_.reason = binding->reason;
    return result_;
  }

 private:
  std::string name() const { return layout_.tv->name(); }

  void notVectorized(const std::string& why) {
    result_.vectorized = false;
    result_.limit = kMaxAccessBytes;
    result_.reason = name() + ": " + why + "; read without vectorization";
  }
  void limitToOne(const std::string& why) {
    result_.limit = 1;
    result_.reason = name() + ": " + why;
  }

  // A tensor broadcast along the reference's innermost axis that moves
  // along an outer axis of the inner run: chunks must not cross the
  // boundaries where its value changes (every `span` elements, the extents
  // inside that axis). Chunks inside the innermost axis never cross one
  // when its extent is a multiple of the chunk, and span is a multiple of
  // that extent, so span's power of two bounds both ways.
  void limitCrossing() {
    const std::vector<int64_t>& extents = axisTrace_.referenceExtents();
    const int64_t rank = static_cast<int64_t>(trace_->axes.size());
    int64_t span = 1;
    for (int64_t k = rank - 1; k >= breakPoint_; --k) {
      const bool moves = std::any_of(trace_->axes[k].begin(), trace_->axes[k].end(),
                                     [](const AxisPiece& p) { return p.kind == PieceKind::Axis; });
      if (moves) {
        if (powerOfTwoDividing(span) >= kMaxAccessBytes) return;
        result_.limitsFactor = true;
        result_.limit = powerOfTwoDividing(span);
        result_.reason = name() + ": read element by element, it changes every " +
                         std::to_string(span) + " elements of the reference's inner run, so " +
                         "chunks of more than " + std::to_string(result_.limit) +
                         " would cross that";
        return;
      }
      if (static_cast<size_t>(k) >= extents.size() || extents[k] < 0) return;
      span *= std::max<int64_t>(1, extents[k]);
    }
  }

  // Whether every piece of the inner run leaves the tensor where it is:
  // broadcast, or an axis of extent 1 or stride 0 in its layout.
  bool constantAlongRun() const {
    if (trace_ == nullptr) return false;
    const std::vector<AxisPiece> pieces = innerPieces();
    if (pieces.empty()) return false;
    return std::all_of(pieces.begin(), pieces.end(), [&](const AxisPiece& p) {
      if (p.kind == PieceKind::Broadcast) return true;
      if (p.kind != PieceKind::Axis) return false;
      const int64_t position = layout_.position(p.id);
      return position >= 0 && (layout_.extents[position] == 1 || layout_.strides[position] == 0);
    });
  }

  // The pieces the reference's inner axes walk along, innermost first.
  std::vector<AxisPiece> innerPieces() const {
    std::vector<AxisPiece> pieces;
    const int64_t rank = static_cast<int64_t>(trace_->axes.size());
    for (int64_t k = rank - 1; k >= breakPoint_; --k) {
      for (const AxisPiece& piece : trace_->axes[k]) pieces.push_back(piece);
    }
    return pieces;
  }

  // Follows the contiguous run; adds the extent, stride and offset
  // constraints. False when the result is already decided.
  bool walkInnerRun(std::vector<Constraint>& constraints) {
    if (trace_ == nullptr) {
      limitToOne("not connected to the reference " + axisTrace_.reference()->name());
      return false;
    }
    const std::vector<AxisPiece> pieces = innerPieces();
    if (pieces.empty()) {
      limitToOne("the reference's inner axes all have extent 1");
      return false;
    }
    const AxisPiece& first = pieces.front();
    switch (first.kind) {
      case PieceKind::Broadcast:
        notVectorized("broadcast along the reference's innermost axis");
        limitCrossing();
        return false;
      case PieceKind::Indexed:
        notVectorized("indexed along the reference's innermost axis");
        return false;
      case PieceKind::Lost:
        limitToOne(
            "the reference's innermost axis cannot be followed into "
            "it: " +
            trace_->lostReason);
        return false;
      case PieceKind::Axis: break;
    }
    const int64_t position = layout_.position(first.id);
    if (position < 0 && first.id->isReduction()) {
      notVectorized("reduces the reference's innermost axis away");
      return false;
    }
    if (position < 0) {
      limitToOne("its " + logicalAxisLabel(layout_.tv, first.id) +
                 " is split or merged in its allocation domain");
      return false;
    }
    if (layout_.strides[position] == 0) {
      notVectorized("stride 0 along the reference's innermost axis");
      return false;
    }
    if (layout_.extents[position] == 1) {
      // A size-1 axis expanded along the reference's innermost axis (a
      // [rows, 1] mean or rstd): one value per row, read once, whatever its
      // stride says; not a transpose.
      notVectorized("extent 1 along the reference's innermost axis (expanded)");
      return false;
    }
    const int64_t innermost = layout_.innermostMovingAxis();
    if (position != innermost) {
      limitToOne("the reference's innermost axis is its " + axisLabel(layout_, position) +
                 " (stride " + std::to_string(layout_.strides[position]) +
                 "), not its innermost allocation axis: a transpose");
      return false;
    }
    if (layout_.strides[position] != 1) {
      limitToOne("its innermost " + axisLabel(layout_, position) + " has stride " +
                 std::to_string(layout_.strides[position]));
      return false;
    }
    if (first.extent < 0) {
      limitToOne("the extent of its " + axisLabel(layout_, position) + " is unknown");
      return false;
    }
    if (first.step != 1) {
      limitToOne("the reference's innermost axis walks its " + axisLabel(layout_, position) +
                 " in steps");
      return false;
    }

    // Walk outward while the pieces stay contiguous in memory. A resized
    // piece walks past the end of a shorter tensor: its run ends there.
    int64_t run = first.resized && layout_.extents[position] >= 0
                      ? std::min(first.extent, layout_.extents[position])
                      : first.extent;
    int64_t current = position;
    int64_t covered = run;  // indices of `current` walked so far
    int64_t offsetElements = first.offset * layout_.strides[position];
    bool stop = first.resized;
    int64_t outermostInRun = position;
    for (size_t i = 1; i < pieces.size() && !stop; ++i) {
      const AxisPiece& piece = pieces[i];
      if (piece.kind != PieceKind::Axis || piece.extent < 0) break;
      if (piece.id == layout_.axes[current] && piece.step == covered) {
        run *= piece.extent;
        covered *= piece.extent;
      } else {
        if (covered != layout_.extents[current] || piece.step != 1) break;
        const int64_t next = nextMovingAxis(layout_, current);
        if (next < 0 || layout_.axes[next] != piece.id) break;
        if (layout_.strides[next] != layout_.strides[current] * layout_.extents[current]) {
          break;
        }
        current = next;
        covered = piece.extent;
        run *= piece.extent;
        offsetElements += piece.offset * layout_.strides[next];
        outermostInRun = next;
      }
      stop = piece.resized;
    }
    result_.innerExtent = run;

    // The run's length.
    const int64_t runLimit = powerOfTwoDividing(run);
    std::string runReason;
    if (run % 2 != 0) {
      runReason = name() + ": innermost contiguous extent " + std::to_string(run) + " is odd";
    } else {
      runReason = name() + ": innermost contiguous extent " + std::to_string(run) +
                  " is divisible by " + std::to_string(runLimit) + " but not by " +
                  std::to_string(runLimit * 2);
    }
    constraints.push_back({runLimit, runReason});

    // Strides of the axes outside the run.
    for (int64_t k = 0; k < layout_.rank(); ++k) {
      if (k >= outermostInRun && k <= position) continue;
      if (layout_.extents[k] == 1 || layout_.strides[k] == 0) continue;
      if (layout_.strides[k] < 0) {
        constraints.push_back({1, name() + ": the stride of its " + axisLabel(layout_, k) +
                                      " is unknown and not contiguous"});
        continue;
      }
      const int64_t limit = powerOfTwoDividing(layout_.strides[k]);
      constraints.push_back({limit, name() + ": stride " + std::to_string(layout_.strides[k]) +
                                        " of " + axisLabel(layout_, k) + " is not a multiple of " +
                                        std::to_string(limit * 2)});
    }

    // Slice, pad and cat offsets inside the run.
    if (offsetElements != 0) {
      const int64_t limit = powerOfTwoDividing(offsetElements);
      constraints.push_back({limit, name() + ": a slice, pad or cat shifts its inner run by " +
                                        std::to_string(std::llabs(offsetElements)) +
                                        " elements, not a multiple of " +
                                        std::to_string(limit * 2)});
    }
    return true;
  }

  Constraint pointerConstraint(int64_t bytes) const {
    const int64_t alignment = layout_.alignmentBytes;
    const int64_t elements = alignment >= bytes ? std::max<int64_t>(1, alignment / bytes) : 1;
    return {elements, name() + ": data pointer aligned to " + std::to_string(alignment) +
                          " bytes (" + std::to_string(elements) + " " +
                          std::string(ir::toString(layout_.tv->dtype())) +
                          (elements == 1 ? " element)" : " elements)")};
  }

  const MemoryLayout& layout_;
  const TensorTrace* trace_;
  const AxisTrace& axisTrace_;
  int64_t breakPoint_;
  int64_t maxFactor_;
  int64_t narrowestBytes_;
  TensorVectorization result_;
};

}  // namespace

report::Json TensorVectorization::toJson() const {
  report::Json json = report::Json::object();
  json.set("tensor", tensor);
  json.set("is_input", isInput);
  json.set("dtype", std::string(ir::toString(dtype)));
  json.set("vectorized", vectorized);
  json.set("inner_extent", innerExtent);
  json.set("limit", limit);
  if (constantAlongRun) json.set("constant_along_run", true);
  json.set("reason", reason);
  return json;
}

int64_t VectorizationAnalysis::bytesPerAccess() const {
  int64_t widest = 0;
  for (const TensorVectorization& t : tensors) {
    if (t.vectorized) widest = std::max(widest, ir::sizeInBytes(t.dtype));
  }
  return factor * widest;
}

std::string VectorizationAnalysis::reason() const {
  const TensorVectorization* limiting = find(limitingTensor);
  return limiting ? limiting->reason : std::string();
}

const TensorVectorization* VectorizationAnalysis::find(const std::string& tensor) const {
  for (const TensorVectorization& t : tensors) {
    if (t.tensor == tensor) return &t;
  }
  return nullptr;
}

report::Json VectorizationAnalysis::toJson() const {
  report::Json json = report::Json::object();
  json.set("factor", factor);
  json.set("reference", reference);
  json.set("break_point", breakPoint);
  json.set("limiting_tensor", limitingTensor);
  json.set("reason", reason());
  report::Json list = report::Json::array();
  for (const TensorVectorization& t : tensors) list.push(t.toJson());
  json.set("tensors", std::move(list));
  return json;
}

VectorizationAnalysis analyzeVectorization(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info,
                                           const VectorizationQuery& query) {
  VectorizationAnalysis analysis;
  analysis.breakPoint = query.breakPoint;
  const TensorView* reference =
      query.reference ? query.reference : largestOutput(segment, info.evaluator);
  if (reference == nullptr) return analysis;
  analysis.reference = reference->name();
  const AxisTrace trace(segment, reference, info.evaluator);

  const std::vector<const TensorView*> tensors =
      query.tensors.empty() ? inputsAndOutputs(segment) : query.tensors;
  auto analyzeAll = [&](int64_t narrowestBytes) {
    analysis.tensors.clear();
    int64_t factor = powerOfTwoAtMost(std::max<int64_t>(1, query.maxFactor));
    for (const TensorView* tv : tensors) {
      const MemoryLayout layout = memoryLayout(segment, tv, info);
      TensorAnalyzer analyzer(layout, trace.find(tv), trace, query.breakPoint, query.maxFactor,
                              narrowestBytes);
      analysis.tensors.push_back(analyzer.run());
      const TensorVectorization& result = analysis.tensors.back();
      if (result.vectorized || result.limitsFactor) factor = std::min(factor, result.limit);
    }
    return factor;
  };
  int64_t factor = analyzeAll(0);
  if (query.splitWideAccesses) {
    // Vectors of 16 bytes of the narrowest vectorized dtype, where a wider
    // one is vectorized beside it. A 1-byte dtype (a bool mask) counts as 2:
    // vectors of 16 elements made the pointwise_cast_chain example's bf16
    // kernel 40 registers and 10% slower (8.9 -> 9.8 us, H100).
    int64_t narrowest = 0, widest = 0;
    for (const TensorVectorization& t : analysis.tensors) {
      if (!t.vectorized) continue;
      const int64_t bytes = std::max<int64_t>(2, ir::sizeInBytes(t.dtype));
      narrowest = narrowest == 0 ? bytes : std::min(narrowest, bytes);
      widest = std::max(widest, bytes);
    }
    if (narrowest < widest) factor = analyzeAll(narrowest);
  }
  analysis.factor = factor;
  for (const TensorVectorization& t : analysis.tensors) {
    if ((t.vectorized || t.limitsFactor) && t.limit == factor) {
      analysis.limitingTensor = t.tensor;
      break;
    }
  }
  return analysis;
}

}  // namespace fuserlab::scheduler
