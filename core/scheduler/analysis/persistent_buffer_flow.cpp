#include "core/scheduler/analysis/persistent_buffer_flow.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/ir/error.h"
#include "core/scheduler/analysis/analysis_cache.h"

namespace fuserlab::scheduler::persistent_flow {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::TensorView;

// For each non-reduction axis of `input`, the non-reduction axis of `expr`'s
// outputs it becomes (-1 where it has none: reduced, squeezed); nullopt when
// the op does not keep axes apart (reshape, slice, pad, cat, gather, ...).
std::optional<std::vector<int64_t>> inputToOutputAxes(const Expr& expr, const TensorView& input) {
  const int64_t inRank = input.rank();
  const auto* out = expr.output(0)->as<TensorView>();
  if (out == nullptr) return std::nullopt;
  const int64_t outRank = out->rank();
  std::vector<int64_t> map(inRank, -1);
  const auto& attrs = expr.attrs();
  switch (expr.type()) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::SegmentSet:
    case ExprType::Expand:
      // Equal ranks pair by position; a 0-dim operand has no axes.
      if (inRank != 0 && inRank != outRank) return std::nullopt;
      for (int64_t i = 0; i < inRank; ++i) map[i] = i;
      return map;
    case ExprType::Broadcast: {
      int64_t next = 0;
      for (int64_t o = 0; o < static_cast<int64_t>(attrs.broadcastFlags.size()); ++o) {
        if (!attrs.broadcastFlags[o] && next < inRank) map[next++] = o;
      }
      return map;
    }
    case ExprType::Squeeze:
    case ExprType::Reduction:
    case ExprType::Welford: {
      int64_t next = 0;
      for (int64_t i = 0; i < inRank; ++i) {
        const bool removed = std::find(attrs.axes.begin(), attrs.axes.end(), i) != attrs.axes.end();
        map[i] = removed ? -1 : next++;
      }
      return map;
    }
    case ExprType::Permute:
      for (int64_t o = 0; o < static_cast<int64_t>(attrs.axes.size()); ++o) {
        const int64_t i = attrs.axes[o];
        if (i >= 0 && i < inRank) map[i] = o;
      }
      return map;
    default: return std::nullopt;
  }
}

// Ops a projected buffer may be recomputed through: cheap, one output
// element from the matching input elements.
bool isRecomputable(ExprType type) {
  switch (type) {
    case ExprType::Unary:
    case ExprType::Binary:
    case ExprType::Ternary:
    case ExprType::Cast:
    case ExprType::Set:
    case ExprType::Broadcast:
    case ExprType::Expand:
    case ExprType::Permute:
    case ExprType::Squeeze:
    case ExprType::Full:
    case ExprType::Iota: return true;
    default: return false;
  }
}

}  // namespace

// A transcendental function: a libdevice call or a MUFU sequence of tens of
// instructions, as opposed to arithmetic, comparisons, casts and data
// movement.
bool isTranscendental(const Expr& expr) {
  using ir::UnaryOpType;
  if (expr.type() == ir::ExprType::Binary) {
    const ir::BinaryOpType op = expr.attrs().binaryOp;
    return op == ir::BinaryOpType::Pow || op == ir::BinaryOpType::Atan2;
  }
  if (expr.type() != ir::ExprType::Unary) return false;
  switch (expr.attrs().unaryOp) {
    case UnaryOpType::Exp:
    case UnaryOpType::Exp2:
    case UnaryOpType::Expm1:
    case UnaryOpType::Log:
    case UnaryOpType::Log1p:
    case UnaryOpType::Log2:
    case UnaryOpType::Log10:
    case UnaryOpType::Sin:
    case UnaryOpType::Cos:
    case UnaryOpType::Tan:
    case UnaryOpType::Asin:
    case UnaryOpType::Acos:
    case UnaryOpType::Atan:
    case UnaryOpType::Sinh:
    case UnaryOpType::Cosh:
    case UnaryOpType::Tanh:
    case UnaryOpType::Asinh:
    case UnaryOpType::Acosh:
    case UnaryOpType::Atanh:
    case UnaryOpType::Sigmoid:
    case UnaryOpType::Silu:
    case UnaryOpType::Erf:
    case UnaryOpType::Erfc:
    case UnaryOpType::Erfinv:
    case UnaryOpType::Lgamma: return true;
    default: return false;
  }
}

namespace {

// Tensor states with the list of those set, so that clearing costs what was
// set.
class StateTable {
 public:
  explicit StateTable(std::vector<RowAxes>& states, std::vector<size_t>& touched)
      : states_(states), touched_(touched) {}
  const RowAxes& get(size_t t) const { return states_[t]; }
  RowAxes& touch(size_t t, int64_t rank) {
    RowAxes& s = states_[t];
    if (!s.reached) {
      s.reached = true;
      touched_.push_back(t);
    }
    if (s.axes.empty() && rank > 0) s.axes.assign(static_cast<size_t>(rank), false);
    return s;
  }
  void clear() {
    for (size_t t : touched_) states_[t] = RowAxes{};
    touched_.clear();
  }

 private:
  std::vector<RowAxes>& states_;
  std::vector<size_t>& touched_;
};

// Walks exprs `high` down to `low` + 1 back from the tensors reached so far,
// carrying their row axes to the tensors they are computed from; `onFeeds`
// is called with each expr that leads on.
template <typename OnFeeds>
void walkBack(const Dataflow& flow, int64_t high, int64_t low, StateTable& table,
              OnFeeds&& onFeeds) {
  std::vector<size_t> fed;
  for (int64_t i = high; i > low; --i) {
    fed.clear();
    for (size_t o : flow.outputsOf[i]) {
      if (table.get(o).reached) fed.push_back(o);
    }
    if (fed.empty()) continue;
    onFeeds(static_cast<size_t>(i));
    const Expr* e = flow.exprs[i];
    for (size_t p : flow.inputsOf[i]) {
      const TensorView* producer = flow.tensors[p];
      RowAxes& ps = table.touch(p, producer->rank());
      const auto map = inputToOutputAxes(*e, *producer);
      for (size_t o : fed) {
        const RowAxes& os = table.get(o);
        if (!map || os.unknown) {
          ps.unknown = true;
          continue;
        }
        for (size_t j = 0; j < map->size(); ++j) {
          const int64_t oAxis = (*map)[j];
          if (oAxis >= 0 && oAxis < static_cast<int64_t>(os.axes.size()) &&
              os.axes[static_cast<size_t>(oAxis)]) {
            ps.axes[j] = true;
          }
        }
      }
    }
  }
}

std::string keyOf(const RowAxes& s) {
  std::string key(s.unknown ? "?" : "");
  for (bool b : s.axes) key += b ? '1' : '0';
  return key;
}

template <typename T, typename Owned>
size_t ownId(const T* x, const std::vector<Owned>& owned) {
  const auto id = static_cast<size_t>(x->id());
  FL_ASSERT(id < owned.size() && owned[id].get() == x,
            "a statement of another fusion in the segment's dataflow");
  return id;
}

template <typename T, typename Owned>
std::optional<size_t> slot(const T* x, const std::vector<Owned>& owned,
                           const std::vector<int64_t>& slots) {
  const auto id = static_cast<size_t>(x->id());
  if (id >= owned.size() || owned[id].get() != x || slots[id] < 0) return std::nullopt;
  return static_cast<size_t>(slots[id]);
}

RowAxes stateIn(const Block& block, size_t tensor) {
  const RowAxes* s = block.find(tensor);
  return s ? *s : RowAxes{};
}

}  // namespace

Dataflow::Dataflow(const ir::Fusion& segment)
    : segment_(&segment),
      exprSlots_(segment.exprs().size(), -1),
      tensorSlots_(segment.vals().size(), -1) {
  for (const Expr* e : liveExprs(segment)) {
    exprSlots_[ownId(e, segment.exprs())] = static_cast<int64_t>(exprs.size());
    exprs.push_back(e);
  }
  auto addTensor = [&](const ir::Val* val) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr || tensorIndex(tv)) return;
    tensorSlots_[ownId(tv, segment_->vals())] = static_cast<int64_t>(tensors.size());
    tensors.push_back(tv);
  };
  for (const ir::Val* val : segment.inputs()) addTensor(val);
  for (const Expr* e : exprs) {
    for (const ir::Val* val : e->inputs()) addTensor(val);
    for (const ir::Val* val : e->outputs()) addTensor(val);
  }
  const size_t nExprs = exprs.size();
  const size_t nTensors = tensors.size();
  consumers.resize(nTensors);
  inputsOf.resize(nExprs);
  outputsOf.resize(nExprs);
  std::vector<int64_t> definition(nTensors, -1);
  for (size_t i = 0; i < nExprs; ++i) {
    for (const ir::Val* val : exprs[i]->inputs()) {
      const auto t = tensorIndex(val);
      if (!t) continue;
      inputsOf[i].push_back(*t);
      auto& list = consumers[*t];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
    for (const ir::Val* val : exprs[i]->outputs()) {
      if (const auto t = tensorIndex(val)) {
        outputsOf[i].push_back(*t);
        definition[*t] = static_cast<int64_t>(i);
      }
    }
  }
  std::vector<char> isOutput(nTensors, 0);
  for (const ir::FusionOutput& output : segment.outputs()) {
    if (const auto t = tensorIndex(output.val)) isOutput[*t] = 1;
  }
  // Each tensor lives across the boundaries [start, end): from its
  // definition (or first reader) to its last reader, a segment output to the
  // end. A difference array counts them per boundary and sums their indices,
  // which names the tensor where the count is one.
  start.assign(nTensors, -1);
  std::vector<int64_t> count(nExprs + 1, 0), sum(nExprs + 1, 0);
  for (size_t t = 0; t < nTensors; ++t) {
    const auto& readers = consumers[t];
    int64_t end = 0;
    if (definition[t] >= 0) {
      start[t] = definition[t];
      end = isOutput[t] ? static_cast<int64_t>(nExprs)
                        : (readers.empty() ? start[t] : static_cast<int64_t>(readers.back()));
    } else if (!readers.empty()) {
      start[t] = static_cast<int64_t>(readers.front());
      end = static_cast<int64_t>(readers.back());
    } else {
      continue;
    }
    if (end <= start[t]) continue;
    count[start[t]] += 1;
    count[end] -= 1;
    sum[start[t]] += static_cast<int64_t>(t);
    sum[end] -= static_cast<int64_t>(t);
  }
  cutTensor.assign(nExprs, -1);
  int64_t live = 0, ids = 0;
  for (size_t p = 0; p < nExprs; ++p) {
    live += count[p];
    ids += sum[p];
    if (live == 1) cutTensor[p] = ids;
  }
  prevCut.assign(nExprs, -1);
  nextCut.assign(nExprs, -1);
  for (size_t i = 0; i < nExprs; ++i) {
    prevCut[i] = cutTensor[i] >= 0 ? static_cast<int64_t>(i) : (i > 0 ? prevCut[i - 1] : -1);
  }
  for (size_t i = nExprs; i-- > 0;) {
    nextCut[i] =
        cutTensor[i] >= 0 ? static_cast<int64_t>(i) : (i + 1 < nExprs ? nextCut[i + 1] : -1);
  }
}

std::optional<size_t> Dataflow::exprIndex(const Expr* e) const {
  return slot(e, segment_->exprs(), exprSlots_);
}
std::optional<size_t> Dataflow::tensorIndex(const ir::Val* val) const {
  return slot(val, segment_->vals(), tensorSlots_);
}
size_t Dataflow::exprAt(const Expr* e) const {
  const auto i = exprIndex(e);
  FL_ASSERT(i.has_value(), e->toString(), " is not a live expr of the segment");
  return *i;
}
size_t Dataflow::tensorAt(const ir::Val* val) const {
  const auto i = tensorIndex(val);
  FL_ASSERT(i.has_value(), val->name(), " is not a tensor of the segment");
  return *i;
}

const RowAxes* Block::find(size_t tensor) const {
  const auto it =
      std::lower_bound(states.begin(), states.end(), tensor,
                       [](const std::pair<size_t, RowAxes>& s, size_t t) { return s.first < t; });
  return it != states.end() && it->first == tensor ? &it->second : nullptr;
}

size_t BelowCuts::block(int64_t high, const RowAxes& entry) {
  const auto key = std::make_pair(high, keyOf(entry));
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  Block block;
  block.high = high;
  block.low = high > 0 ? flow_.prevCut[high - 1] : -1;
  scratch_.resize(flow_.tensors.size());
  std::vector<size_t> touched;
  StateTable table(scratch_, touched);
  const auto u = static_cast<size_t>(flow_.cutTensor[high]);
  table.touch(u, 0) = entry;
  walkBack(flow_, high, block.low, table, [](size_t) {});
  if (block.low >= 0) {
    const RowAxes& low = scratch_[static_cast<size_t>(flow_.cutTensor[block.low])];
    if (low.reached) block.lowEntry = low;
  }
  std::vector<size_t> sorted = touched;
  std::sort(sorted.begin(), sorted.end());
  for (size_t t : sorted) block.states.emplace_back(t, scratch_[t]);
  table.clear();
  blocks_.push_back(std::move(block));
  ids_.emplace(key, blocks_.size() - 1);
  return blocks_.size() - 1;
}

std::optional<size_t> BelowCuts::next(size_t id) {
  if (blocks_[id].next) return blocks_[id].next;
  if (!blocks_[id].lowEntry) return std::nullopt;
  const int64_t low = blocks_[id].low;
  const RowAxes entry = *blocks_[id].lowEntry;
  const size_t n = block(low, entry);
  blocks_[id].next = n;
  return n;
}

Workspace::Workspace(const Dataflow& flow)
    : states(flow.tensors.size()),
      feeds(flow.exprs.size(), 0),
      after(flow.exprs.size(), 0),
      reaches(flow.exprs.size(), 0),
      visited(flow.tensors.size(), 0),
      afterTensor(flow.tensors.size(), 0) {}

ReductionFlow::ReductionFlow(const Dataflow& flow, BelowCuts& below, Workspace& work,
                             const ReductionInfo& reduction)
    : flow_(flow), below_(below), work_(work) {
  StateTable table(work.states, work.touchedTensors);
  table.clear();
  for (size_t e : work.touchedExprs) work.feeds[e] = work.after[e] = work.reaches[e] = 0;
  work.touchedExprs.clear();
  for (size_t t : work.afterTensors) work.afterTensor[t] = 0;
  work.afterTensors.clear();
  const auto touchExpr = [&](size_t e, std::vector<char>& flags) {
    if (!work.feeds[e] && !work.after[e] && !work.reaches[e]) work.touchedExprs.push_back(e);
    flags[e] = 1;
  };

  const int64_t nExprs = static_cast<int64_t>(flow.exprs.size());
  r_ = static_cast<int64_t>(flow.exprAt(reduction.expr));
  low_ = r_ > 0 ? flow.prevCut[r_ - 1] : -1;
  high_ = flow.nextCut[r_] >= 0 ? flow.nextCut[r_] : nExprs - 1;
  cutTensor_ = low_ >= 0 ? flow.cutTensor[low_] : -1;

  // Backwards from the reduced tensor, carrying its reduced axes, down to
  // the cut below.
  touchExpr(static_cast<size_t>(r_), work.feeds);
  RowAxes& x = table.touch(flow.tensorAt(reduction.input), 0);
  x.axes.assign(reduction.input->rank(), false);
  for (int64_t axis : reduction.axes) x.axes[axis] = true;
  walkBack(flow, r_ - 1, low_, table, [&](size_t e) { touchExpr(e, work.feeds); });

  // Forwards from the reduction's outputs, up to the cut after it.
  const auto markAfter = [&](size_t t) {
    if (!work.afterTensor[t]) work.afterTensors.push_back(t);
    work.afterTensor[t] = 1;
  };
  for (size_t o : flow.outputsOf[r_]) markAfter(o);
  for (int64_t i = r_ + 1; i <= high_; ++i) {
    bool reads = false;
    for (size_t p : flow.inputsOf[i]) reads = reads || work.afterTensor[p];
    if (!reads) continue;
    touchExpr(static_cast<size_t>(i), work.after);
    afterExprs_.push_back(static_cast<size_t>(i));
    for (size_t o : flow.outputsOf[i]) markAfter(o);
  }
  // Which exprs reach one that reads the result. Past the cut after the
  // reduction only its tensor is read; its readers read the result when it
  // carries it.
  for (int64_t i = high_; i > low_; --i) {
    bool reach = work.after[i] != 0;
    for (size_t o : flow.outputsOf[i]) {
      for (size_t d : flow.consumers[o]) {
        if (reach) break;
        reach = static_cast<int64_t>(d) > high_ ? work.afterTensor[o] != 0 : work.reaches[d] != 0;
      }
    }
    if (reach) touchExpr(static_cast<size_t>(i), work.reaches);
  }
}

std::vector<size_t> ReductionFlow::candidates() const {
  std::vector<size_t> out = work_.touchedTensors;
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<size_t> ReductionFlow::laterUse(size_t tensor) const {
  // A reader below the cut (only the cut's tensor has one) leads nowhere past
  // it; one past the next cut reads a tensor that does not carry the result.
  for (size_t c : flow_.consumers[tensor]) {
    const auto i = static_cast<int64_t>(c);
    if (i <= low_ || i > high_) continue;
    if (!work_.feeds[c] && work_.reaches[c]) return c;
  }
  return std::nullopt;
}

bool ReductionFlow::holdsRows(size_t tensor, const RowAxes& state) const {
  if (state.unknown) return true;
  const std::vector<IterDomain*>& axes = flow_.tensors[tensor]->logicalNoReductions();
  bool any = false;
  for (size_t j = 0; j < state.axes.size() && j < axes.size(); ++j) {
    if (!state.axes[j]) continue;
    if (axes[j]->isBroadcast()) return false;
    any = true;
  }
  return any;
}

std::optional<size_t> ReductionFlow::entryBlock() {
  if (entryBlock_) return entryBlock_;
  if (cutTensor_ < 0) return std::nullopt;
  const RowAxes& u = work_.states[static_cast<size_t>(cutTensor_)];
  if (!u.reached) return std::nullopt;
  entryBlock_ = below_.block(low_, u);
  return entryBlock_;
}

RowAxes ReductionFlow::state(size_t tensor) {
  if (flow_.start[tensor] > low_ || static_cast<int64_t>(tensor) == cutTensor_) {
    return work_.states[tensor];
  }
  std::optional<size_t> id = entryBlock();
  while (id) {
    const Block& block = below_.at(*id);
    if (flow_.start[tensor] > block.low ||
        static_cast<int64_t>(tensor) == flow_.cutTensor[block.high]) {
      return stateIn(block, tensor);
    }
    id = below_.next(*id);
  }
  return RowAxes{};
}

std::vector<size_t> ReductionFlow::afterBeyond() const {
  const int64_t nExprs = static_cast<int64_t>(flow_.exprs.size());
  if (high_ >= nExprs - 1 || flow_.cutTensor[high_] < 0) return {};
  const auto v = static_cast<size_t>(flow_.cutTensor[high_]);
  if (!work_.afterTensor[v]) return {};
  std::vector<size_t> out;
  for (size_t d : flow_.consumers[v]) {
    if (static_cast<int64_t>(d) > high_) out.push_back(d);
  }
  return out;
}

void project(const Dataflow& flow, ReductionFlow& reduction, BelowCuts& below, Workspace& work,
             size_t buffer, PersistentBuffer& out) {
  const TensorView* tv = flow.tensors[buffer];
  if (tv->isFusionInput()) {
    out.notProjectableReason = tv->name() + " is an input of the segment";
    return;
  }
  for (size_t t : work.visitedTensors) work.visited[t] = 0;
  work.visitedTensors.clear();
  const auto visit = [&](size_t t) {
    work.visited[t] = 1;
    work.visitedTensors.push_back(t);
  };
  // A phase is the walk below a cut, entered at its tensor: it ends when the
  // marker pushed under that walk comes off the stack, and is remembered.
  struct Phase {
    size_t block;
    size_t foundStart;
    int64_t transcendentalsStart;
  };
  constexpr size_t kEndOfPhase = std::numeric_limits<size_t>::max();
  std::vector<size_t> stack{buffer};
  std::vector<Phase> phases;
  std::vector<size_t> found;
  int64_t transcendentals = 0;
  visit(buffer);
  const auto fail = [&](const std::string& reason) {
    for (const Phase& phase : phases) {
      below.projections[phase.block] =
          Projection{false, reason, transcendentals > phase.transcendentalsStart, {}};
    }
    out.notProjectableReason = reason;
    out.recomputesTranscendental = transcendentals > 0;
  };
  while (!stack.empty()) {
    const size_t t = stack.back();
    stack.pop_back();
    if (t == kEndOfPhase) {
      const Phase phase = phases.back();
      phases.pop_back();
      below.projections[phase.block] = Projection{
          true, "", transcendentals > phase.transcendentalsStart,
          std::vector<size_t>(found.begin() + static_cast<int64_t>(phase.foundStart), found.end())};
      continue;
    }
    // The tensor of the cut below what is being walked: everything under it
    // is reached through it alone.
    std::optional<size_t> entered;
    if (phases.empty()) {
      if (reduction.cutTensor() == t) entered = reduction.entryBlock();
    } else {
      const Block& block = below.at(phases.back().block);
      if (block.low >= 0 && flow.cutTensor[block.low] == static_cast<int64_t>(t)) {
        entered = below.next(phases.back().block);
      }
    }
    if (entered) {
      if (const auto memo = below.projections.find(*entered); memo != below.projections.end()) {
        const Projection known = memo->second;
        if (known.transcendental) ++transcendentals;
        if (!known.ok) {
          fail(known.reason);
          return;
        }
        found.insert(found.end(), known.found.begin(), known.found.end());
        continue;
      }
      phases.push_back({*entered, found.size(), transcendentals});
      stack.push_back(kEndOfPhase);
    }
    const RowAxes state =
        phases.empty() ? reduction.state(t) : stateIn(below.at(phases.back().block), t);
    if (!reduction.holdsRows(t, state)) continue;  // per-row values are free
    const TensorView* current = flow.tensors[t];
    if (current->isFusionInput()) {
      found.push_back(t);
      continue;
    }
    const Expr* definition = current->definition();
    const auto index = definition ? flow.exprIndex(definition) : std::nullopt;
    if (!index) {
      fail(current->name() + " has no definition in the segment");
      return;
    }
    if (!isRecomputable(definition->type())) {
      fail(current->name() + " is computed by " + definition->opName() +
           ", which a projection does not recompute");
      return;
    }
    if (isTranscendental(*definition)) ++transcendentals;
    for (size_t p : flow.inputsOf[*index]) {
      if (!work.visited[p]) {
        visit(p);
        stack.push_back(p);
      }
    }
  }
  out.projectable = true;
  out.recomputesTranscendental = transcendentals > 0;
  std::sort(found.begin(), found.end());  // tensor indices: input order first
  for (size_t t : found) out.projectedTo.push_back(flow.tensors[t]);
}

}  // namespace fuserlab::scheduler::persistent_flow
