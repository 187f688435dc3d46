#include "core/passes/propagate_shardings.h"

#include <algorithm>

#include "core/ir/elementwise.h"
#include "core/ir/error.h"
#include "core/multidevice/axis_mapping.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::passes {
namespace {

using multidevice::describeSharding;
using multidevice::isSharded;
using multidevice::shardedLogicalId;

bool hasAnyMesh(const ir::Fusion& fusion) {
  for (const auto& val : fusion.vals()) {
    if (const auto* tv = val->as<ir::TensorView>()) {
      if (tv->hasDeviceMesh()) return true;
    }
  }
  return false;
}

bool isPointwise(ir::ExprType type) {
  return ir::isElementwiseMath(type) || type == ir::ExprType::Set;
}

// Shards `tv` on its logical axis `id` (outer split of its loop position).
void shardOn(ir::TensorView* tv, ir::IterDomain* id) {
  const auto& loop = tv->loop();
  auto it = std::find(loop.begin(), loop.end(), id);
  FL_ASSERT(it != loop.end(), "sharding ", tv->name(), " on ", id->toString(),
            ", which is not a loop axis");
  if (auto extent = id->extent()->constInt()) {
    multidevice::shardExtent(*extent, tv->deviceMesh().size(),
                             tv->name() + " axis " + id->toString());
  }
  multidevice::shardOuter(tv, it - loop.begin());
}

// The linear's output with a trailing Reduction axis for the contraction
// axis K, so a K-sharded linear can say its result is partial.
ir::TensorView* withContractionAxis(ir::Fusion& fusion, ir::Expr* linear) {
  auto* out = linear->output(0)->as<ir::TensorView>();
  auto* a = linear->input(0)->as<ir::TensorView>();
  ir::IterDomain* k = a->logicalNoReductions().back();
  std::vector<ir::IterDomain*> logical;
  for (ir::IterDomain* id : out->logical()) {
    logical.push_back(fusion.cloneIterDomain(id));
  }
  logical.push_back(fusion.newIterDomain(k->extent(), ir::IterType::Reduction));
  ir::TensorView* partial = fusion.newTensorView(logical, out->dtype());
  partial->setScriptName(out->scriptName());
  std::vector<ir::Val*> inputs = linear->inputs();
  fusion.removeExpr(linear);
  fusion.newExpr(ir::ExprType::Linear, inputs, {partial});
  fusion.replaceAllUsesWith(out, partial);
  return partial;
}

class Propagation {
 public:
  Propagation(ir::Fusion& fusion, PassRecord& record) : fusion_(fusion), record_(record) {}

  void run() {
    backward();
    for (ir::Expr* expr : fusion_.exprsForOutputs()) forward(expr);
  }

 private:
  void forward(ir::Expr* expr) {
    auto* out = expr->output(0)->as<ir::TensorView>();
    if (out == nullptr || out->hasDeviceMesh()) return;
    const ir::TensorView* meshSource = nullptr;
    for (ir::Val* in : expr->inputs()) {
      const auto* tv = in->as<ir::TensorView>();
      if (tv == nullptr || !tv->hasDeviceMesh()) continue;
      if (meshSource == nullptr) meshSource = tv;
      FL_CHECK(tv->deviceMesh() == meshSource->deviceMesh(), expr->toString(),
               ": its inputs live on different meshes (", meshSource->deviceMesh().toString(),
               " and ", tv->deviceMesh().toString(), ")");
    }
    if (meshSource == nullptr) return;
    if (expr->type() == ir::ExprType::Linear && contractionSharded(expr)) {
      out = withContractionAxis(fusion_, expr);
      expr = out->definition();
    }
    for (size_t i = 0; i < expr->outputs().size(); ++i) {
      if (auto* tv = expr->output(i)->as<ir::TensorView>()) {
        tv->setDeviceMesh(meshSource->deviceMesh());
      }
    }
    // The reference: the first sharded input whose DIDx axis reaches `out`.
    for (size_t i = 0; i < expr->inputs().size(); ++i) {
      const auto* in = expr->input(i)->as<ir::TensorView>();
      if (in == nullptr || !isSharded(in)) continue;
      ir::IterDomain* target = multidevice::mapToConsumer(expr, i, shardedLogicalId(in));
      if (target == nullptr) continue;
      for (ir::Val* o : expr->outputs()) {
        auto* tv = o->as<ir::TensorView>();
        if (tv == nullptr) continue;
        ir::IterDomain* id = tv == out ? target : nullptr;
        // SDPA's logsumexp [b, h, s] is sharded as its output on batch or
        // heads.
        if (tv != out && expr->type() == ir::ExprType::Sdpa && tv->rank() >= 2) {
          const auto& outAxes = out->logicalNoReductions();
          const int64_t k = std::find(outAxes.begin(), outAxes.end(), target) - outAxes.begin();
          if (k <= 1) id = tv->logicalNoReductions()[static_cast<size_t>(k)];
        }
        if (id == nullptr) continue;
        shardOn(tv, id);
        record_.rewrites.push_back(tv->name() + " = " + expr->opName() +
                                   "(...): " + describeSharding(tv) + ", from " + in->name());
      }
      return;
    }
    record_.rewrites.push_back(out->name() + " = " + expr->opName() + "(...): replicated on " +
                               out->deviceMesh().toString());
  }

  // Linear with both the input's and the weight's K sharded.
  static bool contractionSharded(const ir::Expr* linear) {
    const auto* a = linear->input(0)->as<ir::TensorView>();
    const auto* w = linear->input(1)->as<ir::TensorView>();
    return isSharded(a) && isSharded(w) && shardedLogicalId(a) == a->logicalNoReductions().back() &&
           shardedLogicalId(w) == w->logicalNoReductions().back();
  }

  // An unsharded fusion input read by a pointwise op together with a sharded
  // input takes that input's sharding (through the op's axis mapping).
  void backward() {
    for (ir::Expr* expr : fusion_.exprsForOutputs()) {
      if (!isPointwise(expr->type())) continue;
      const ir::TensorView* sharded = nullptr;
      size_t shardedIndex = 0;
      for (size_t i = 0; i < expr->inputs().size(); ++i) {
        const auto* tv = expr->input(i)->as<ir::TensorView>();
        if (tv != nullptr && isSharded(tv) && !multidevice::isPartial(tv)) {
          sharded = tv;
          shardedIndex = i;
          break;
        }
      }
      if (sharded == nullptr) continue;
      ir::IterDomain* outAxis =
          multidevice::mapToConsumer(expr, shardedIndex, shardedLogicalId(sharded));
      if (outAxis == nullptr) continue;
      for (size_t i = 0; i < expr->inputs().size(); ++i) {
        auto* tv = expr->input(i)->as<ir::TensorView>();
        if (tv == nullptr || !tv->isFusionInput() || isSharded(tv)) continue;
        if (tv->hasDeviceMesh() && tv->deviceMesh() != sharded->deviceMesh()) {
          continue;
        }
        ir::IterDomain* id = multidevice::mapToProducer(expr, i, outAxis);
        if (id == nullptr || id->isBroadcast()) continue;
        tv->setDeviceMesh(sharded->deviceMesh());
        shardOn(tv, id);
        record_.rewrites.push_back("input " + tv->name() + ": " + describeSharding(tv) +
                                   ", back from " + expr->opName() + " with " + sharded->name());
      }
    }
  }

  ir::Fusion& fusion_;
  PassRecord& record_;
};

}  // namespace

std::string_view PropagateShardingsPass::description() const {
  return "gives every tensor of a multi-device fusion a mesh and a DIDx "
         "sharding, forward from the sharded inputs and back to unsharded "
         "inputs of pointwise ops";
}

void PropagateShardingsPass::run(ir::Fusion& fusion, const PassOptions&, PassRecord& record) const {
  if (!hasAnyMesh(fusion)) return;
  Propagation(fusion, record).run();
}

}  // namespace fuserlab::passes
