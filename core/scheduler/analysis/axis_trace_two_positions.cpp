// AxisTrace::readAtTwoPositions: whether one position of the reference
// needs some tensor at two positions, which kernels that load or compute
// each tensor once per position (the reduction kernels) cannot do. Each
// tensor's stored trace is compared with its consumers' traces carried
// back across their definitions.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/axis_trace_internal.h"

namespace fuserlab::scheduler {
namespace {

using ir::Expr;
using ir::TensorView;

// Whether two traces of one tensor put each reference axis on the same
// indices. Only movement along the tensor's own axes counts: a Broadcast
// piece and an Axis piece on a reduced axis (a reduction's result reached
// from its input) both stay put. Axes with a Lost piece on either side are
// not compared.
bool sameWalk(const TensorTrace& a, const TensorTrace& b) {
  const auto& own = a.tv->logicalNoReductions();
  auto moving = [&](const std::vector<AxisPiece>& pieces) {
    std::vector<const AxisPiece*> kept;
    for (const AxisPiece& piece : pieces) {
      if (piece.kind == PieceKind::Broadcast) continue;
      if (piece.kind == PieceKind::Axis &&
          (std::find(own.begin(), own.end(), piece.id) == own.end() || piece.id->isBroadcast())) {
        continue;
      }
      kept.push_back(&piece);
    }
    return kept;
  };
  auto indexed = [](const std::vector<AxisPiece>& pieces) {
    return std::any_of(pieces.begin(), pieces.end(),
                       [](const AxisPiece& piece) { return piece.kind == PieceKind::Indexed; });
  };
  for (size_t k = 0; k < a.axes.size() && k < b.axes.size(); ++k) {
    // Gathers are the row-gather analysis's to accept (row_gather.h).
    if (a.lost(k) || b.lost(k) || indexed(a.axes[k]) || indexed(b.axes[k])) continue;
    const auto pa = moving(a.axes[k]);
    const auto pb = moving(b.axes[k]);
    if (pa.size() != pb.size()) return false;
    for (size_t i = 0; i < pa.size(); ++i) {
      if (pa[i]->kind != pb[i]->kind || pa[i]->id != pb[i]->id || pa[i]->step != pb[i]->step ||
          pa[i]->offset != pb[i]->offset) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string AxisTrace::readAtTwoPositions() const {
  auto definedInView = [&](const TensorView* tv) -> const Expr* {
    const Expr* def = tv->definition();
    if (def == nullptr ||
        (exprsInView_ != nullptr && (*exprsInView_)[static_cast<size_t>(def->id())] == 0)) {
      return nullptr;
    }
    return def;
  };
  // Tensors computed from the index alone (an iota, a full, and pointwise
  // ops of those, no reduction) are computed wherever they are needed.
  std::unordered_map<const TensorView*, bool> fromIndex;
  auto computedFromIndex = [&](const TensorView* root) {
    std::vector<const TensorView*> stack{root};
    while (!stack.empty()) {
      const TensorView* tv = stack.back();
      if (fromIndex.count(tv) != 0) {
        stack.pop_back();
        continue;
      }
      const Expr* def = definedInView(tv);
      if (def == nullptr || tv->logical().size() != tv->logicalNoReductions().size()) {
        fromIndex[tv] = false;
        stack.pop_back();
        continue;
      }
      bool ready = true;
      bool all = true;
      for (const ir::Val* in : def->inputs()) {
        const auto* t = in->as<TensorView>();
        if (t == nullptr) continue;
        const auto it = fromIndex.find(t);
        if (it == fromIndex.end()) {
          stack.push_back(t);
          ready = false;
        } else {
          all = all && it->second;
        }
      }
      if (ready) {
        fromIndex[tv] = all;
        stack.pop_back();
      }
    }
    return fromIndex[root];
  };
  for (const TensorTrace& consumerTrace : traces_) {
    const Expr* def = definedInView(consumerTrace.tv);
    if (def == nullptr) continue;
    for (size_t k = 0; k < def->inputs().size(); ++k) {
      const auto* producer = def->input(k)->as<TensorView>();
      const TensorTrace* stored = producer == nullptr ? nullptr : find(producer);
      if (stored == nullptr || computedFromIndex(producer)) continue;
      const std::optional<TensorTrace> across =
          detail::traceAcrossExpr(consumerTrace, def, k, producer, consumerTrace.tv,
                                  /*towardProducer=*/true, evaluator_);
      if (across && !sameWalk(*across, *stored)) {
        return producer->name() +
               " is needed at two positions for one "
               "position of the reference " +
               reference_->name() + ": as it is, and through " + def->toString();
      }
    }
  }
  return {};
}

}  // namespace fuserlab::scheduler
