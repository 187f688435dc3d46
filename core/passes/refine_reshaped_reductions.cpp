#include "core/passes/refine_reshaped_reductions.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/elementwise.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/broadcast_shape.h"
#include "core/ops/normalization.h"
#include "core/passes/dead_code.h"

namespace fuserlab::passes {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::IterDomain;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

// The axes [first, second) of the refinement that one axis of a tensor covers.
using Block = std::pair<size_t, size_t>;
using Blocks = std::vector<Block>;

// The common refinement of a reshape's two shapes: its axes' extents at the
// bound sizes and as scalars, and the block of it each side's axis covers.
struct Refinement {
  std::vector<int64_t> extents;
  std::vector<Scalar*> scalars;
  Blocks inBlocks;
  Blocks outBlocks;
};

std::string shapeText(const std::vector<int64_t>& extents) {
  std::string text = "[";
  for (size_t i = 0; i < extents.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(extents[i]);
  }
  return text + "]";
}

// One side of the walk below: an axis list and the part of the current axis
// not yet given to the refinement.
struct Side {
  const std::vector<IterDomain*>& axes;
  size_t index = 0;
  int64_t left = 0;
  Scalar* leftScalar = nullptr;
  bool whole = true;  // nothing of the current axis given yet
  size_t blockBegin = 0;
  Blocks blocks;
};

// Where both sides are row-major views of one sequence, the finest shape in
// which every axis of either is a run of consecutive axes: each step gives the
// refinement the smaller of the two sides' remainders, which must divide the
// larger. Nullopt where they do not nest (or a side has an expanded axis).
std::optional<Refinement> refine(ir::Fusion& fusion, const ir::ExpressionEvaluator& evaluator,
                                 const std::vector<IterDomain*>& in,
                                 const std::vector<IterDomain*>& out) {
  if (in.empty() || out.empty()) return std::nullopt;
  for (const auto* axes : {&in, &out}) {
    for (const IterDomain* id : *axes) {
      if (id->hasExpandedExtent() || evaluator.evaluateExtent(id) <= 0) return std::nullopt;
    }
  }
  Refinement r;
  Side sides[2] = {Side{in, 0, 0, nullptr, true, 0, {}}, Side{out, 0, 0, nullptr, true, 0, {}}};
  auto start = [&](Side& side) {
    if (side.index >= side.axes.size()) return;
    side.left = evaluator.evaluateExtent(side.axes[side.index]);
    side.leftScalar = side.axes[side.index]->extent();
    side.whole = true;
    side.blockBegin = r.extents.size();
  };
  auto finish = [&](Side& side) {
    side.blocks.emplace_back(side.blockBegin, r.extents.size());
    ++side.index;
    start(side);
  };
  start(sides[0]);
  start(sides[1]);
  while (sides[0].index < in.size() && sides[1].index < out.size()) {
    Side& a = sides[0];
    Side& b = sides[1];
    if (a.left == 1 || b.left == 1) {
      // An axis of extent 1 is an axis of its own (a remainder is never 1:
      // a division leaves at least 2), in the other side's current block.
      const bool aOne = a.left == 1;
      const bool bOne = b.left == 1;
      r.extents.push_back(1);
      r.scalars.push_back(aOne ? a.leftScalar : b.leftScalar);
      if (aOne) finish(a);
      if (bOne) finish(b);
      continue;
    }
    if (a.left == b.left) {
      r.extents.push_back(a.left);
      r.scalars.push_back(a.whole || !b.whole ? a.leftScalar : b.leftScalar);
      finish(a);
      finish(b);
      continue;
    }
    Side& small = a.left < b.left ? a : b;
    Side& large = a.left < b.left ? b : a;
    if (large.left % small.left != 0) return std::nullopt;
    r.extents.push_back(small.left);
    r.scalars.push_back(small.leftScalar);
    large.left /= small.left;
    large.leftScalar =
        fusion.scalarBinary(ir::BinaryOpType::Div, large.leftScalar, small.leftScalar);
    large.whole = false;
    finish(small);
  }
  if (sides[0].index != in.size() || sides[1].index != out.size()) return std::nullopt;
  r.inBlocks = std::move(sides[0].blocks);
  r.outBlocks = std::move(sides[1].blocks);
  return r;
}

size_t width(const Block& block) { return block.second - block.first; }

// A tensor of the original fusion and its counterpart in the refinement.
struct Placed {
  TensorView* refined = nullptr;
  Blocks blocks;
  //! Rebuilt from the seed on (its readers are rebuilt too), not an operand
  //! lifted into the refinement.
  bool forwarded = false;
};

class Rewriter {
 public:
  Rewriter(ir::Fusion& fusion, const ir::ExpressionEvaluator& evaluator, Refinement refinement)
      : fusion_(fusion), evaluator_(evaluator), r_(std::move(refinement)) {}

  const Refinement& refinement() const { return r_; }
  const std::string& failure() const { return failure_; }
  bool reachedReduction() const { return reachedReduction_; }
  //! Reshapes after the seed that became renamings.
  int renamedReshapes() const { return renamedReshapes_; }
  //! Whether a reduction reduces part of an axis of the seed's input and
  //! keeps the rest (GroupNorm's channels: the group's share reduced, the
  //! groups kept). Where none does, every row is whole axes of the input
  //! already, and the input's own kernels need no refinement.
  bool cutsAnInputAxis() const {
    for (const Block& block : r_.inBlocks) {
      size_t reduced = 0;
      for (size_t f = block.first; f < block.second; ++f) reduced += reducedAxes_.count(f);
      if (reduced > 0 && reduced < width(block)) return true;
    }
    return false;
  }
  //! How many tensors of the original fusion were rebuilt from the seed on.
  int rebuilt() const { return rebuilt_; }
  const std::vector<Val*>& created() const { return created_; }
  const Placed* placed(const TensorView* tv) const {
    auto it = placed_.find(tv);
    return it == placed_.end() ? nullptr : &it->second;
  }

  // `tv` (an input of the fusion, or built from one by elementwise ops,
  // broadcasts and expands) in the refinement, its axes covering `blocks`.
  TensorView* lift(TensorView* tv, const Blocks& blocks) {
    if (const Placed* known = placed(tv)) {
      return known->blocks == blocks ? known->refined : fail(tv, "is placed differently");
    }
    const std::vector<IterDomain*>& axes = tv->logicalNoReductions();
    if (!fits(tv, blocks)) return nullptr;
    bool split = false;
    for (const Block& block : blocks) split = split || width(block) != 1;
    if (!split) return remember(tv, tv, blocks);
    const Expr* def = tv->definition();
    if (def != nullptr && ir::isElementwiseMath(def->type())) {
      std::vector<Val*> inputs;
      for (Val* in : def->inputs()) {
        auto* operand = in->as<TensorView>();
        if (operand == nullptr) {
          inputs.push_back(in);
          continue;
        }
        TensorView* lifted = lift(operand, blocks);
        if (lifted == nullptr) return nullptr;
        inputs.push_back(lifted);
      }
      return remember(tv, elementwise(*def, inputs, tv), blocks);
    }
    if (def != nullptr && def->type() == ExprType::Broadcast) {
      const std::vector<bool>& flags = def->attrs().broadcastFlags;
      Blocks kept;
      for (size_t a = 0; a < flags.size(); ++a) {
        if (!flags[a]) kept.push_back(blocks[a]);
      }
      TensorView* in = lift(def->input(0)->as<TensorView>(), kept);
      if (in == nullptr) return nullptr;
      return remember(tv, broadcast(in, flags, blocks), blocks);
    }
    if (def != nullptr && def->type() == ExprType::Expand) {
      TensorView* in = lift(def->input(0)->as<TensorView>(), blocks);
      if (in == nullptr) return nullptr;
      return remember(tv, expand(in, tv, blocks), blocks);
    }
    if (!fusion_.isInput(tv))
      return fail(tv, "is computed by an op the refinement does not rebuild");
    for (const IterDomain* id : axes) {
      if (id->hasExpandedExtent()) return fail(tv, "is an expanded input");
    }
    // A fusion input viewed in the refinement: a kernel-free reshape, cut
    // from the kernels by a segment_set as bookending cuts input views.
    std::vector<Scalar*> shape;
    for (size_t a = 0; a < axes.size(); ++a) {
      for (size_t f = blocks[a].first; f < blocks[a].second; ++f) {
        shape.push_back(axes[a]->isBroadcast() ? fusion_.constInt(1) : r_.scalars[f]);
      }
    }
    return remember(tv, ops::segmentSet(ops::reshape(tv, shape)), blocks);
  }

  // Places the seed reshape's output on its input's refinement (`x`, lifted
  // with the refinement's input blocks).
  bool start(const Expr& seed) {
    const Placed* x = placed(seed.input(0)->as<TensorView>());
    return x != nullptr && reshape(seed, x->blocks);
  }

  // Rebuilds `expr`, which reads a placed tensor, in the refinement; false
  // (with failure()) where it has no form there.
  bool forward(const Expr& expr) {
    std::optional<Blocks> blocks;
    for (Val* in : expr.inputs()) {
      const auto* tv = in->as<TensorView>();
      const Placed* p = tv == nullptr ? nullptr : placed(tv);
      if (p == nullptr || !p->forwarded) continue;
      if (blocks && *blocks != p->blocks) return failed(expr, "reads tensors placed differently");
      blocks = p->blocks;
    }
    if (!blocks) return true;
    auto* out = expr.output(0)->as<TensorView>();
    if (out == nullptr) return failed(expr, "has no tensor output");
    if (ir::isElementwiseMath(expr.type())) {
      std::vector<Val*> inputs;
      for (Val* in : expr.inputs()) {
        auto* tv = in->as<TensorView>();
        if (tv == nullptr) {
          inputs.push_back(in);
          continue;
        }
        TensorView* lifted = lift(tv, *blocks);
        if (lifted == nullptr) return failed(expr, failure_);
        inputs.push_back(lifted);
      }
      place(out, elementwise(expr, inputs, out), *blocks);
      return true;
    }
    const Placed* operand = placed(expr.input(0)->as<TensorView>());
    if (operand == nullptr || !operand->forwarded) {
      return failed(expr, "reads the refinement in an operand it does not rebuild");
    }
    TensorView* in = operand->refined;
    switch (expr.type()) {
      case ExprType::Set:
      case ExprType::SegmentSet: {
        TensorView* copy = expr.type() == ExprType::Set ? ops::set(in) : ops::segmentSet(in);
        place(out, copy, *blocks);
        return true;
      }
      case ExprType::Broadcast: {
        const std::vector<bool>& flags = expr.attrs().broadcastFlags;
        std::optional<Blocks> outBlocks = fillGaps(*blocks, flags);
        if (!outBlocks) return failed(expr, "adds axes the refinement cannot place");
        place(out, broadcast(in, flags, *outBlocks), *outBlocks);
        return true;
      }
      case ExprType::Expand: {
        if (!fits(out, *blocks)) return failed(expr, failure_);
        place(out, expand(in, out, *blocks), *blocks);
        return true;
      }
      case ExprType::Reshape: ++renamedReshapes_; return reshape(expr, *blocks);
      case ExprType::Reduction:
      case ExprType::Welford: return reduce(expr, *blocks);
      default: return failed(expr, "has no form in the refinement");
    }
  }

 private:
  TensorView* fail(const TensorView* tv, const std::string& why) {
    failure_ = tv->name() + " " + why;
    return nullptr;
  }
  bool failed(const Expr& expr, const std::string& why) {
    failure_ = expr.output(0)->name() + " = " + expr.opName() + "(...): " + why;
    return false;
  }

  TensorView* remember(TensorView* tv, TensorView* refined, const Blocks& blocks) {
    placed_[tv] = {refined, blocks, false};
    if (refined != tv) created_.push_back(refined);
    return refined;
  }
  void place(TensorView* tv, TensorView* refined, const Blocks& blocks) {
    placed_[tv] = {refined, blocks, true};
    ++rebuilt_;
    created_.push_back(refined);
  }

  // Whether each axis of `tv` has the extent its block multiplies to (a
  // broadcast axis extent 1, or its expanded extent).
  bool fits(const TensorView* tv, const Blocks& blocks) {
    const std::vector<IterDomain*>& axes = tv->logicalNoReductions();
    if (axes.size() != blocks.size()) {
      failure_ = tv->name() + " has another rank";
      return false;
    }
    for (size_t a = 0; a < axes.size(); ++a) {
      if (width(blocks[a]) == 0) {
        failure_ = tv->name() + " has an axis the refinement has no room for";
        return false;
      }
      int64_t product = 1;
      for (size_t f = blocks[a].first; f < blocks[a].second; ++f) product *= r_.extents[f];
      const int64_t extent = evaluator_.evaluateExtent(axes[a]);
      const bool plainBroadcast = axes[a]->isBroadcast() && !axes[a]->hasExpandedExtent();
      if (!plainBroadcast && extent != product) {
        failure_ = tv->name() + " axis " + std::to_string(a) + " has extent " +
                   std::to_string(extent) + ", not the " + std::to_string(product) +
                   " of its place in the refinement";
        return false;
      }
    }
    return true;
  }

  TensorView* elementwise(const Expr& expr, const std::vector<Val*>& inputs, TensorView* like) {
    Val* out = ops::newElementwiseOutput(expr.opName(), inputs, like->dtype());
    fusion_.newExpr(expr.type(), inputs, {out}, expr.attrs());
    return out->as<TensorView>();
  }

  TensorView* broadcast(TensorView* in, const std::vector<bool>& flags, const Blocks& blocks) {
    std::vector<bool> refinedFlags;
    for (size_t a = 0; a < flags.size(); ++a)
      refinedFlags.insert(refinedFlags.end(), width(blocks[a]), flags[a]);
    return ops::broadcast(in, refinedFlags);
  }

  // `in` (the refinement of like's input) expanded as `like` is.
  TensorView* expand(TensorView* in, const TensorView* like, const Blocks& blocks) {
    const std::vector<IterDomain*>& axes = like->logicalNoReductions();
    std::vector<Scalar*> shape;
    for (size_t a = 0; a < axes.size(); ++a) {
      const bool expanded = axes[a]->hasExpandedExtent();
      for (size_t f = blocks[a].first; f < blocks[a].second; ++f) {
        shape.push_back(expanded ? r_.scalars[f] : fusion_.constInt(-1));
      }
    }
    return ops::expand(in, shape);
  }

  // A broadcast's output blocks: its input's, with the new axes placed in the
  // gaps between its neighbours' blocks.
  std::optional<Blocks> fillGaps(const Blocks& in, const std::vector<bool>& flags) const {
    Blocks out(flags.size());
    size_t k = 0;
    for (size_t a = 0; a < flags.size(); ++a) {
      if (!flags[a]) {
        if (k >= in.size()) return std::nullopt;
        out[a] = in[k++];
      }
    }
    if (k != in.size()) return std::nullopt;
    // Each run of new axes shares the gap between its neighbours: one new
    // axis takes it whole, as many as the gap has axes take one each.
    for (size_t a = 0; a < flags.size();) {
      if (!flags[a]) {
        ++a;
        continue;
      }
      size_t last = a;
      while (last + 1 < flags.size() && flags[last + 1]) ++last;
      const size_t begin = a == 0 ? 0 : out[a - 1].second;
      const size_t end = last + 1 < flags.size() ? out[last + 1].first : r_.extents.size();
      const size_t count = last - a + 1;
      if (end <= begin || (count != 1 && count != end - begin)) return std::nullopt;
      for (size_t k = 0; k < count; ++k) {
        out[a + k] = count == 1 ? Block{begin, end} : Block{begin + k, begin + k + 1};
      }
      a = last + 1;
    }
    return out;
  }

  // A reshape of a placed tensor whose output axes are runs of its
  // refinement axes is a renaming: the output is placed on the same tensor.
  bool reshape(const Expr& expr, const Blocks& blocks) {
    for (size_t a = 1; a < blocks.size(); ++a) {
      if (blocks[a].first != blocks[a - 1].second)
        return failed(expr, "reshapes a tensor with gaps");
    }
    auto* out = expr.output(0)->as<TensorView>();
    Blocks outBlocks;
    size_t f = blocks.front().first;
    for (const IterDomain* id : out->logicalNoReductions()) {
      const int64_t extent = evaluator_.evaluateExtent(id);
      const size_t begin = f;
      if (f == blocks.back().second) return failed(expr, "leaves the refinement");
      int64_t product = r_.extents[f++];
      while (f < blocks.back().second && product < extent) product *= r_.extents[f++];
      if (product != extent) return failed(expr, "leaves the refinement");
      outBlocks.emplace_back(begin, f);
    }
    if (f != blocks.back().second) return failed(expr, "leaves the refinement");
    placed_[out] = {placed(expr.input(0)->as<TensorView>())->refined, outBlocks, true};
    ++rebuilt_;
    return true;
  }

  bool reduce(const Expr& expr, const Blocks& blocks) {
    TensorView* in = placed(expr.input(0)->as<TensorView>())->refined;
    std::vector<int64_t> axes;
    Blocks kept;
    size_t offset = 0;
    std::vector<int64_t> reduced = expr.attrs().axes;
    const auto rank = static_cast<int64_t>(blocks.size());
    for (int64_t& axis : reduced) axis = axis < 0 ? axis + rank : axis;
    for (size_t a = 0; a < blocks.size(); ++a) {
      const bool isReduced =
          std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(a)) != reduced.end();
      for (size_t f = blocks[a].first; isReduced && f < blocks[a].second; ++f) {
        reducedAxes_.insert(f);
      }
      for (size_t f = 0; f < width(blocks[a]); ++f) {
        if (isReduced) axes.push_back(static_cast<int64_t>(offset + f));
      }
      if (!isReduced) kept.push_back(blocks[a]);
      offset += width(blocks[a]);
    }
    if (axes.empty()) return failed(expr, "reduces no axis");
    std::vector<TensorView*> outs;
    if (expr.type() == ExprType::Welford) {
      const ops::WelfordResult w = ops::welford(in, axes);
      outs = {w.avg, w.varSum, w.count};
    } else {
      outs = {ops::reduction(expr.attrs().reductionOp, in, axes)};
    }
    if (outs.size() != expr.outputs().size()) return failed(expr, "has other outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      auto* original = expr.output(k)->as<TensorView>();
      if (original == nullptr || original->dtype() != outs[k]->dtype()) {
        return failed(expr, "computes another dtype in the refinement");
      }
      place(original, outs[k], kept);
    }
    reachedReduction_ = true;
    return true;
  }

  ir::Fusion& fusion_;
  const ir::ExpressionEvaluator& evaluator_;
  Refinement r_;
  // Looked up by tensor, never iterated.
  std::unordered_map<const TensorView*, Placed> placed_;
  int rebuilt_ = 0;
  std::vector<Val*> created_;
  std::string failure_;
  bool reachedReduction_ = false;
  int renamedReshapes_ = 0;
  //! Refinement axes some reduction reduces.
  std::set<size_t> reducedAxes_;
};

std::vector<int64_t> extentsOf(const std::vector<IterDomain*>& axes,
                               const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> extents;
  for (const IterDomain* id : axes) extents.push_back(evaluator.evaluateExtent(id));
  return extents;
}

// Tries the rewrite from `seed`; true if it was applied.
bool refineFrom(ir::Fusion& fusion, const ir::ExpressionEvaluator& evaluator, Expr* seed,
                const std::vector<Expr*>& live, PassRecord& record) {
  auto* x = seed->input(0)->as<TensorView>();
  auto* y = seed->output(0)->as<TensorView>();
  if (x == nullptr || y == nullptr) return false;
  const std::vector<IterDomain*>& inAxes = x->logicalNoReductions();
  const std::vector<IterDomain*>& outAxes = y->logicalNoReductions();
  if (inAxes.empty() || outAxes.empty()) return false;
  // The reduction kernels walk a reshape that keeps the innermost extent; the
  // rewrite is worth it then only where a reshape after the reductions is
  // renamed away and a reduction cuts an axis of the input (a GroupNorm
  // reshaped to [N, G, C/G, H, W] and back; not a LayerNorm over [B, S, H]
  // viewed from [B * S, H] and back, already one kernel).
  const bool walkable =
      evaluator.evaluateExtent(inAxes.back()) == evaluator.evaluateExtent(outAxes.back());
  std::optional<Refinement> refinement = refine(fusion, evaluator, inAxes, outAxes);
  if (!refinement) return false;
  Rewriter rewriter(fusion, evaluator, *refinement);
  bool ok = rewriter.lift(x, rewriter.refinement().inBlocks) != nullptr;
  if (ok) {
    // The seed's output is its input's refinement, renamed.
    ok = rewriter.start(*seed);
  }
  bool after = false;
  for (Expr* expr : live) {
    if (!ok) break;
    if (expr == seed) {
      after = true;
      continue;
    }
    if (after) ok = rewriter.forward(*expr);
  }
  // Every fusion output placed in the refinement is viewed back; an aliased
  // one (written into an input) is left alone, and with it the rewrite.
  std::string why = rewriter.failure();
  std::vector<std::pair<size_t, TensorView*>> outputs;
  for (size_t i = 0; ok && i < fusion.outputs().size(); ++i) {
    auto* tv = fusion.outputs()[i].val->as<TensorView>();
    if (tv == nullptr || rewriter.placed(tv) == nullptr) continue;
    if (fusion.outputs()[i].aliasOf != nullptr || tv->maybeAllocation() != tv->domain().logical) {
      why = "output " + tv->name() + " is written into an input or has a layout of its own";
      ok = false;
      break;
    }
    outputs.emplace_back(i, tv);
  }
  if (!ok || !rewriter.reachedReduction() ||
      (walkable && (rewriter.renamedReshapes() == 0 || !rewriter.cutsAnInputAxis()))) {
    // Where no reduction kernel could walk the reshape, say why it stays.
    if (!ok && !walkable && !why.empty()) {
      record.rewrites.push_back("kept " + y->name() + " = reshape(" + x->name() + "): " + why);
    }
    removeDeadDefinitions(fusion, rewriter.created());
    return false;
  }
  std::vector<Val*> replaced;
  for (const auto& [index, tv] : outputs) {
    const Placed& p = *rewriter.placed(tv);
    bool same = true;
    for (const Block& block : p.blocks) same = same && width(block) == 1;
    TensorView* result = p.refined;
    if (!same || p.refined->logicalNoReductions().size() != p.blocks.size()) {
      std::vector<Scalar*> shape;
      for (const IterDomain* id : tv->logicalNoReductions()) {
        shape.push_back(id->isBroadcast() ? fusion.constInt(1) : id->extent());
      }
      result = ops::reshape(ops::segmentSet(p.refined), shape);
    }
    fusion.replaceOutput(index, result);
    replaced.push_back(tv);
  }
  removeDeadDefinitions(fusion, replaced);
  removeDeadDefinitions(fusion, rewriter.created());
  std::vector<int64_t> refined = rewriter.refinement().extents;
  record.rewrites.push_back("reductions after " + y->name() + " = reshape(" + x->name() +
                            ") from " + shapeText(extentsOf(inAxes, evaluator)) + " to " +
                            shapeText(extentsOf(outAxes, evaluator)) +
                            " are computed over their common refinement " + shapeText(refined) +
                            ": " + std::to_string(rewriter.rebuilt()) + " tensors rebuilt there, " +
                            std::to_string(outputs.size()) + " outputs viewed back");
  return true;
}

}  // namespace

void refineReshapedReductions(ir::Fusion& fusion, const ir::ExpressionEvaluator& evaluator,
                              PassRecord& record) {
  record.name = std::string(kRefineReshapedReductions);
  // One sweep over the reshapes there were, named by their outputs (values
  // outlive the exprs a rewrite removes); the views the rewrite makes are
  // never seeds.
  std::vector<TensorView*> seeds;
  for (Expr* expr : fusion.exprsForOutputs()) {
    if (expr->type() == ExprType::Reshape) seeds.push_back(expr->output(0)->as<TensorView>());
  }
  for (TensorView* y : seeds) {
    if (y == nullptr) continue;
    const std::vector<Expr*> live = fusion.exprsForOutputs();
    Expr* seed = y->definition();
    if (seed == nullptr || std::find(live.begin(), live.end(), seed) == live.end()) continue;
    refineFrom(fusion, evaluator, seed, live, record);
  }
}

}  // namespace fuserlab::passes
