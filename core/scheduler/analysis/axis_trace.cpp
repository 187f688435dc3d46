#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/axis_trace_internal.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/error.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::scheduler {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

// Two axes an expr relates: producer index = consumer index + shift.
struct AxisPair {
  const IterDomain* producer = nullptr;
  const IterDomain* consumer = nullptr;
  int64_t shift = 0;
  bool shiftKnown = true;
  bool resized = false;  // the two axes have different extents
};

// How one tensor input of an expr relates to one tensor output.
struct ExprAxisMap {
  bool traversable = true;  // false: matmul, linear, sdpa, factories
  bool isReshape = false;
  std::vector<AxisPair> pairs;
  // Gather / index_select: the consumer axis read through the index, and
  // the producer axis it reads from.
  const IterDomain* indexedConsumerAxis = nullptr;
  const IterDomain* indexedProducerAxis = nullptr;
  // The producer's logical axes without reductions (kept, like pairs, when
  // one map is filled again for the next expr: no allocation per expr).
  std::vector<IterDomain*> producerAxes;
  // A cat's offset along its axis per input (and whether every extent
  // before it is known), kept across
  // fills: the N inputs of one cat share them, and summing the extents
  // before each input again was quadratic in N (issue 43).
  std::unordered_map<const Expr*, std::vector<std::pair<int64_t, bool>>> catOffsets;
};

std::optional<int64_t> scalarInt(const ir::Val* val, const ir::ExpressionEvaluator* evaluator) {
  const auto* scalar = val->as<ir::Scalar>();
  if (scalar == nullptr) return std::nullopt;
  if (auto constant = scalar->constInt()) return *constant;
  if (evaluator == nullptr) return std::nullopt;
  auto value = evaluator->evaluate(scalar);
  if (!value) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&*value)) return *i;
  return std::nullopt;
}

// `expr` as a lost axis's reason names it: in full, or, for an expr of
// many inputs (a cat of thousands), by its outputs and op with the inputs
// counted. Each tensor traced across it builds the reason anew, so the full
// text made a cat of N inputs quadratic to trace (issue 43).
std::string reasonText(const Expr* expr) {
  constexpr size_t kMaxInputsNamed = 16;
  if (expr->inputs().size() <= kMaxInputsNamed) return expr->toString();
  std::string text;
  for (const ir::Val* output : expr->outputs()) {
    text += (text.empty() ? "" : ", ") + output->name();
  }
  return text + " = " + expr->opName() + "(" + std::to_string(expr->inputs().size()) + " inputs)";
}

// Whether two axes have the same extent (unknown extents: the same scalar).
bool sameExtent(const ir::ExpressionEvaluator* evaluator, const IterDomain* a,
                const IterDomain* b) {
  if (a->extentForIteration() == b->extentForIteration()) return true;
  const int64_t ea = detail::extentOrUnknown(evaluator, a);
  const int64_t eb = detail::extentOrUnknown(evaluator, b);
  return ea >= 0 && ea == eb;
}

void addPositionalPairs(ExprAxisMap& map, const std::vector<IterDomain*>& producerAxes,
                        const std::vector<IterDomain*>& consumerAxes) {
  if (producerAxes.size() > consumerAxes.size()) return;
  const size_t offset = consumerAxes.size() - producerAxes.size();
  for (size_t i = 0; i < producerAxes.size(); ++i) {
    map.pairs.push_back({producerAxes[i], consumerAxes[i + offset]});
  }
}

// Fills `map` (whatever it held before) for `expr`.
void axisMapOf(const Expr* expr, size_t inputIndex, const TensorView* producer,
               const TensorView* consumer, const ir::ExpressionEvaluator* evaluator,
               ExprAxisMap& map) {
  map.traversable = true;
  map.isReshape = false;
  map.pairs.clear();
  map.indexedConsumerAxis = nullptr;
  map.indexedProducerAxis = nullptr;
  map.producerAxes.clear();
  for (IterDomain* id : producer->logical()) {
    if (!id->isReduction()) map.producerAxes.push_back(id);
  }
  const std::vector<IterDomain*>& p = map.producerAxes;
  const auto& c = consumer->logical();
  switch (expr->type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Expand:
    case ExprType::Reduction:
    case ExprType::Welford: addPositionalPairs(map, p, c); break;
    case ExprType::Broadcast: {
      const auto& flags = expr->attrs().broadcastFlags;
      size_t next = 0;
      for (size_t j = 0; j < c.size() && j < flags.size(); ++j) {
        if (!flags[j] && next < p.size()) map.pairs.push_back({p[next++], c[j]});
      }
      break;
    }
    case ExprType::Squeeze: {
      const auto& removed = expr->attrs().axes;
      size_t next = 0;
      for (size_t i = 0; i < p.size(); ++i) {
        if (std::find(removed.begin(), removed.end(), static_cast<int64_t>(i)) != removed.end()) {
          continue;
        }
        if (next < c.size()) map.pairs.push_back({p[i], c[next++]});
      }
      break;
    }
    case ExprType::Permute: {
      const auto& axes = expr->attrs().axes;
      for (size_t i = 0; i < axes.size() && i < c.size(); ++i) {
        if (axes[i] >= 0 && axes[i] < static_cast<int64_t>(p.size())) {
          map.pairs.push_back({p[axes[i]], c[i]});
        }
      }
      break;
    }
    case ExprType::Slice: {
      // [x, start_0, stop_0, step_0, start_1, ...]
      for (size_t i = 0; i < p.size() && i < c.size(); ++i) {
        AxisPair pair{p[i], c[i]};
        if (!sameExtent(evaluator, p[i], c[i])) {
          pair.resized = true;
          auto start = scalarInt(expr->input(1 + 3 * i), evaluator);
          auto step = scalarInt(expr->input(3 + 3 * i), evaluator);
          pair.shiftKnown = start.has_value() && step == 1;
          pair.shift = start.value_or(0);
        }
        map.pairs.push_back(pair);
      }
      break;
    }
    case ExprType::Pad: {
      // [x, value, left_0, right_0, left_1, right_1, ...]
      for (size_t i = 0; i < p.size() && i < c.size(); ++i) {
        AxisPair pair{p[i], c[i]};
        if (!sameExtent(evaluator, p[i], c[i])) {
          pair.resized = true;
          auto left = scalarInt(expr->input(2 + 2 * i), evaluator);
          pair.shiftKnown = left.has_value();
          pair.shift = -left.value_or(0);
        }
        map.pairs.push_back(pair);
      }
      break;
    }
    case ExprType::Cat: {
      const auto dim = static_cast<size_t>(expr->attrs().dim);
      auto [cached, added] = map.catOffsets.try_emplace(expr);
      std::vector<std::pair<int64_t, bool>>& offsets = cached->second;
      if (added) {
        int64_t sum = 0;
        bool allKnown = true;
        for (size_t k = 0; k < expr->inputs().size(); ++k) {
          offsets.emplace_back(sum, allKnown);
          const auto* other = expr->input(k)->as<TensorView>();
          const int64_t extent =
              detail::extentOrUnknown(evaluator, other->logicalNoReductions().at(dim));
          allKnown = allKnown && extent >= 0;
          sum += std::max<int64_t>(extent, 0);
        }
      }
      const auto [before, known] = offsets.at(inputIndex);
      for (size_t i = 0; i < p.size() && i < c.size(); ++i) {
        AxisPair pair{p[i], c[i]};
        if (i == dim && expr->inputs().size() > 1) {
          pair.resized = true;
          pair.shift = -before;
          pair.shiftKnown = known;
        }
        map.pairs.push_back(pair);
      }
      break;
    }
    case ExprType::IndexSelect:
    case ExprType::Gather: {
      const auto dim = static_cast<size_t>(expr->attrs().dim);
      if (inputIndex == 0) {
        for (size_t i = 0; i < p.size() && i < c.size(); ++i) {
          if (i != dim) map.pairs.push_back({p[i], c[i]});
        }
        if (dim < c.size()) map.indexedConsumerAxis = c[dim];
        if (dim < p.size()) map.indexedProducerAxis = p[dim];
      } else if (expr->type() == ExprType::IndexSelect) {
        if (!p.empty() && dim < c.size()) map.pairs.push_back({p[0], c[dim]});
      } else {
        addPositionalPairs(map, p, c);
      }
      break;
    }
    case ExprType::Reshape: map.isReshape = true; break;
    case ExprType::Full:
    case ExprType::Iota:
    case ExprType::Random:
    case ExprType::Matmul:
    case ExprType::Linear:
    case ExprType::Sdpa:
    case ExprType::SdpaBwd:
    case ExprType::Scatter:
    case ExprType::IndexPutAccumulate:
    case ExprType::Embedding:
    case ExprType::Argsort:
    case ExprType::TopK:
    case ExprType::Scan: map.traversable = false; break;
  }
}

AxisPiece lostPiece() {
  AxisPiece piece;
  piece.kind = PieceKind::Lost;
  return piece;
}

AxisPiece broadcastPiece(const IterDomain* id, int64_t extent) {
  AxisPiece piece;
  piece.kind = PieceKind::Broadcast;
  piece.id = id;
  piece.extent = extent;
  return piece;
}

// Maps the pieces of one reference axis across a non-reshape expr.
std::vector<AxisPiece> mapPieces(const std::vector<AxisPiece>& pieces, const ExprAxisMap& map,
                                 bool towardProducer, const ir::ExpressionEvaluator* evaluator,
                                 const Expr* expr, std::string& lostReason) {
  std::vector<AxisPiece> out;
  out.reserve(pieces.size());
  // Only the first reason is kept: the text is built only then.
  auto lose = [&](auto why) {
    if (lostReason.empty()) lostReason = why();
    out.push_back(lostPiece());
  };
  for (const AxisPiece& piece : pieces) {
    if (piece.kind == PieceKind::Lost || piece.kind == PieceKind::Indexed ||
        (piece.kind == PieceKind::Broadcast && piece.id == nullptr)) {
      AxisPiece kept = piece;
      kept.id = nullptr;  // an axis of the tensor we came from
      out.push_back(kept);
      continue;
    }
    const AxisPair* pair = nullptr;
    for (const AxisPair& candidate : map.pairs) {
      if ((towardProducer ? candidate.consumer : candidate.producer) == piece.id) {
        pair = &candidate;
        break;
      }
    }
    if (pair == nullptr) {
      if (towardProducer) {
        if (piece.id == map.indexedConsumerAxis) {
          AxisPiece indexed = piece;
          indexed.kind = PieceKind::Indexed;
          indexed.id = map.indexedProducerAxis;
          out.push_back(indexed);
        } else {
          out.push_back(broadcastPiece(nullptr, piece.extent));
        }
      } else if (piece.extent == 1) {
        continue;
      } else if (piece.id == map.indexedProducerAxis && map.indexedConsumerAxis != nullptr &&
                 map.indexedConsumerAxis->isBroadcast()) {
        // One position per index (a cross-entropy's [N, 1] label lookup):
        // the consumer does not move along the gathered axis.
        out.push_back(broadcastPiece(map.indexedConsumerAxis, piece.extent));
      } else if (piece.id == map.indexedProducerAxis) {
        lose([&] { return reasonText(expr) + " reads that axis through an index"; });
      } else {
        lose([&] { return reasonText(expr) + " drops that axis"; });
      }
      continue;
    }
    const IterDomain* to = towardProducer ? pair->producer : pair->consumer;
    if (piece.kind == PieceKind::Broadcast) {
      // Only a consumer can gain movement along an axis its producer is
      // broadcast on; from this path alone we cannot tell which.
      if (to->isBroadcast()) {
        out.push_back(broadcastPiece(to, piece.extent));
      } else {
        lose([&] { return reasonText(expr) + " makes a broadcast axis concrete"; });
      }
      continue;
    }
    if (to->isBroadcast()) {
      out.push_back(broadcastPiece(to, piece.extent));
      continue;
    }
    if (!pair->shiftKnown) {
      lose([&] { return reasonText(expr) + " has a slice or pad bound unknown here"; });
      continue;
    }
    AxisPiece mapped = piece;
    mapped.id = to;
    mapped.offset = piece.offset + (towardProducer ? pair->shift : -pair->shift);
    // The extent stays the count of reference indices walked: where a
    // reference axis walks several pieces (split by a reshape) the indexing
    // takes each piece's digit of the reference index with it as the radix.
    // A tensor made shorter by a slice is predicated where the walk passes
    // its end (clamped to the sliced [1, 2] of an iota reshaped to [11, 3],
    // the digits were taken as [1, 2] and the output was never written:
    // the differential tester's seed 101386 on an H200).
    if (pair->resized) mapped.resized = true;
    out.push_back(mapped);
  }
  return out;
}

// Maps pieces across a reshape: `from` and `to` are the logical axes on
// either side, related by row-major flattening. A piece covering indices
// step*k (k < extent) of from-axis i covers flat positions Q_i*step*k, where
// Q_i is the product of the extents inner to i; those positions are
// decomposed again over the to-axes.
std::vector<AxisPiece> mapThroughReshape(const std::vector<AxisPiece>& pieces,
                                         const std::vector<IterDomain*>& from,
                                         const std::vector<IterDomain*>& to,
                                         const ir::ExpressionEvaluator* evaluator, const Expr* expr,
                                         std::string& lostReason) {
  std::vector<int64_t> fromExtents, toExtents;
  bool known = true;
  for (const IterDomain* id : from) {
    fromExtents.push_back(detail::extentOrUnknown(evaluator, id));
    known = known && fromExtents.back() >= 0;
  }
  for (const IterDomain* id : to) {
    toExtents.push_back(detail::extentOrUnknown(evaluator, id));
    known = known && toExtents.back() >= 0;
  }
  std::vector<int64_t> fromInner(from.size(), 1), toInner(to.size(), 1);
  for (size_t i = from.size(); i-- > 1;) {
    fromInner[i - 1] = fromInner[i] * std::max<int64_t>(fromExtents[i], 1);
  }
  for (size_t j = to.size(); j-- > 1;) {
    toInner[j - 1] = toInner[j] * std::max<int64_t>(toExtents[j], 1);
  }

  std::vector<AxisPiece> out;
  // Only the first reason is kept: the text is built only then.
  auto lose = [&](auto why) {
    if (lostReason.empty()) lostReason = why();
    out.push_back(lostPiece());
  };
  for (const AxisPiece& original : pieces) {
    // A broadcast axis expanded to more than one element that the reshape
    // regroups with others is materialized by it: the other side walks
    // along it like any axis (a [1, 33 (expanded), 64, 32] reshaped to
    // [1, 2112, 32] walks 64 rows per step of the expanded axis; kept as a
    // broadcast, only the first 64 of 2112 rows were written: the
    // differential tester's seed 1654 on an H200).
    AxisPiece piece = original;
    if (piece.kind == PieceKind::Broadcast && piece.id != nullptr) {
      const auto at = std::find(from.begin(), from.end(), piece.id);
      if (at != from.end() && fromExtents[static_cast<size_t>(at - from.begin())] > 1) {
        piece.kind = PieceKind::Axis;
        piece.extent = fromExtents[static_cast<size_t>(at - from.begin())];
        piece.step = 1;
        piece.offset = 0;
        piece.resized = false;
      }
    }
    if (piece.kind != PieceKind::Axis) {
      AxisPiece kept = piece;
      kept.id = nullptr;
      out.push_back(kept);
      continue;
    }
    auto it = std::find(from.begin(), from.end(), piece.id);
    if (!known || it == from.end() || piece.extent < 0) {
      lose([&] { return reasonText(expr) + " has extents unknown at compile time"; });
      continue;
    }
    if (piece.offset != 0 || piece.resized) {
      lose([&] { return reasonText(expr) + " reshapes a sliced or padded axis"; });
      continue;
    }
    const size_t i = static_cast<size_t>(it - from.begin());
    int64_t position = fromInner[i] * piece.step;
    int64_t remaining = piece.extent;
    while (remaining > 1) {
      size_t j = to.size();
      for (size_t k = 0; k < to.size(); ++k) {
        if (toExtents[k] > 1 && toInner[k] <= position && position < toInner[k] * toExtents[k]) {
          j = k;
          break;
        }
      }
      if (j == to.size() || position % toInner[j] != 0 ||
          toExtents[j] % (position / toInner[j]) != 0) {
        break;
      }
      const int64_t step = position / toInner[j];
      const int64_t available = toExtents[j] / step;
      const int64_t count = std::min(remaining, available);
      if (remaining % count != 0) break;
      AxisPiece mapped;
      mapped.id = to[j];
      mapped.extent = count;
      mapped.step = step;
      out.push_back(mapped);
      position *= count;
      remaining /= count;
    }
    if (remaining > 1) {
      lose([&] {
        return reasonText(expr) + " regroups the axes unevenly (" + shapeString(fromExtents) +
               " to " + shapeString(toExtents) + ")";
      });
    }
  }
  return out;
}

// `from`'s trace carried across `expr` to its producer (towardProducer) or
// consumer; nullopt where the expr's axes cannot be paired.
std::optional<TensorTrace> traceAcross(const TensorTrace& from, const Expr* expr, size_t inputIndex,
                                       const TensorView* producer, const TensorView* consumer,
                                       bool towardProducer,
                                       const ir::ExpressionEvaluator* evaluator, ExprAxisMap& map) {
  axisMapOf(expr, inputIndex, producer, consumer, evaluator, map);
  if (!map.traversable) return std::nullopt;
  TensorTrace next;
  next.tv = towardProducer ? producer : consumer;
  next.lostReason = from.lostReason;
  next.axes.reserve(from.axes.size());
  for (const auto& pieces : from.axes) {
    if (map.isReshape) {
      const auto& producerAxes = producer->logicalNoReductions();
      const auto& consumerAxes = consumer->logicalNoReductions();
      next.axes.push_back(mapThroughReshape(pieces, towardProducer ? consumerAxes : producerAxes,
                                            towardProducer ? producerAxes : consumerAxes, evaluator,
                                            expr, next.lostReason));
    } else {
      next.axes.push_back(mapPieces(pieces, map, towardProducer, evaluator, expr, next.lostReason));
    }
  }
  return next;
}

// How much of the reference a trace resolves, per reference axis: Axis
// pieces only (3), no Lost piece (2), something Lost or nothing (0). A
// tensor's trace is only replaced by one that scores higher.
int score(const TensorTrace& trace) {
  int total = 0;
  for (const auto& pieces : trace.axes) {
    if (pieces.empty()) continue;
    bool allAxis = true;
    bool anyLost = false;
    for (const AxisPiece& piece : pieces) {
      allAxis = allAxis && piece.kind == PieceKind::Axis;
      anyLost = anyLost || piece.kind == PieceKind::Lost;
    }
    total += anyLost ? 0 : allAxis ? 3 : 2;
  }
  return total;
}

}  // namespace

namespace detail {

int64_t extentOrUnknown(const ir::ExpressionEvaluator* evaluator, const IterDomain* id) {
  return evaluatedExtent(evaluator, id).value_or(int64_t{-1});
}

std::optional<TensorTrace> traceAcrossExpr(const TensorTrace& from, const Expr* expr,
                                           size_t inputIndex, const TensorView* producer,
                                           const TensorView* consumer, bool towardProducer,
                                           const ir::ExpressionEvaluator* evaluator) {
  ExprAxisMap map;
  return traceAcross(from, expr, inputIndex, producer, consumer, towardProducer, evaluator, map);
}

}  // namespace detail

bool TensorTrace::moves(size_t refAxis) const {
  const auto& pieces = axes.at(refAxis);
  return std::any_of(pieces.begin(), pieces.end(), [](const AxisPiece& piece) {
    return piece.kind == PieceKind::Axis || piece.kind == PieceKind::Indexed;
  });
}

bool TensorTrace::lost(size_t refAxis) const {
  const auto& pieces = axes.at(refAxis);
  return std::any_of(pieces.begin(), pieces.end(),
                     [](const AxisPiece& piece) { return piece.kind == PieceKind::Lost; });
}

int64_t* AxisTrace::slot(const TensorView* tv) {
  return const_cast<int64_t*>(std::as_const(*this).slot(tv));
}

const int64_t* AxisTrace::slot(const TensorView* tv) const {
  const auto id = static_cast<size_t>(tv->id());
  if (id >= index_.size() || fusion_->vals()[id].get() != tv) return nullptr;
  return &index_[id];
}

AxisTrace::AxisTrace(const ir::Fusion& segment, const TensorView* reference,
                     const ir::ExpressionEvaluator* evaluator,
                     const std::vector<uint8_t>* exprsInView)
    : evaluator_(evaluator),
      exprsInView_(exprsInView),
      reference_(reference),
      fusion_(reference->fusion()),
      index_(fusion_->vals().size(), -1) {
  const auto axes = allocationIsPermutation(reference)
                        ? ir::noReductions(reference->maybeAllocation())
                        : reference->logicalNoReductions();
  TensorTrace seed;
  seed.tv = reference;
  seed.axes.reserve(axes.size());
  for (const IterDomain* id : axes) {
    referenceAxes_.push_back(id);
    const int64_t extent = detail::extentOrUnknown(evaluator, id);
    referenceExtents_.push_back(extent);
    std::vector<AxisPiece> pieces;
    if (extent == 1 || (id->isBroadcast() && !id->hasExpandedExtent())) {
      // A size-1 axis: walking along it goes nowhere.
    } else if (id->isBroadcast()) {
      pieces.push_back(broadcastPiece(id, extent));
    } else {
      AxisPiece piece;
      piece.id = id;
      piece.extent = extent;
      pieces.push_back(piece);
    }
    seed.axes.push_back(std::move(pieces));
  }

  // No trace scores more than 3 per reference axis that walks somewhere.
  int bestScore = 0;
  for (const auto& pieces : seed.axes) bestScore += pieces.empty() ? 0 : 3;
  std::vector<int> scores;  // score of traces_[i]

  std::deque<size_t> queue;
  ExprAxisMap map;  // filled again for each expr followed
  auto offer = [&](TensorTrace trace) {
    int64_t* at = slot(trace.tv);
    FL_ASSERT(at != nullptr, trace.tv->name(), " is not of the reference's fusion");
    if (*at < 0) {
      *at = static_cast<int64_t>(traces_.size());
      queue.push_back(traces_.size());
      scores.push_back(score(trace));
      traces_.push_back(std::move(trace));
    } else if (trace.tv != reference_) {
      const int s = score(trace);
      const auto i = static_cast<size_t>(*at);
      if (s > scores[i]) {
        traces_[i] = std::move(trace);
        scores[i] = s;
        queue.push_back(i);
      }
    }
  };
  auto propagate = [&](const TensorTrace& from, const Expr* expr, size_t inputIndex,
                       const TensorView* producer, const TensorView* consumer,
                       bool towardProducer) {
    // A tensor whose trace nothing can replace (the reference's, or one
    // with the best score) is not offered another: offer would keep it.
    const TensorView* target = towardProducer ? producer : consumer;
    if (const int64_t* at = slot(target);
        at != nullptr && *at >= 0 && (target == reference_ || scores[*at] >= bestScore)) {
      return;
    }
    if (std::optional<TensorTrace> next = traceAcross(from, expr, inputIndex, producer, consumer,
                                                      towardProducer, evaluator_, map)) {
      offer(std::move(*next));
    }
  };

  auto inView = [&](const Expr* expr) {
    return exprsInView_ == nullptr || (*exprsInView_)[static_cast<size_t>(expr->id())] != 0;
  };
  offer(std::move(seed));
  while (!queue.empty()) {
    // traces_ is a deque: offering traces of other tensors (appended, or
    // replacing theirs) leaves this one in place.
    const TensorTrace& current = traces_[queue.front()];
    queue.pop_front();
    const TensorView* tv = current.tv;
    if (const Expr* def = tv->definition(); def != nullptr && inView(def)) {
      for (size_t k = 0; k < def->inputs().size(); ++k) {
        if (const auto* producer = def->input(k)->as<TensorView>()) {
          propagate(current, def, k, producer, tv, /*towardProducer=*/true);
        }
      }
    }
    for (const Expr* use : tv->uses()) {
      if (!inView(use)) continue;
      for (size_t k = 0; k < use->inputs().size(); ++k) {
        if (use->input(k) != tv) continue;
        for (const ir::Val* out : use->outputs()) {
          if (const auto* consumer = out->as<TensorView>()) {
            propagate(current, use, k, tv, consumer, /*towardProducer=*/false);
          }
        }
      }
    }
  }
}

const TensorTrace* AxisTrace::find(const TensorView* tv) const {
  const int64_t* at = slot(tv);
  return at == nullptr || *at < 0 ? nullptr : &traces_[*at];
}

// Axis `axis` of `tv` is read only at positions an index tensor gives: every
// use of `tv` in view is a take_along_axis / index_select along it (the
// reference may have that axis at extent 1, as a cross-entropy's label
// lookup [N, 1] from [N, C]). The kernel reads it at the index's value.
bool AxisTrace::readOnlyThroughIndex(const TensorView* tv, size_t axis) const {
  bool any = false;
  for (const Expr* use : tv->uses()) {
    if (exprsInView_ != nullptr && (*exprsInView_)[static_cast<size_t>(use->id())] == 0) {
      continue;
    }
    const bool indexing =
        (use->type() == ExprType::Gather || use->type() == ExprType::IndexSelect) &&
        use->input(0) == tv;
    if (!indexing) return false;
    const auto rank = static_cast<int64_t>(tv->logicalNoReductions().size());
    int64_t dim = use->attrs().dim;
    if (dim < 0) dim += rank;
    if (dim != static_cast<int64_t>(axis)) return false;
    any = true;
  }
  return any;
}

const TensorView* largestOutput(const ir::Fusion& segment,
                                const ir::ExpressionEvaluator* evaluator) {
  std::vector<const TensorView*> outputs;
  for (const ir::Val* val : segment.outputVals()) {
    if (const auto* tv = val->as<TensorView>()) outputs.push_back(tv);
  }
  return largestTensor(outputs, evaluator);
}

const TensorView* largestTensor(const std::vector<const TensorView*>& tensors,
                                const ir::ExpressionEvaluator* evaluator) {
  const TensorView* best = nullptr;
  int64_t bestElements = -1;
  int64_t bestRank = -1;
  for (const TensorView* tv : tensors) {
    int64_t elements = 1;
    for (const IterDomain* id : tv->logicalNoReductions()) {
      const int64_t extent = detail::extentOrUnknown(evaluator, id);
      // Unknown extents count as large: ranks decide between them.
      elements = extent < 0 ? elements : elements * extent;
    }
    const int64_t rank = tv->rank();
    if (best == nullptr || elements > bestElements ||
        (elements == bestElements && rank > bestRank)) {
      best = tv;
      bestElements = elements;
      bestRank = rank;
    }
  }
  return best;
}

}  // namespace fuserlab::scheduler
