// AxisTrace::partiallyWrittenAxis and uncoveredAxis: whether a traced tensor
// can be written, or read, by walking the reference: an output walked over
// fewer or more indices than it has along some reference axis, or a tensor
// with an axis that follows no axis of the reference.
#include <algorithm>
#include <string>
#include <vector>

#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/axis_trace_internal.h"

namespace fuserlab::scheduler {

using ir::IterDomain;
using ir::TensorView;

std::string AxisTrace::partiallyWrittenAxis(const TensorView* tv) const {
  const TensorTrace* trace = find(tv);
  if (trace == nullptr || tv == reference_) return {};
  const auto& axes = tv->logicalNoReductions();
  // How many reference indices piece walks along reference axis k: its own
  // count, else the axis's extent when the piece is the axis's only one;
  // -1 when unknown.
  auto reachOf = [&](size_t k, const AxisPiece& piece) -> int64_t {
    if (piece.extent >= 0) return piece.extent;
    return trace->axes[k].size() == 1 ? referenceExtents_[k] : -1;
  };
  // The pieces a reference axis walks multiply to its extent (one piece, or
  // a reshape's split of it), unless the walk passes a slice, pad or cat
  // (`resized`: only the indices inside are written). A piece walked over
  // fewer indices than its reference axis has, and not marked resized,
  // would be written past its end: a slice of an expanded broadcast axis,
  // reshaped (the differential tester's seed 678434 on an H200: a [25575]
  // output written at 168,795 indices, past its end into the next output).
  for (size_t k = 0; k < trace->axes.size() && k < referenceExtents_.size(); ++k) {
    int64_t walked = 1;
    bool known = !trace->axes[k].empty();
    for (const AxisPiece& piece : trace->axes[k]) {
      if (piece.kind != PieceKind::Axis || piece.resized || piece.offset != 0 || piece.extent < 0) {
        known = false;
        break;
      }
      walked *= piece.extent;
    }
    const int64_t reference = referenceExtents_[k];
    if (!known || reference < 0 || walked >= reference) continue;
    return tv->name() + " moves over " + std::to_string(walked) + " indices along reference axis " +
           std::to_string(k) + " of " + reference_->name() + ", which has " +
           std::to_string(reference) +
           " (a slice of a broadcast axis made concrete, reshaped), so walking the reference "
           "would write past its end";
  }
  for (size_t k = 0; k < trace->axes.size(); ++k) {
    for (const AxisPiece& piece : trace->axes[k]) {
      if (piece.kind != PieceKind::Axis || piece.step != 1 ||
          (piece.offset == 0 && !piece.resized)) {
        continue;
      }
      const auto at = std::find(axes.begin(), axes.end(), piece.id);
      if (at == axes.end()) continue;
      const int64_t extent = detail::extentOrUnknown(evaluator_, piece.id);
      const int64_t reach = reachOf(k, piece);
      // Written: indices offset .. offset + reach - 1, each once. A cat's
      // output reached at offset 0 from its first operand is longer than
      // the walk (the differential tester's seed 108449 on an H200: the
      // rows of the second operand were never written).
      const bool spans =
          piece.offset <= 0 && extent >= 0 && reach >= 0 && reach + piece.offset >= extent;
      if (spans) continue;
      const std::string where =
          piece.offset == 0 ? std::string("index")
                            : "index " + std::string(piece.offset > 0 ? "+ " : "- ") +
                                  std::to_string(piece.offset > 0 ? piece.offset : -piece.offset);
      return "axis " + std::to_string(at - axes.begin()) + " of " + tv->name() + " (extent " +
             (extent < 0 ? std::string("unknown") : std::to_string(extent)) +
             ") is reached at reference " + where + " over " +
             (reach < 0 ? std::string("an unknown number of") : std::to_string(reach)) +
             " indices (through slice, pad or cat), so walking the reference " +
             reference_->name() + " would leave some of its elements unwritten";
    }
  }
  // Every axis of the output must be walked over its whole extent: the
  // pieces landing on it, each a count of reference indices, multiply to
  // the positions written. A broadcast axis made concrete (expanded) by a
  // broadcast_in_dim no reference axis walks is written at position 0 only
  // (an expanded [8] broadcast to [8, 33] and reshaped to [264] wrote 8 of
  // 264 elements: the differential tester's seed 371095 on an H200).
  for (size_t i = 0; i < axes.size(); ++i) {
    const IterDomain* id = axes[i];
    if (id->isBroadcast()) continue;
    const int64_t extent = detail::extentOrUnknown(evaluator_, id);
    if (extent <= 1) continue;
    int64_t written = 1;
    bool plain = true;
    bool reached = false;
    for (size_t k = 0; k < trace->axes.size() && plain; ++k) {
      for (const AxisPiece& piece : trace->axes[k]) {
        if (piece.id != id) continue;
        reached = true;
        const int64_t reach = reachOf(k, piece);
        if (piece.kind != PieceKind::Axis || piece.offset != 0 || piece.resized || reach < 0) {
          plain = false;  // slices, pads, cats and gathers: checked above or elsewhere
          break;
        }
        written *= std::max<int64_t>(reach, 1);
      }
    }
    if (!reached || !plain || written >= extent) continue;
    return "axis " + std::to_string(i) + " of " + tv->name() + " (extent " +
           std::to_string(extent) + ") is reached at only " + std::to_string(written) +
           " positions by walking the reference " + reference_->name() +
           " (an axis no reference axis walks, such as a broadcast made concrete), so "
           "some of its elements would be left unwritten";
  }
  return {};
}

std::string AxisTrace::uncoveredAxis(const TensorView* tv) const {
  const TensorTrace* trace = find(tv);
  if (trace == nullptr) {
    return tv->name() + " is not connected to the reference " + reference_->name();
  }
  const auto& axes = tv->logicalNoReductions();
  for (size_t i = 0; i < axes.size(); ++i) {
    const IterDomain* id = axes[i];
    if (id->isBroadcast()) continue;
    const int64_t extent = detail::extentOrUnknown(evaluator_, id);
    if (extent == 1) continue;
    bool covered = false;
    for (const auto& pieces : trace->axes) {
      for (const AxisPiece& piece : pieces) {
        covered = covered || ((piece.kind == PieceKind::Axis || piece.kind == PieceKind::Indexed) &&
                              piece.id == id);
      }
    }
    if (covered || readOnlyThroughIndex(tv, i)) continue;
    std::string why = "axis " + std::to_string(i) + " of " + tv->name() + " (extent " +
                      (extent < 0 ? std::string("unknown") : std::to_string(extent)) +
                      ") does not correspond to any axis of the reference " + reference_->name();
    if (!trace->lostReason.empty()) why += ": " + trace->lostReason;
    return why;
  }
  return {};
}

}  // namespace fuserlab::scheduler
